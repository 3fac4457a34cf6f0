//! `loadgen`: everything it does is `loadgen::main_with_args`
//! (src/command.rs): parse the command line, run the plan, print the report,
//! exit with its status.

fn main() -> std::process::ExitCode {
    loadgen::main_with_args(std::env::args_os())
}
