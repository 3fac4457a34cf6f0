//! `bench`: parses flags, runs the matrix, prints and writes the report.
//! Subcommands (render, compare, export, import, watch, and the hidden `serve` that
//! bench starts its servers with) are in [`bench::commands`].

use std::process::ExitCode;

use bench::cli::{Cli, Command};
use bench_analysis::findings::check;
use bench_model::THRESHOLDS;
use clap::Parser;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(Command::Serve { server, args }) => bench::commands::serve(*server, args.clone()),
        Some(Command::DocTables { check }) => bench::commands::doc_tables(*check),
        Some(Command::Proxy { to, round_trip_us }) => bench::commands::proxy(*to, *round_trip_us),
        Some(Command::Render { results, recheck }) => {
            bench::commands::render(&cli, results, *recheck)
        }
        Some(Command::Compare { old, new }) => bench::commands::compare(&cli, old, new),
        Some(Command::Export { tool }) => bench::commands::export(&cli, tool),
        Some(Command::Import { tool, files }) => bench::commands::import(&cli, tool, files),
        Some(Command::Watch { column, command }) => bench::commands::watch(&cli, column, command),
        None => run(&cli),
    }
}

/// The main job: every selected group, then the report and its files.
fn run(cli: &Cli) -> ExitCode {
    let (profile, groups) = match cli.resolve() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("bench: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = bench::run::install_interrupt_cleanup() {
        eprintln!("bench: cannot install the Ctrl-C handler: {e}");
        return ExitCode::FAILURE;
    }
    let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M-%SZ").to_string();
    let dir = cli.runs_dir().join(stamp);
    let outcome = bench::run::run(cli, &profile, &groups, &dir);
    local_services::stop_started_services();
    let results = match outcome {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    let findings = check(&results, &THRESHOLDS);
    print!(
        "{}",
        bench_report::text::render(&results, &findings, &THRESHOLDS)
    );
    if let Err(e) = bench::write::write_all(&dir, &results, &findings, &THRESHOLDS) {
        eprintln!("bench: {e:#}");
        return ExitCode::FAILURE;
    }
    println!(
        "\nReport, results.json and charts written to {}",
        dir.display()
    );
    if cli.strict {
        let unexpected = bench_analysis::errors::unexpected_errors(&results);
        if !unexpected.is_empty() {
            for (column, what) in &unexpected {
                eprintln!("bench: --strict: {column}: {what}");
            }
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
