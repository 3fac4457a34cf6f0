//! The pages' one stylesheet, in two parts: the report's, and the matrix
//! at a glance's (which the comparison's page uses too). Written once, in
//! the page's head ([`super::page::page`]): nothing is fetched.

/// The page's: type, verdict badges, tables, charts, folds, print.
pub(super) const STYLE: &str = r#"
:root { --held: #1b7f3b; --not-held: #b3261e; --same: #0b5cad; --inconclusive: #9a6700; --not-measured: #6b6b6b; --line: #d8dee4; --muted: #57606a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0 auto; padding: 24px 32px 48px; max-width: 1280px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p { margin: 6px 0; }
.muted, .seed, .load { color: var(--muted); }
.run p { margin: 2px 0; }
.summary { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0; }
.summary span { padding: 4px 10px; border-radius: 6px; font-weight: 600; color: white; }
.verdict { display: inline-block; min-width: 8.2em; text-align: center; padding: 2px 8px; border-radius: 6px; font-weight: 700; font-size: 13px; color: white; white-space: nowrap; }
.held { background: var(--held); } .not-held { background: var(--not-held); } .same { background: var(--same); }
.inconclusive { background: var(--inconclusive); } .not-measured { background: var(--not-measured); }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
thead th { background: #f6f8fa; text-align: left; }
td { text-align: right; white-space: nowrap; }
table.findings td { text-align: left; white-space: normal; }
table.findings { width: 100%; font-size: 14px; table-layout: fixed; }
table.findings .c-verdict { width: 9.5em; } table.findings .c-claim { width: 36%; }
table.findings .c-evidence { width: 34%; } table.findings .c-meaning { width: auto; }
table.findings .claim { font-weight: 600; }
table.findings td.evidence { font-size: 13px; overflow-wrap: anywhere; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
.charts svg { flex: 1 1 520px; max-width: 760px; height: auto; border: 1px solid var(--line); border-radius: 6px; }
tbody th { text-align: left; font-weight: 500; white-space: nowrap; }
details { margin: 6px 0; }
summary { cursor: pointer; color: var(--muted); }
.scroll { overflow-x: auto; }
@media print {
  body { padding: 0; max-width: none; font-size: 11px; }
  details::details-content { content-visibility: visible; display: block; }
  summary { list-style: none; }
  section.group, tr.finding, .charts svg { break-inside: avoid; }
  .scroll { overflow: visible; }
}
"#;

/// The matrix's own: its cells, the wrong variants, the calibration
/// columns, and the comparison's two matrices side by side.
pub(super) const GLANCE: &str = r#"
#at-a-glance h2 { margin-top: 10px; }
p.legend { font-size: 12.5px; color: var(--muted); margin: 2px 0 6px; }
table.glance { width: 100%; table-layout: fixed; font-size: 13px; line-height: 1.2; margin: 4px 0; }
table.glance col.c-work { width: 13%; } table.glance col.c-model { width: 20.5%; } table.glance col.c-judged { width: auto; }
table.glance thead th { text-align: left; font-size: 13.5px; padding: 4px 8px; }
table.glance thead th span { display: block; font-weight: 400; font-size: 11.5px; color: var(--muted); }
table.glance tbody th { white-space: normal; padding: 3px 8px; }
table.glance tbody th a { color: inherit; font-weight: 700; text-decoration: none; }
table.glance .route { display: block; font: 11.5px ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--muted); }
table.glance td.cell { padding: 0; text-align: left; white-space: normal; position: relative; }
table.glance td.cell a { display: block; padding: 3px 8px 6px; color: #1f2328; text-decoration: none; min-height: 100%; }
table.glance td.cell a:hover { outline: 2px solid #1f2328; outline-offset: -2px; }
.cell .fig { display: block; font-variant-numeric: tabular-nums; }
.cell .rel { font-size: 15px; margin-right: 4px; }
.cell .abs { font-weight: 600; }
.cell .variant { display: block; font-size: 12px; }
.cell .beyond { font-style: italic; white-space: nowrap; }
.cell .sub { display: block; font-size: 11.5px; color: #3d444d; font-variant-numeric: tabular-nums; }
.cell .bar { position: absolute; left: 8px; right: 8px; bottom: 2px; height: 3px; background: rgba(31, 35, 40, 0.08); }
.cell .bar i { display: block; height: 100%; background: #1f2328; }
.cell.b5 { background: #74c4b4; } .cell.b4 { background: #a8dcc9; } .cell.b3 { background: #d4eed8; }
.cell.b2 { background: #eef7e4; } .cell.b1 { background: #fbfdf7; }
.cell.best .rel::after { content: " best"; font-size: 11px; font-weight: 600; }
.cell.by-design, .cell.missing { background: repeating-linear-gradient(135deg, #f6f8fa 0 6px, #e6e9ed 6px 8px); color: var(--muted); }
.cell.missing .why { font-style: italic; }
td.judged { text-align: left; white-space: normal; font-size: 12px; padding: 3px 8px; }
td.judged .verdict { min-width: 0; font-size: 11.5px; padding: 1px 6px; }
td.judged code { font-size: 11px; }
td.judged .kind { font-size: 11px; color: var(--muted); font-style: italic; }
td.judged .standing { display: block; color: #3d444d; margin-top: 1px; font-size: 11px; line-height: 1.2; }
.no-finding { font-style: italic; color: var(--muted); }
table.wrongs { width: 100%; table-layout: fixed; font-size: 13px; }
table.wrongs col.c-what { width: 24%; } table.wrongs col.c-p99 { width: 11%; } table.wrongs col.c-right { width: 17%; }
table.wrongs col.c-costs { width: 27%; } table.wrongs col.c-verdict { width: auto; }
table.wrongs td { text-align: left; white-space: normal; }
table.wrongs td.p99 { font-weight: 700; font-variant-numeric: tabular-nums; }
table.wrongs tr.kind th { background: #f6f8fa; font-size: 13.5px; }
table.wrongs .col { display: block; font: 11px ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--muted); overflow-wrap: anywhere; }
table.wrongs .verdict { min-width: 0; font-size: 11.5px; padding: 1px 6px; }
table.wrongs code { font-size: 11px; overflow-wrap: anywhere; }
table.calibration { font-size: 13px; }
table.calibration td { text-align: left; }
table.glance-compare { width: 100%; table-layout: fixed; font-size: 12px; line-height: 1.3; }
table.glance-compare col.c-work { width: 10%; } table.glance-compare col.c-side { width: 10.5%; } table.glance-compare col.c-verdict { width: auto; }
table.glance-compare tbody th { white-space: normal; }
table.glance-compare td { text-align: left; white-space: normal; font-variant-numeric: tabular-nums; }
table.glance-compare .fig { white-space: nowrap; }
table.glance-compare .variant { display: block; font-size: 11px; color: var(--muted); }
table.glance-compare code { display: block; font-size: 10.5px; overflow-wrap: anywhere; }
table.glance-compare td.changed { background: #fff1b8; box-shadow: inset 0 0 0 3px #1f2328; }
table.glance-compare .mark { display: block; font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: 0.04em; }
table.glance-compare tr.changed-verdict th { border-left: 5px solid #1f2328; }
table.glance-compare .verdict { min-width: 0; white-space: normal; font-size: 11.5px; }
"#;
