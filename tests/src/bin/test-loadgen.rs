//! `test-loadgen`: loadgen's own binary (`loadgen::main_with_args`), built
//! in this package so its tests can run it (`CARGO_BIN_EXE_test-loadgen`),
//! as the docker-compose healthcheck runs loadgen.

fn main() -> std::process::ExitCode {
    loadgen::main_with_args(std::env::args_os())
}
