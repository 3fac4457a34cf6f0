//! The blocking server's binary, built inside this package so the process
//! tests can name it with `env!("CARGO_BIN_EXE_test-blocking-server")`.

fn main() -> std::process::ExitCode {
    blocking_server::main_with_args(std::env::args_os())
}
