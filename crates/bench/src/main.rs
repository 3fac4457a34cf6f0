//! `bench`: parses flags, runs the matrix, prints and writes the report.
//! `bench serve blocking|async ...` (hidden) runs one server; bench starts its
//! children that way so `cargo run -p bench` builds everything it runs.

use std::process::ExitCode;

use bench::cli::{Cli, Command};
use bench::findings::{check, THRESHOLDS};
use clap::Parser;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(Command::Serve { server, args }) => return serve(server, args.clone()),
        Some(Command::Render { results }) => return render(results),
        Some(Command::Export { ref tool }) => return bench::tool_commands::export(&cli, tool),
        Some(Command::Import {
            ref tool,
            ref files,
        }) => return bench::tool_commands::import(&cli, tool, files),
        Some(Command::Watch {
            ref column,
            ref command,
        }) => return bench::tool_commands::watch(&cli, column, command),
        None => {}
    }
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
    let dir = cli.out.join(stamp);
    let outcome = bench::run::run(&cli, &profile, &groups, &dir);
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
        bench::report::text::render(&results, &findings, &THRESHOLDS)
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
        let unexpected = bench::model::unexpected_errors(&results);
        if !unexpected.is_empty() {
            for (column, what) in &unexpected {
                eprintln!("bench: --strict: {column}: {what}");
            }
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// `bench render results.json`: the report of a saved run, with today's
/// findings and printers.
fn render(path: &std::path::Path) -> ExitCode {
    let results: bench::model::RunResults = match std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench render: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let findings = check(&results, &THRESHOLDS);
    print!(
        "{}",
        bench::report::text::render(&results, &findings, &THRESHOLDS)
    );
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    if let Err(e) = bench::write::write_all(dir, &results, &findings, &THRESHOLDS) {
        eprintln!("bench render: {e:#}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Runs one server in this process until SIGTERM. The kernel sends SIGTERM
/// here when bench dies, so no server outlives the run.
fn serve(server: &str, args: Vec<String>) -> ExitCode {
    if let Err(e) =
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM))
    {
        eprintln!("bench serve: cannot set the parent-death signal: {e}");
    }
    match server {
        "blocking" => blocking_server::main_with_args(
            std::iter::once("blocking-server".to_owned()).chain(args),
        ),
        "async" => {
            async_server::main_with_args(std::iter::once("async-server".to_owned()).chain(args))
        }
        other => {
            eprintln!("bench serve: unknown server {other:?}; expected blocking or async");
            ExitCode::from(2)
        }
    }
}
