//! `bench`: parses flags and runs the command they name, the matrix when
//! none: every command (render, compare, doc-tables, export, import,
//! watch, and the hidden `serve` and `proxy` that bench starts its children
//! with) is in [`bench::cli::commands`].

use std::process::ExitCode;

use bench::cli::commands;
use bench::cli::{Cli, Command};
use clap::Parser as _;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version are answers, not errors.
        Err(e) if !e.use_stderr() => e.exit(),
        // Bad flags: one line saying what is wrong (clap's first), exit 2.
        Err(e) => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            eprintln!("bench: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    match &cli.command {
        Some(Command::Serve { server, args }) => commands::serve(*server, args.clone()),
        Some(Command::DocTables { check }) => commands::doc_tables(*check),
        Some(Command::Proxy { to, round_trip_us }) => commands::proxy(*to, *round_trip_us),
        Some(Command::Render(args)) => commands::render(args),
        Some(Command::Compare(args)) => commands::compare(args),
        Some(Command::Export(args)) => commands::export(args),
        Some(Command::Import(args)) => commands::import(args),
        Some(Command::Watch(args)) => commands::watch(args),
        None => commands::run_matrix(&cli.run),
    }
}
