//! ARCHITECTURE.md's code map held against the manifests: its graph of
//! who depends on whom must be the one the crates' Cargo.toml files
//! declare (dev-dependencies marked as such), and every crate must have
//! its paragraph. rust-analyzer keeps its code map true the same way: a
//! map a test does not check drifts with the first crate that moves.

use std::collections::{BTreeMap, BTreeSet};

use super::tidy::{crate_dirs, read, section_keys, workspace_root};

/// How a crate depends on another: for its own code, or for its tests only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Edge {
    Normal,
    Dev,
}

/// Crate -> the workspace crates that depend on it, and how.
type Dependents = BTreeMap<String, BTreeSet<(String, Edge)>>;

#[test]
fn the_code_maps_crate_graph_is_the_manifests() {
    let architecture = read(&workspace_root().join("ARCHITECTURE.md"));
    let drawn = match drawn_graph(&architecture) {
        Ok(g) => g,
        Err(e) => panic!("ARCHITECTURE.md: {e}"),
    };
    let declared = declared_graph();
    let mut wrong = Vec::new();
    for name in drawn.keys().chain(declared.keys()).collect::<BTreeSet<_>>() {
        let (d, m) = (drawn.get(name), declared.get(name));
        if d != m {
            wrong.push(format!(
                "{name} <- drawn {}, declared {}",
                line_of(d),
                line_of(m)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md's graph differs from the manifests (write `{}`):\n  {}",
        "crate <- user, user (dev)",
        wrong.join("\n  ")
    );
}

#[test]
fn every_crate_has_its_paragraph_in_the_code_map() {
    let architecture = read(&workspace_root().join("ARCHITECTURE.md"));
    let headings: Vec<&str> = architecture
        .lines()
        .filter(|l| l.starts_with("## "))
        .collect();
    let missing: Vec<String> = crate_dirs()
        .iter()
        .filter_map(|dir| {
            let folder = dir.file_name()?.to_string_lossy().into_owned();
            let named = headings.iter().any(|h| {
                h.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '/'))
                    .any(|word| word.trim_end_matches('/').rsplit('/').next() == Some(&folder))
            });
            (!named).then_some(folder)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md has no `## ` heading naming {missing:?}"
    );
}

#[test]
fn the_drawn_graph_is_read_as_written() {
    let text = "intro\n\n```\nb    <- a, c (dev)\nc    <- a\n```\n\nmore\n```\nx <- y\n```\n";
    let g = drawn_graph(text).unwrap();
    assert_eq!(g.len(), 2, "{g:?}");
    assert_eq!(
        line_of(g.get("b")),
        "a, c (dev)",
        "the first code block is the graph"
    );
    assert!(drawn_graph("```\nb <- \n```\n").unwrap().is_empty());
    assert!(drawn_graph("```\nb -> a\n```\n").is_err());
    assert!(drawn_graph("no block").is_err());
}

/// The graph of the first code block of the map: a line per crate,
/// `name <- user, user (dev)`; a crate nothing depends on has no line.
fn drawn_graph(text: &str) -> Result<Dependents, String> {
    let block = text
        .split("```")
        .nth(1)
        .ok_or("no code block with the crate graph")?;
    let mut graph = Dependents::new();
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (name, users) = line
            .split_once("<-")
            .ok_or_else(|| format!("a graph line without `<-`: {line:?}"))?;
        let users: BTreeSet<(String, Edge)> = users
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(|u| match u.strip_suffix("(dev)") {
                Some(u) => (u.trim().to_owned(), Edge::Dev),
                None => (u.to_owned(), Edge::Normal),
            })
            .collect();
        if !users.is_empty() {
            graph.insert(name.trim().to_owned(), users);
        }
    }
    Ok(graph)
}

/// The graph the manifests declare, between the workspace's own crates:
/// a crate a user needs for its code and its tests counts once, as normal.
fn declared_graph() -> Dependents {
    let manifests: Vec<(String, String)> = crate_dirs()
        .iter()
        .map(|dir| {
            let text = read(&dir.join("Cargo.toml"));
            (package_name(&text), text)
        })
        .collect();
    let ours: BTreeSet<&str> = manifests.iter().map(|(n, _)| n.as_str()).collect();
    let mut graph = Dependents::new();
    for (user, manifest) in &manifests {
        let normal = section_keys(manifest, |s| {
            s == "dependencies"
                || s == "build-dependencies"
                || (s.starts_with("target.") && s.ends_with(".dependencies"))
        });
        let dev = section_keys(manifest, |s| s == "dev-dependencies");
        for (dep, edge) in normal.iter().map(|d| (d, Edge::Normal)).chain(
            dev.iter()
                .filter(|d| !normal.contains(d))
                .map(|d| (d, Edge::Dev)),
        ) {
            if ours.contains(dep.as_str()) && dep != user {
                graph
                    .entry(dep.clone())
                    .or_default()
                    .insert((user.clone(), edge));
            }
        }
    }
    graph
}

/// `[package]`'s `name`.
fn package_name(manifest: &str) -> String {
    manifest
        .lines()
        .map(str::trim)
        .find_map(|l| {
            let (key, value) = l.split_once('=')?;
            (key.trim() == "name").then(|| value.trim().trim_matches('"').to_owned())
        })
        .unwrap_or_default()
}

/// A crate's users as the map writes them.
fn line_of(users: Option<&BTreeSet<(String, Edge)>>) -> String {
    users.map_or("nothing".to_owned(), |users| {
        users
            .iter()
            .map(|(u, e)| match e {
                Edge::Normal => u.clone(),
                Edge::Dev => format!("{u} (dev)"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    })
}
