//! The run at a glance: which model for which workload. A row per workload
//! the run measured ([`workloads::WORKLOADS`]), a column per model (thread
//! pool, event loop, virtual threads); each cell the model's Spring Boot
//! default ([`spring_defaults`]: the column that does what Spring MVC,
//! WebFlux or MVC on virtual threads does as Spring Boot ships it), named,
//! with its figure relative to the row's best cell (1.00 = best) and the
//! figure itself, then its p99 and server CPU per request; beside it the
//! model's best variant beyond Spring's defaults, where one did better
//! (the pipelined driver, say); per row, the verdict of the finding that
//! judges it and how the models stood, in words made of the row's own
//! rounds ([`standing`]).
//! Then what goes wrong ([`wrongs`]) and the other implementations
//! measured for calibration, apart.
//!
//! Built from a run's results and findings alone, so every saved run has
//! one (an older run with fewer groups has fewer rows). Columns are read
//! generically: a column's model from its server, its variant from its
//! driver, route and label ([`columns`]), so a column added to a group
//! takes its place in its row by itself. The printers ([`text`],
//! [`markdown`], [`html`]) are functions of the [`Glance`].

pub mod columns;
pub mod html;
pub mod markdown;
pub mod measure;
mod saturated;
pub mod spring_defaults;
pub mod standing;
pub mod text;
pub mod words;
pub mod workloads;
mod wrong;
pub mod wrongs;

use bench_analysis::findings::kind_of;
use bench_model::{ColumnId, Finding, FindingKind, GroupId, GroupResult, RunResults};
use bench_model::{Spread, Target, Thresholds, Verdict};

pub use columns::Model;
use columns::{blocks_by_design, column_routes, idle_target, plain_route, route_of};
pub use measure::{Figure, Measure};
use workloads::Workload;
pub use wrongs::Wrong;

/// The whole matrix of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Glance {
    /// A row per workload the run measured, in [`workloads::WORKLOADS`]' order.
    pub rows: Vec<Row>,
    /// What goes wrong: each deliberately wrong variant the run measured.
    pub wrongs: Vec<Wrong>,
    /// Columns of other implementations (calibration servers), each against
    /// its twin model's best in its group (else the best of ours).
    pub calibration: Vec<Calibration>,
}

/// One workload across the three models.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub workload: &'static Workload,
    /// The group's title, as the report heads its section.
    pub title: String,
    /// The route the group's plain columns load, e.g. "/users/{id}".
    pub route: String,
    pub figure: Figure,
    /// A cell per model, in [`Model::ALL`]'s order.
    pub cells: Vec<(Model, Cell)>,
    /// Beside a model's cell, its best variant beyond Spring's defaults,
    /// where one did better than the default.
    pub beyond: Vec<(Model, Beyond)>,
    /// The first finding of the workload's list the run measured, else
    /// the first it has.
    pub verdict: Option<RowVerdict>,
    /// How the ranked models stood, round by round; `None` with fewer
    /// than two ranked.
    pub standing: Option<standing::Standing>,
}

impl Row {
    /// How the models stood, in words: [`standing::Standing::words`], or
    /// why there is nothing to compare.
    pub fn standing_words(&self) -> String {
        match &self.standing {
            Some(s) => s.words(self.figure),
            None => "fewer than two models ranked here".to_owned(),
        }
    }
}

/// A column the matrix shows: its id, its variant's name and its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub column: ColumnId,
    /// "rayon", "yielding driver", "sync driver".
    pub variant: String,
    pub measure: Measure,
    /// The figure the row compares, per round: (round, figure).
    pub rounds: Vec<(u32, f64)>,
}

/// A model's best variant beyond Spring's defaults, shown beside its cell,
/// and its figure relative to the row's best cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Beyond {
    pub pick: Pick,
    pub relative: Option<Spread>,
}

impl Row {
    /// What `model` shows beside its cell, if anything.
    pub fn beyond_of(&self, model: Model) -> Option<&Beyond> {
        self.beyond.iter().find(|b| b.0 == model).map(|b| &b.1)
    }
}

/// What a model shows in a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Its best variant that does not block by design, and that figure
    /// relative to the row's best (`None` when the best is 0).
    Best {
        pick: Pick,
        relative: Option<Spread>,
    },
    /// Every variant of it the run measured here blocks by design: the
    /// best of them, shown but never ranked.
    OnlyByDesign(Pick),
    /// Nothing of this model was measured here: why, in a few words, and
    /// the column's own failure where one failed.
    Missing {
        why: &'static str,
        failure: Option<String>,
    },
}

/// The verdict a row shows, as the run's finding has it.
#[derive(Debug, Clone, PartialEq)]
pub struct RowVerdict {
    pub finding: String,
    pub verdict: Verdict,
    /// Prediction or design check (this build's kind of an id saved before kinds).
    pub kind: Option<FindingKind>,
}

impl RowVerdict {
    fn of(f: &Finding) -> RowVerdict {
        RowVerdict {
            finding: f.id.clone(),
            verdict: f.verdict,
            kind: kind_of(f),
        }
    }

    /// Whether the finding is a design check rather than a prediction.
    pub fn is_design_check(&self) -> bool {
        self.kind == Some(FindingKind::DesignCheck)
    }

    /// "HELD", or "HELD (design check)".
    pub fn words(&self) -> String {
        let kind = if self.is_design_check() {
            " (design check)"
        } else {
            ""
        };
        format!("{}{kind}", self.verdict.word())
    }
}

/// A column of another implementation, against our models in its group.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// The server, as results.json names it ("tomcat").
    pub implementation: String,
    pub group: GroupId,
    /// The workload's name, or the group's title for a group no row has.
    pub workload: String,
    pub figure: Figure,
    pub pick: Pick,
    /// Its figure relative to its twin model's best in the group (Tomcat:
    /// the thread pool; Netty: the event loop), else the best of ours, and
    /// which that is; `None` where none of ours was measured there.
    pub against: Option<(Spread, Model, String)>,
}

/// One measured (or failed) column of a group, as the matrix reads it.
struct Entry {
    id: ColumnId,
    target: Target,
    words: Vec<String>,
    by_design: bool,
    measure: Option<Measure>,
    rounds: Vec<(u32, f64)>,
    failure: Option<String>,
}

/// The matrix of `results`, with the verdicts of `findings`.
pub fn build(results: &RunResults, findings: &[Finding], t: &Thresholds) -> Glance {
    let mut rows = Vec::new();
    let mut calibration = Vec::new();
    for g in &results.groups {
        let (figure, entries) = entries(g, t);
        let workload = workloads::of_group(g.id);
        if let Some(w) = workload {
            rows.push(row(g, (w, t.margin), figure, &entries, findings));
        }
        let name = workload.map_or_else(|| g.title.clone(), |w| w.name.to_owned());
        calibration.extend(calibrations(g.id, &name, figure, &entries));
    }
    rows.sort_by_key(|r| {
        workloads::WORKLOADS
            .iter()
            .position(|w| w.group == r.workload.group)
    });
    Glance {
        rows,
        wrongs: wrongs::wrongs(results, findings, t),
        calibration,
    }
}

/// Every column (or idle server) of `g` with its figures, and the figure
/// they are compared by.
fn entries(g: &GroupResult, t: &Thresholds) -> (Figure, Vec<Entry>) {
    if let Some(idle) = &g.idle {
        let entries = idle
            .servers
            .iter()
            .filter_map(|s| {
                let target = idle_target(s)?;
                let route = route_of(s.label.split_whitespace().nth(1).unwrap_or_default());
                Some(Entry {
                    id: s.id,
                    target,
                    words: columns::variant_words(
                        s.id.as_str(),
                        target,
                        &s.label,
                        &route,
                        &route,
                        g.id.as_str(),
                    ),
                    by_design: blocks_by_design(target, &route, None),
                    measure: measure::of_idle(s, &idle.sizes),
                    rounds: measure::rounds_of_idle(s, &idle.sizes),
                    failure: s.failure.clone(),
                })
            })
            .collect();
        return (Figure::IdleKib, entries);
    }
    let routes = column_routes(&g.columns);
    let plain = plain_route(routes.iter().map(String::as_str));
    let figure = if g.sweep.is_some() {
        Figure::Plateau
    } else {
        measure::load_figure(g)
    };
    let entries = g
        .columns
        .iter()
        .zip(&routes)
        .map(|(c, route)| Entry {
            id: c.id,
            target: c.server,
            words: columns::variant_words(
                c.id.as_str(),
                c.server,
                &c.label,
                route,
                &plain,
                g.id.as_str(),
            ),
            by_design: blocks_by_design(c.server, &c.path, c.background_path.as_deref()),
            measure: match &g.sweep {
                Some(s) => measure::of_sweep(c, s, t),
                None => measure::of_load_column(g, c),
            },
            rounds: match &g.sweep {
                Some(s) => measure::rounds_of_sweep(c, s, t),
                None => measure::rounds_of_load_column(g, c),
            },
            failure: c.failure.clone(),
        })
        .collect();
    (figure, entries)
}

/// The better of two figures by `figure`'s sense.
fn better(figure: Figure, a: f64, b: f64) -> bool {
    if figure.higher_is_better() {
        a > b
    } else {
        a < b
    }
}

/// The entry of `these` with the best figure, if any has one.
fn best<'a>(
    figure: Figure,
    these: impl Iterator<Item = &'a Entry>,
) -> Option<(&'a Entry, Measure)> {
    these
        .filter_map(|e| Some((e, e.measure?)))
        .fold(None, |acc, (e, m)| match acc {
            Some((_, am)) if !better(figure, m.main.median, am.main.median) => acc,
            _ => Some((e, m)),
        })
}

/// The name of `e`'s variant: its words, or the workload's plain name for
/// its model when it has none.
fn variant_name(e: &Entry, plain: Option<[&str; 2]>) -> String {
    if !e.words.is_empty() {
        return e.words.join(", ");
    }
    match (Model::of(e.target), plain) {
        (Some(Model::ThreadPool), Some(p)) => p[0].to_owned(),
        (Some(Model::EventLoop), Some(p)) => p[1].to_owned(),
        _ => String::new(),
    }
}

fn pick(e: &Entry, m: Measure, plain: Option<[&str; 2]>) -> Pick {
    Pick {
        column: e.id,
        variant: variant_name(e, plain),
        measure: m,
        rounds: e.rounds.clone(),
    }
}

/// The best of our models' right variants in a group: its figure, model
/// and variant.
fn ours_best(
    figure: Figure,
    entries: &[Entry],
    plain: Option<[&str; 2]>,
) -> Option<(Measure, Model, String)> {
    let (e, m) = best(
        figure,
        entries
            .iter()
            .filter(|e| !e.by_design && Model::of(e.target).is_some()),
    )?;
    Some((m, Model::of(e.target)?, variant_name(e, plain)))
}

fn row(
    g: &GroupResult,
    (w, margin): (&'static Workload, f64),
    figure: Figure,
    entries: &[Entry],
    findings: &[Finding],
) -> Row {
    // Each model's cell is chosen from its Spring default's column (or,
    // in a run without it, from all its columns); the row's best is the
    // best of those cells.
    let chosen: Vec<(Model, Vec<&Entry>, Option<&Entry>)> = Model::ALL
        .into_iter()
        .map(|model| {
            let mine: Vec<&Entry> = entries
                .iter()
                .filter(|e| Model::of(e.target) == Some(model))
                .collect();
            let (cell, beyond) = spring_defaults::split(g.id, model, &mine, figure);
            (model, cell, beyond)
        })
        .collect();
    let best_figure = best(
        figure,
        chosen
            .iter()
            .flat_map(|(_, cell, _)| cell.iter().copied())
            .filter(|e| !e.by_design),
    )
    .map(|(_, m)| m.main.median);
    let cells: Vec<(Model, Cell)> = chosen
        .iter()
        .map(|(model, mine, _)| (*model, cell(figure, mine, best_figure, w.plain)))
        .collect();
    let beyond = chosen
        .iter()
        .filter_map(|(model, _, beyond)| {
            let e = (*beyond)?;
            let m = e.measure?;
            let relative = best_figure.and_then(|b| measure::relative(&m.main, b));
            let pick = pick(e, m, Some(w.plain));
            Some((*model, Beyond { pick, relative }))
        })
        .collect();
    let route = if g.idle.is_some() {
        "/health".to_owned()
    } else {
        plain_route(column_routes(&g.columns).iter().map(String::as_str))
    };
    Row {
        workload: w,
        title: g.title.clone(),
        route,
        figure,
        standing: standing::standing(&cells, figure, margin),
        cells,
        beyond,
        verdict: row_verdict(w, findings).map(RowVerdict::of),
    }
}

/// The finding that judges `w`'s row: the first of its list the run
/// measured, else the first it has.
fn row_verdict<'a>(w: &Workload, findings: &'a [Finding]) -> Option<&'a Finding> {
    let judging = || {
        w.judged_by
            .iter()
            .filter_map(|id| findings.iter().find(|f| f.id == *id))
    };
    judging()
        .find(|f| f.verdict != Verdict::NotMeasured)
        .or_else(|| judging().next())
}

/// One model's cell of a row from its columns there.
fn cell(figure: Figure, mine: &[&Entry], best_figure: Option<f64>, plain: [&str; 2]) -> Cell {
    if let Some((e, m)) = best(figure, mine.iter().copied().filter(|e| !e.by_design)) {
        let relative = best_figure.and_then(|b| measure::relative(&m.main, b));
        return Cell::Best {
            pick: pick(e, m, Some(plain)),
            relative,
        };
    }
    if let Some((e, m)) = best(figure, mine.iter().copied()) {
        return Cell::OnlyByDesign(pick(e, m, Some(plain)));
    }
    match mine.iter().find_map(|e| e.failure.clone()) {
        Some(failure) => Cell::Missing {
            why: "failed",
            failure: Some(failure),
        },
        None if mine.is_empty() => Cell::Missing {
            why: "not run",
            failure: None,
        },
        None => Cell::Missing {
            why: "no round measured",
            failure: None,
        },
    }
}

/// The best right variant of `model` among `entries`: its figure and variant.
fn model_best(figure: Figure, entries: &[Entry], model: Model) -> Option<(Measure, Model, String)> {
    let (e, m) = best(
        figure,
        entries
            .iter()
            .filter(|e| !e.by_design && Model::of(e.target) == Some(model)),
    )?;
    Some((m, model, variant_name(e, None)))
}

/// The columns of other implementations in a group, each against its
/// twin's best there (Tomcat against the thread pool, Netty against the
/// event loop), or the best of ours where its twin was not measured.
fn calibrations(
    group: GroupId,
    workload: &str,
    figure: Figure,
    entries: &[Entry],
) -> Vec<Calibration> {
    entries
        .iter()
        .filter(|e| Model::of(e.target).is_none())
        .filter_map(|e| {
            let m = e.measure?;
            let ours = Model::twin_of(e.target)
                .and_then(|twin| model_best(figure, entries, twin))
                .or_else(|| ours_best(figure, entries, None));
            let against = ours.as_ref().and_then(|(best, model, variant)| {
                Some((
                    measure::relative(&m.main, best.main.median)?,
                    *model,
                    variant.clone(),
                ))
            });
            Some(Calibration {
                implementation: e.target.name().to_owned(),
                group,
                workload: workload.to_owned(),
                figure,
                pick: pick(e, m, None),
                against,
            })
        })
        .collect()
}
