//! A column of the plan as the results name and shape it: its label, its
//! empty result before any round, and the routes whose detector figures it
//! keeps.

use bench_model::ColumnResult;

use super::{Column, PathValues};

impl Column {
    /// Its result with no rounds yet.
    pub fn empty_result(&self, paths: PathValues) -> ColumnResult {
        let with_n = |p: &str| paths.fill(p);
        ColumnResult {
            id: self.id,
            label: self.label(),
            server: self.target,
            method: self.method.to_owned(),
            path: with_n(self.path),
            background_path: self.background.map(with_n),
            rounds: Vec::new(),
            failure: None,
        }
    }

    /// "async /cpu/rayon", or for the mixed group "async /health | /cpu".
    pub fn label(&self) -> String {
        let strip = |p: &str| p.split('?').next().unwrap_or(p).to_owned();
        let label = match self.background {
            Some(bg) => format!("{} /health | {}", self.target.name(), strip(bg)),
            None => format!(
                "{} {} {}",
                self.target.name(),
                if self.method == "GET" {
                    ""
                } else {
                    self.method
                },
                strip(self.path)
            )
            .replace("  ", " "),
        };
        match self.variant {
            Some(v) => format!("{label} ({v})"),
            None => label,
        }
    }

    /// The routes whose detector figures the column keeps: its own, then in
    /// the mixed group the background's (the route under load, which the
    /// detector should flag, not the /health probe).
    pub fn detector_routes(&self) -> Vec<&'static str> {
        std::iter::once(self.path)
            .chain(self.background)
            .filter_map(contract::routes::label_of)
            .collect()
    }
}
