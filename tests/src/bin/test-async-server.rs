//! The async server's binary, built inside this package so the process tests
//! can name it with `env!("CARGO_BIN_EXE_test-async-server")`.

fn main() -> std::process::ExitCode {
    async_server::main_with_args(std::env::args_os())
}
