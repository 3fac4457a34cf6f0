//! The `export`, `import` and `watch` subcommands from parsed flags to files
//! and an exit code: bad input is one line on stderr and exit code 2.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::Cli;
use crate::export::{self, Targets, Tool};
use crate::findings::{check, THRESHOLDS};
use crate::plan::ColumnId;

fn fail(command: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("bench {command}: {message}");
    ExitCode::from(2)
}

/// `bench export --tool T [--profile P] [--groups ...] --out DIR`.
pub fn export(cli: &Cli, tool: &str) -> ExitCode {
    let tool = match Tool::parse(tool) {
        Ok(t) => t,
        Err(e) => return fail("export", e),
    };
    let (profile, groups) = match cli.resolve() {
        Ok(x) => x,
        Err(e) => return fail("export", e),
    };
    let default =
        |url: &Option<String>, bind: &str| url.clone().unwrap_or_else(|| format!("http://{bind}"));
    let targets = Targets {
        blocking: default(&cli.blocking_url, contract::settings::DEFAULT_BLOCKING_BIND),
        asynchronous: default(&cli.async_url, contract::settings::DEFAULT_ASYNC_BIND),
    };
    let mut flags = vec![format!("--profile {}", profile.name)];
    if let Some(d) = cli.duration {
        flags.push(format!("--duration {}ms", d.as_millis()));
    }
    if let Some(n) = cli.connections {
        flags.push(format!("--connections {n}"));
    }
    if let Some(n) = cli.requests {
        flags.push(format!("--requests {n}"));
    }
    if let Some(n) = cli.cpu_n {
        flags.push(format!("--cpu-n {n}"));
    }
    match export::export(
        tool,
        &profile,
        &groups,
        &targets,
        &flags.join(" "),
        &cli.out,
    ) {
        Ok(files) => {
            println!(
                "Wrote {} files into {}; see its README.md",
                files.len(),
                cli.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench export: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `bench import --tool T FILES... --out DIR`.
pub fn import(cli: &Cli, tool: &str, files: &[PathBuf]) -> ExitCode {
    let tool = match Tool::parse(tool) {
        Ok(t) => t,
        Err(e) => return fail("import", e),
    };
    let (profile, _) = match cli.resolve() {
        Ok(x) => x,
        Err(e) => return fail("import", e),
    };
    let imported = match crate::import::read(tool, files) {
        Ok(i) => i,
        Err(e) => return fail("import", format!("{e:#}")),
    };
    let results = match crate::import::results(tool, &profile, &imported) {
        Ok(r) => r,
        Err(e) => return fail("import", format!("{e:#}")),
    };
    let findings = check(&results, &THRESHOLDS);
    print!(
        "{}",
        crate::report::text::render(&results, &findings, &THRESHOLDS)
    );
    if let Err(e) = crate::write::write_all(&cli.out, &results, &findings, &THRESHOLDS) {
        eprintln!("bench import: {e:#}");
        return ExitCode::FAILURE;
    }
    println!(
        "\nReport, results.json and charts written to {}",
        cli.out.display()
    );
    ExitCode::SUCCESS
}

/// `bench watch --column ID --blocking-url U --async-url U --out DIR -- CMD...`:
/// exits with the command's exit code.
pub fn watch(cli: &Cli, column: &str, command: &[String]) -> ExitCode {
    let Some(id) = ColumnId::parse(column) else {
        return fail("watch", format!("unknown column {column:?}"));
    };
    let Some(target) = crate::watch::target_of(id) else {
        return fail("watch", format!("no server for column {column:?}"));
    };
    let url = match target {
        crate::plan::Target::Blocking => &cli.blocking_url,
        crate::plan::Target::Async => &cli.async_url,
    };
    let Some(url) = url else {
        return fail(
            "watch",
            format!(
                "column {column} is on the {} server: give --{}-url",
                target.name(),
                target.name()
            ),
        );
    };
    match crate::watch::watch(id, url, command, &cli.out) {
        Ok((record, code)) => {
            eprintln!(
                "bench watch: {column}: the server answered {} requests in {:.1} s, threads {} -> {}",
                record
                    .server_counted_requests
                    .map_or("an unknown number of".to_owned(), |n| n.to_string()),
                record.window_seconds,
                record.server_process.idle_threads,
                record.server_process.peak_threads
            );
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        Err(e) => fail("watch", format!("{e:#}")),
    }
}
