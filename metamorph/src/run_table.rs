//! What `metamorph run` (and `cargo xtask pipeline`) prints when a run ends: what ran, where
//! the outputs are, each relation's counts and the violation table.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use metamorph_perturb::RelationCounts;

use crate::PipelineReport;

/// The text printed at the end of a run of the config at `config`.
pub fn render_run(report: &PipelineReport, config: &Path) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nmetamorph: {} unit(s) run, {} already complete (config {})",
        report.units_run,
        report.units_skipped,
        config.display()
    );
    if !report.datasets_unanswered.is_empty() {
        let _ = writeln!(
            out,
            "skipped:   {} (no configured model answers their task)",
            report.datasets_unanswered.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "outputs:   {}/<dataset>/{{example,parsed,case,rejected,prediction,verdict}}/*.parquet",
        report.output.display()
    );
    let _ = writeln!(out, "summary:   {}", report.summary_path.display());
    let _ = writeln!(out, "report:    {}", report.report_path.display());
    let models: Vec<_> = report
        .summary
        .usage
        .iter()
        .filter(|u| u.role == "model")
        .collect();
    if !models.is_empty() {
        let predictions: u64 = models.iter().map(|u| u.predictions).sum();
        let cached: u64 = models.iter().map(|u| u.from_cache).sum();
        let _ = write!(
            out,
            "answers:   {predictions} predictions, {cached} from the response cache"
        );
        let (requests, tokens): (u64, u64) = report
            .summary
            .usage
            .iter()
            .fold((0, 0), |(r, t), u| (r + u.requests, t + u.total_tokens()));
        if requests > 0 {
            let _ = write!(
                out,
                "; {requests} requests, {tokens} tokens to paid endpoints"
            );
        }
        let _ = writeln!(out);
    }
    if !report.questions_written.is_empty() || !report.questions_unwritten.is_empty() {
        let written: usize = report.questions_written.values().sum();
        let mut unwritten: BTreeMap<&str, usize> = BTreeMap::new();
        for ((kind, _), n) in &report.questions_unwritten {
            *unwritten.entry(kind).or_default() += n;
        }
        let per_kind: Vec<String> = unwritten
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "questions: {written} written by the edit builder, {} not ({}; reasons in the log)",
            unwritten.values().sum::<usize>(),
            if per_kind.is_empty() {
                "none".to_string()
            } else {
                per_kind.join(", ")
            }
        );
    }
    let _ = writeln!(out);
    if !report.perturb_counts.is_empty() {
        let counts = &report.perturb_counts;
        let width = |header: &str, cell: fn(&RelationCounts) -> &str| {
            counts
                .iter()
                .map(|c| cell(c).chars().count())
                .fold(header.len(), usize::max)
        };
        let family = width("family", |c| &c.family);
        let mr = width("mr", |c| &c.mr);
        // Rejected by the validity step (over the run's units, resumed ones included).
        let rejected = |mr: &str| {
            report
                .summary
                .validity
                .iter()
                .find(|v| v.mr == mr)
                .map_or(0, |v| v.rejected)
        };
        let _ = writeln!(
            out,
            "{:<family$} {:<mr$} {:>8} {:>9} {:>7} {:>9} {:>9}",
            "family", "mr", "sources", "eligible", "cases", "rejected", "unparsed"
        );
        for c in &report.perturb_counts {
            let _ = writeln!(
                out,
                "{:<family$} {:<mr$} {:>8} {:>9} {:>7} {:>9} {:>9}",
                c.family,
                c.mr,
                c.sources,
                c.eligible,
                c.cases,
                rejected(&c.mr),
                c.unparsed
            );
        }
        let _ = writeln!(out);
    }
    out.push_str(&report.summary.table());
    out
}
