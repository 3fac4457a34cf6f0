//! `bench export --tool ...`: the matrix handed to an existing load tool, one
//! ready-to-run test per selected group and column, in that tool's own format,
//! with the same load model, plus a README with the commands to run it on one
//! machine and distributed. Every test and request is named after its
//! [`crate::plan::ColumnId`], which is how `bench import` maps results back.

pub mod jmeter;
pub mod k6;
pub mod locust;

use std::path::Path;

use anyhow::Context;

use crate::plan::{groups, Column, Driver, GroupId, Load, Profile, Target};

/// The tools bench can export to and import from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Locust,
    K6,
    Jmeter,
}

impl Tool {
    /// The tool named `name`, or one line saying which names are known.
    pub fn parse(name: &str) -> Result<Tool, String> {
        match name {
            "locust" => Ok(Tool::Locust),
            "k6" => Ok(Tool::K6),
            "jmeter" => Ok(Tool::Jmeter),
            other => Err(format!(
                "unknown tool {other:?}; expected jmeter, locust or k6"
            )),
        }
    }
}

/// The environment variable holding a server's base URL, which every
/// exported test reads (`k6 run -e NAME=...`, Locust's environment).
pub fn url_var(t: Target) -> &'static str {
    match t {
        Target::Blocking => "BLOCKING_URL",
        Target::Async => "ASYNC_URL",
        Target::Virtual(Driver::Pinning) => "VIRTUAL_PINNING_URL",
        Target::Virtual(Driver::Yielding) => "VIRTUAL_YIELDING_URL",
        Target::Java(_) => "CALIBRATION_URL",
    }
}

/// One column to export, with everything its test needs.
#[derive(Debug, Clone)]
pub struct ExportColumn {
    pub group: GroupId,
    pub column: Column,
    pub load: Load,
    /// The path with its placeholders filled in.
    pub path: String,
}

/// One file per column, `DIR/<column id>.EXT`, written by `make`, then the
/// export's README.md.
fn one_file_per_column(
    cols: &[ExportColumn],
    dir_and_ext: (&str, &str),
    make: impl Fn(&ExportColumn) -> String,
    readme: String,
) -> Vec<(String, String)> {
    let (dir, ext) = dir_and_ext;
    let mut out: Vec<(String, String)> = cols
        .iter()
        .map(|c| (format!("{dir}/{}.{ext}", c.column.id.as_str()), make(c)))
        .collect();
    out.push(("README.md".into(), readme));
    out
}

/// Base URLs of the servers the tests default to.
#[derive(Debug, Clone)]
pub struct Targets {
    pub blocking: String,
    pub asynchronous: String,
    /// The blocking server started with `--threads virtual --driver pinning`.
    pub virtual_pinning: String,
    /// The blocking server started with `--threads virtual --driver yielding`.
    pub virtual_yielding: String,
}

/// Where an exported virtual-thread test looks unless told: the next ports
/// after the two servers' defaults (the blocking server binds 8080 in
/// either mode, so each driver's process is given its own with `--bind`).
pub const DEFAULT_VIRTUAL_PINNING_URL: &str = "http://127.0.0.1:8082";
pub const DEFAULT_VIRTUAL_YIELDING_URL: &str = "http://127.0.0.1:8083";

impl Targets {
    pub fn for_target(&self, t: Target) -> &str {
        match t {
            Target::Blocking => &self.blocking,
            Target::Async => &self.asynchronous,
            Target::Virtual(Driver::Pinning) => &self.virtual_pinning,
            Target::Virtual(Driver::Yielding) => &self.virtual_yielding,
            // Never exported ([`not_exported`]): bench builds and starts them.
            Target::Java(_) => "",
        }
    }
}

/// The selected groups' columns under `profile`'s loads, in report order.
pub fn columns(profile: &Profile, selected: &[GroupId]) -> Vec<ExportColumn> {
    let mut out = Vec::new();
    for g in groups() {
        if !selected.contains(&g.id) {
            continue;
        }
        let Some(load) = profile.load(g.id) else {
            continue;
        };
        if not_exported(&g, load).is_some() {
            continue;
        }
        for c in g.columns {
            let path = profile.path_values().fill(c.path);
            out.push(ExportColumn {
                group: g.id,
                column: c,
                load: load.clone(),
                path,
            });
        }
    }
    out
}

/// The README section naming the columns whose server must be started with
/// flags of its own (bench starts those itself; an exported test only has a
/// URL): empty when every column runs on a server with its defaults.
fn server_flags_section(cols: &[ExportColumn]) -> String {
    let mut lines = String::new();
    let flags = |c: &ExportColumn| -> Vec<&str> {
        let t = c.column.target;
        crate::plan::mode_args(t)
            .iter()
            .chain(c.column.server_args)
            .copied()
            .collect()
    };
    for c in cols.iter().filter(|c| !flags(c).is_empty()) {
        let t = c.column.target;
        let watched = match t {
            Target::Virtual(_) => format!(
                " (at {}; `bench watch` it with `--blocking-url`)",
                targets_note(t)
            ),
            _ => String::new(),
        };
        lines.push_str(&format!(
            "- `{}`: the {} server started with `{}`{watched}\n",
            c.column.id.as_str(),
            crate::plan::binary(t),
            flags(c).join(" ")
        ));
    }
    if lines.is_empty() {
        return lines;
    }
    format!(
        "\n## Columns that need a server started with flags\n\n\
         These columns measure a variant of a server, so point their test at one\n\
         started with those flags (on its own port) instead of the default one:\n\n{lines}"
    )
}

/// The environment variable and default URL of a virtual-thread target.
fn targets_note(t: Target) -> String {
    let default = match t {
        Target::Virtual(Driver::Yielding) => DEFAULT_VIRTUAL_YIELDING_URL,
        _ => DEFAULT_VIRTUAL_PINNING_URL,
    };
    format!("`{}`, default {default}", url_var(t))
}

/// The README section naming the selected groups no tool can run as bench
/// does (the idle-connection group): empty when there are none.
fn not_exported_section(profile: &Profile, selected: &[GroupId]) -> String {
    let skipped: Vec<String> = groups()
        .iter()
        .filter(|g| selected.contains(&g.id))
        .filter_map(|g| {
            let why = not_exported(g, profile.load(g.id)?)?;
            Some(format!(
                "- `{}`: {why} (`bench --groups {}`).\n",
                g.id, g.id
            ))
        })
        .collect();
    if skipped.is_empty() {
        return String::new();
    }
    format!("\n## Groups not exported\n\n{}", skipped.concat())
}

/// Why a group is bench's own and not a load tool's, if it is.
fn not_exported(group: &crate::plan::Group, load: &Load) -> Option<&'static str> {
    if group.id.is_calibration() {
        return Some(
            "its Java servers (Tomcat, Netty) are built and started by bench itself, with a fixed JVM",
        );
    }
    match (load, group.network) {
        (Load::Idle(_), _) => Some(
            "it holds thousands of idle connections open while it reads the server's threads and memory from /proc, which only bench itself does",
        ),
        (Load::Sweep(_), _) => Some(
            "a sweep takes its steps on one server, cuts each at its window's end and settles or replaces the server between them, which is not a load tool's shape",
        ),
        (_, crate::plan::Network::RoundTrip(_)) => Some(
            "its servers reach Postgres and Redis through a proxy that adds a round trip, which bench starts for the group",
        ),
        _ => None,
    }
}

/// Writes the tests for `tool` into `dir` (created if missing);
/// `import_flags` (profile and load overrides) go on the export README's `bench import`
/// line, so the imported report describes the load that was exported.
pub fn export(
    tool: Tool,
    profile: &Profile,
    selected: &[GroupId],
    targets: &Targets,
    import_flags: &str,
    dir: &Path,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let cols = columns(profile, selected);
    let mut files = match tool {
        Tool::Locust => locust::files(profile, &cols, targets, import_flags),
        Tool::K6 => one_file_per_column(
            &cols,
            ("k6", "js"),
            |c| k6::script(profile, c, targets),
            k6::readme(profile, targets, import_flags),
        ),
        Tool::Jmeter => one_file_per_column(
            &cols,
            ("jmeter", "jmx"),
            |c| jmeter::plan(profile, c, targets),
            jmeter::readme(profile, targets, import_flags),
        ),
    };
    if let Some((_, readme)) = files.iter_mut().find(|(name, _)| name == "README.md") {
        readme.push_str(&server_flags_section(&cols));
        readme.push_str(&not_exported_section(profile, selected));
    }
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(&name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idle_group_is_left_out_and_the_readme_says_so() {
        let profile = crate::plan::quick();
        let cols = columns(&profile, &[GroupId::Cpu, GroupId::Idle]);
        assert!(cols.iter().all(|c| c.group == GroupId::Cpu));
        let note = not_exported_section(&profile, &[GroupId::Cpu, GroupId::Idle]);
        assert!(
            note.contains("- `idle`: it holds thousands of idle connections"),
            "{note}"
        );
        assert_eq!(not_exported_section(&profile, &[GroupId::Cpu]), "");
    }
}
