//! `async-server`: everything it does is `async_server::main_with_args`
//! (src/cli.rs): parse settings, raise the open-file limit, build the runtime,
//! bind, run until SIGTERM or Ctrl-C.

fn main() -> std::process::ExitCode {
    async_server::main_with_args(std::env::args_os())
}
