//! `blocking-server`: everything it does is `blocking_server::main_with_args`
//! (src/cli.rs): parse settings, raise the open-file limit, bind, run until
//! SIGTERM or Ctrl-C.

fn main() -> std::process::ExitCode {
    blocking_server::main_with_args(std::env::args_os())
}
