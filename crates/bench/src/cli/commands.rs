//! Every command from parsed flags to files and an exit code: the main
//! job (the matrix), `render`, `compare`, `doc-tables`, `export`,
//! `import`, `watch`, and the hidden `serve` and `proxy`. Bad input is one
//! line on stderr and exit code 2.

use std::path::Path;
use std::process::ExitCode;

use crate::cli::flags::RunFlags;
use crate::cli::{
    out_or_results, CompareArgs, ExportArgs, ImportArgs, RenderArgs, ServerKind, WatchArgs,
};
use crate::output::Echo;
use crate::plan::{ColumnId, JavaServer, RunPlan};
use crate::tools::export::{self, Targets, Tool};
use bench_analysis::findings::check;
use bench_model::{RunResults, THRESHOLDS};

fn fail(command: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("bench {command}: {message}");
    ExitCode::from(2)
}

/// Judges `results` and writes the run's files into `dir`, saying where;
/// when they cannot be written, the error on stderr after `command`'s
/// name, and the exit code.
fn write_run(command: &str, dir: &Path, results: &RunResults) -> Result<(), ExitCode> {
    if let Err(e) = crate::output::judge_and_write(dir, results, Echo::Print) {
        eprintln!("{command}: {e:#}");
        return Err(ExitCode::FAILURE);
    }
    println!(
        "\nReport, results.json and charts written to {}",
        dir.display()
    );
    Ok(())
}

/// The main job: the plan of every selected group carried out, then the
/// report and its files.
pub fn run_matrix(flags: &RunFlags) -> ExitCode {
    let plan = match RunPlan::new(&flags.request()) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("bench: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = crate::run::install_interrupt_cleanup() {
        eprintln!("bench: cannot install the Ctrl-C handler: {e}");
        return ExitCode::FAILURE;
    }
    let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M-%SZ").to_string();
    let dir = out_or_results(&flags.out).join(stamp);
    let outcome = crate::run::run(&plan, &dir);
    local_services::stop_started_services();
    let results = match outcome {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(code) = write_run("bench", &dir, &results) {
        return code;
    }
    if flags.strict {
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

/// `bench render results.json [--out DIR] [--recheck]`: the report of a
/// saved run, written into DIR (default: `rendered/` beside the file),
/// never over the saved file.
pub fn render(args: &RenderArgs) -> ExitCode {
    let (path, recheck) = (args.results.as_path(), args.recheck);
    let saved = match crate::output::saved::read(path) {
        Ok(s) => s,
        Err(e) => return fail("render", e),
    };
    let (findings, thresholds) = if recheck {
        (check(&saved.results, &THRESHOLDS), THRESHOLDS)
    } else {
        (saved.findings, saved.thresholds)
    };
    let dir = match &args.out {
        Some(out) => out.clone(),
        None => path.parent().unwrap_or(Path::new(".")).join("rendered"),
    };
    if dir.join("results.json") == path {
        return fail(
            "render",
            "--out is the saved run's own folder; a saved run is not written over",
        );
    }
    print!(
        "{}",
        bench_report::text::render(&saved.results, &findings, &thresholds)
    );
    if let Err(e) = crate::output::write_report(&dir, &saved.results, &findings, &thresholds) {
        eprintln!("bench render: {e:#}");
        return ExitCode::FAILURE;
    }
    println!("\nReport and charts written to {}", dir.display());
    ExitCode::SUCCESS
}

/// `bench doc-tables [--check]`, run from the workspace (or any folder in
/// it: the root is the nearest with a README.md and a docs/ folder).
pub fn doc_tables(check: bool) -> ExitCode {
    let Some(root) = std::env::current_dir().ok().and_then(|d| {
        d.ancestors()
            .find(|a| a.join("README.md").is_file() && a.join("docs").is_dir())
            .map(Path::to_path_buf)
    }) else {
        return fail(
            "doc-tables",
            "run it inside the project: no folder with README.md and docs/ above here",
        );
    };
    match crate::output::doc_tables::stale(
        &root,
        !check,
        &crate::plan::tables::code_tables(crate::cli::flag_table::flag_table()),
    ) {
        Ok(stale) if stale.is_empty() => ExitCode::SUCCESS,
        Ok(stale) => {
            for file in &stale {
                let rel = file.strip_prefix(&root).unwrap_or(file);
                if check {
                    eprintln!("bench doc-tables: {} has tables that differ from what they are made of; run bench doc-tables", rel.display());
                } else {
                    println!("rewrote the tables of {}", rel.display());
                }
            }
            if check {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => fail("doc-tables", e),
    }
}

/// `bench compare OLD NEW [--out DIR]`: the comparison on stdout, its
/// warnings on stderr, compare.md and compare.html into DIR. Exits 1 when a
/// finding flipped between HELD and NOT HELD (as criterion reports a
/// regression), 2 when a file cannot be read or written.
pub fn compare(args: &CompareArgs) -> ExitCode {
    let (old, new) = (args.old.as_path(), args.new.as_path());
    let (old_run, new_run) = match (
        crate::output::saved::read(old),
        crate::output::saved::read(new),
    ) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return fail("compare", e),
    };
    let names = (old.display().to_string(), new.display().to_string());
    let cmp = bench_report::compare::compare(&old_run, &new_run, (&names.0, &names.1));
    for w in &cmp.warnings {
        eprintln!("bench compare: warning: {w}");
    }
    print!("{}", bench_report::compare::text::render(&cmp));
    if let Some(dir) = &args.out {
        let files = bench_report::compare::files(&cmp);
        if let Err(e) = crate::output::write_files(dir, &files) {
            return fail("compare", format!("{e:#}"));
        }
        println!("\ncompare.md and compare.html written to {}", dir.display());
    }
    if cmp.flipped().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `bench proxy --to ADDR --round-trip-us N`: a latency proxy on a free
/// loopback port until SIGTERM (or bench's death, by the parent-death
/// signal); its first line on stdout says where it listens, the second
/// where its measurements are served (`stats on ADDR`: any GET there
/// answers them as Prometheus text, `net_tools::proxy::stats_http`).
pub fn proxy(to: std::net::SocketAddr, round_trip_us: u64) -> ExitCode {
    if let Err(e) =
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM))
    {
        eprintln!("bench proxy: cannot set the parent-death signal: {e}");
    }
    let proxy = match net_tools::FaultProxy::start(to) {
        Ok(p) => p,
        Err(e) => return fail("proxy", format!("cannot listen: {e}")),
    };
    proxy.set_round_trip(std::time::Duration::from_micros(round_trip_us));
    let stats = match proxy.serve_stats() {
        Ok(a) => a,
        Err(e) => return fail("proxy", format!("cannot serve its measurements: {e}")),
    };
    println!("listening on {}", proxy.addr());
    println!("stats on {stats}");
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}

/// Runs one server in this process until SIGTERM, or for a calibration
/// server becomes its JVM. The kernel sends SIGTERM here when bench dies
/// (and to the JVM, which keeps the setting), so no server outlives the run.
pub fn serve(server: ServerKind, args: Vec<String>) -> ExitCode {
    if let Err(e) =
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM))
    {
        eprintln!("bench serve: cannot set the parent-death signal: {e}");
    }
    match server {
        ServerKind::Blocking => blocking_server::main_with_args(
            std::iter::once("blocking-server".to_owned()).chain(args),
        ),
        ServerKind::Async => {
            async_server::main_with_args(std::iter::once("async-server".to_owned()).chain(args))
        }
        // Tomcat's virtual-thread mode is its `--virtual`, among the args.
        ServerKind::Tomcat => crate::servers::java::exec(JavaServer::Tomcat, &args),
        ServerKind::Netty => crate::servers::java::exec(JavaServer::Netty, &args),
    }
}

/// `bench export --tool T [--profile P] [--groups ...] --out DIR`.
pub fn export(args: &ExportArgs) -> ExitCode {
    let tool = match Tool::parse(&args.tool) {
        Ok(t) => t,
        Err(e) => return fail("export", e),
    };
    let selection = args.profile.selection(&args.groups);
    let (profile, groups) = match selection.resolve() {
        Ok(x) => x,
        Err(e) => return fail("export", e),
    };
    let out = out_or_results(&args.out);
    let default =
        |url: &Option<String>, bind: &str| url.clone().unwrap_or_else(|| format!("http://{bind}"));
    let targets = Targets {
        blocking: default(
            &args.servers.blocking_url,
            contract::settings::DEFAULT_BLOCKING_BIND,
        ),
        asynchronous: default(
            &args.servers.async_url,
            contract::settings::DEFAULT_ASYNC_BIND,
        ),
        virtual_pinning: export::DEFAULT_VIRTUAL_PINNING_URL.to_owned(),
        virtual_yielding: export::DEFAULT_VIRTUAL_YIELDING_URL.to_owned(),
    };
    let loads = &selection.loads;
    let mut flags = vec![format!("--profile {}", profile.name)];
    if let Some(d) = loads.duration {
        flags.push(format!("--duration {}ms", d.as_millis()));
    }
    if let Some(n) = loads.connections {
        flags.push(format!("--connections {n}"));
    }
    if let Some(n) = loads.requests {
        flags.push(format!("--requests {n}"));
    }
    if let Some(n) = loads.cpu_n {
        flags.push(format!("--cpu-n {n}"));
    }
    match export::export(tool, &profile, &groups, &targets, &flags.join(" "), &out) {
        Ok(files) => {
            println!(
                "Wrote {} files into {}; see its README.md",
                files.len(),
                out.display()
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
pub fn import(args: &ImportArgs) -> ExitCode {
    let tool = match Tool::parse(&args.tool) {
        Ok(t) => t,
        Err(e) => return fail("import", e),
    };
    let (profile, _) = match args.profile.selection(&Default::default()).resolve() {
        Ok(x) => x,
        Err(e) => return fail("import", e),
    };
    let out = out_or_results(&args.out);
    let imported = match crate::tools::import::read(tool, &args.files) {
        Ok(i) => i,
        Err(e) => return fail("import", format!("{e:#}")),
    };
    let results = match crate::tools::import::results(tool, &profile, &imported) {
        Ok(r) => r,
        Err(e) => return fail("import", format!("{e:#}")),
    };
    match write_run("bench import", &out, &results) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// `bench watch --column ID --blocking-url U --async-url U --out DIR -- CMD...`:
/// exits with the command's exit code.
pub fn watch(args: &WatchArgs) -> ExitCode {
    let (column, command) = (args.column.as_str(), &args.command);
    let Some(id) = ColumnId::parse(column) else {
        return fail("watch", format!("unknown column {column:?}"));
    };
    let Some(target) = crate::tools::watch::target_of(id) else {
        return fail("watch", format!("no server for column {column:?}"));
    };
    // A virtual-thread column's server is the blocking server started with
    // `--threads virtual`: it is watched at the blocking server's URL.
    let url = match target {
        crate::plan::Target::Blocking | crate::plan::Target::Virtual(_) => {
            &args.servers.blocking_url
        }
        crate::plan::Target::Async => &args.servers.async_url,
        crate::plan::Target::Java(_) => {
            return fail(
                "watch",
                format!("column {column} is on a calibration server, which only bench runs"),
            )
        }
    };
    let Some(url) = url else {
        return fail(
            "watch",
            format!(
                "column {column} is on the {} server: give --{}-url",
                target.name(),
                crate::plan::binary(target)
            ),
        );
    };
    let out = out_or_results(&args.out);
    match crate::tools::watch::watch(id, url, command, &out) {
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
