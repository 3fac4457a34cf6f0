//! The main job's flags as the docs' table (`bench doc-tables`' `flags`),
//! made from the flags' own help, so that docs/measuring.md cannot drift
//! from `bench --help`.

use clap::CommandFactory;

use super::Cli;

/// `| flag | what it does |`, a row per flag the main job reads (hidden
/// ones and `--help`, `--version` aside), in `bench --help`'s order.
pub fn flag_table() -> String {
    let cmd = Cli::command();
    let mut out = String::from("| flag | what it does |\n|---|---|\n");
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = arg.get_long() else {
            continue;
        };
        if matches!(long, "help" | "version") {
            continue;
        }
        let value = match arg.get_value_names() {
            Some(names) if arg.get_action().takes_values() => format!(" {}", names.join(" ")),
            _ => String::new(),
        };
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        out.push_str(&format!(
            "| `--{long}{}` | {} |\n",
            value.replace('|', "\\|"),
            help.replace('|', "\\|")
        ));
    }
    out
}
