//! `report.html`: one self-contained page (inline CSS, JS and SVG; no network, no external
//! file) that lets a person see in a minute which relations a model violates, how sure the
//! numbers are, and what the violations look like.
//!
//! Sections: an overview table with a bar and 95% interval per (family, MR, model), pooled
//! rates per model, the signed-rank comparisons, contrast-set consistency (when present), then
//! one section per relation with a chart of its models and the selected examples (source and
//! follow-up side by side, edits highlighted). Two drop-downs filter every section by model and
//! by relation. Charts are hand-written SVG: a few rectangles and lines do not justify a
//! plotting dependency on a 2-core CI.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use metamorph_data::{
    from_batch, glob_files, read_shard, AtomicFile, Rejected, Result, ShardSpec, Verdict,
};

use crate::examples::{
    choose_violations, read_cases, scan_cases, violated_ids, violation_example, FieldPair,
    ViolationExample, EXAMPLES_PER_RELATION,
};
use crate::stats::Decision;
use crate::summary::{read_verdicts, Comparison, ComparisonKind, Summary};

/// A run's summary and the examples the report shows.
#[derive(Clone, Debug)]
pub struct Report {
    /// The statistics (what `summary.json` holds).
    pub summary: Summary,
    /// Selected violations, grouped by (family, MR, model).
    pub examples: Vec<ViolationExample>,
    /// What the report is about (usually the run directory), shown in its title bar.
    pub run: String,
    /// (family, MR) → what the relation promises, in words (shown atop its section).
    pub expectations: BTreeMap<(String, String), String>,
}

impl Report {
    /// A report of `summary` with these examples, and the expectations read from them.
    pub fn new(
        summary: Summary,
        examples: Vec<ViolationExample>,
        run: impl Into<String>,
    ) -> Report {
        let mut expectations = BTreeMap::new();
        for e in examples.iter().filter(|e| !e.expectation.is_empty()) {
            expectations
                .entry((e.family.clone(), e.mr.clone()))
                .or_insert_with(|| e.expectation.clone());
        }
        Report {
            summary,
            examples,
            run: run.into(),
            expectations,
        }
    }

    /// Summarises `verdicts` and selects examples from the cases in `case_files` (only the
    /// chosen cases are held whole in memory).
    ///
    /// # Errors
    /// Unreadable case files.
    pub fn from_verdicts(
        verdicts: &[Verdict],
        verdict_files: usize,
        case_files: &[PathBuf],
        run: impl Into<String>,
    ) -> Result<Report> {
        Report::from_verdicts_and_rejected(verdicts, verdict_files, case_files, &[], run)
    }

    /// [`Report::from_verdicts`], counting also the cases the validity step set aside in
    /// `rejected_files` (the `rejected` record kind) in each relation's validity.
    ///
    /// # Errors
    /// Unreadable case or rejected files.
    pub fn from_verdicts_and_rejected(
        verdicts: &[Verdict],
        verdict_files: usize,
        case_files: &[PathBuf],
        rejected_files: &[PathBuf],
        run: impl Into<String>,
    ) -> Result<Report> {
        // Two passes over the case files: ranks of the violated cases, then the chosen cases
        // whole; memory stays at a few cases per relation and model.
        let mut scan = scan_cases(case_files, &violated_ids(verdicts))?;
        for path in rejected_files {
            for batch in read_shard(path, ShardSpec::WHOLE, 1024)? {
                for Rejected(case) in from_batch::<Rejected>(&batch?, &path.display().to_string())?
                {
                    scan.note_validity(&case, true);
                }
            }
        }
        let (validity, invalid) = scan.validity_tally();
        let mut summary = Summary::from_verdicts_with_validity(verdicts, &invalid, validity);
        summary.verdict_files = verdict_files;
        let chosen = choose_violations(verdicts, &scan.ranks, EXAMPLES_PER_RELATION);
        let wanted: HashSet<&str> = chosen.iter().map(|v| v.case_id.as_str()).collect();
        let cases = read_cases(case_files, &wanted)?;
        let examples = chosen
            .into_iter()
            .map(|v| violation_example(v, cases.get(&v.case_id)))
            .collect();
        Ok(Report {
            summary,
            examples,
            run: run.into(),
            expectations: scan.expectations,
        })
    }

    /// Reads a run directory: verdicts and cases in `<dir>/verdict/` and `<dir>/case/` (as the
    /// `metamorph-judge` binary writes them) and in `<dir>/<dataset>/verdict/` and
    /// `<dir>/<dataset>/case/` (as `cargo xtask pipeline` does).
    ///
    /// # Errors
    /// Unreadable files or files of the wrong record kind.
    pub fn from_run_dir(dir: &Path) -> Result<Report> {
        Report::from_run_dir_with_cases(dir, &[])
    }

    /// [`Report::from_run_dir`], with more case files for the examples (a judge `--output`
    /// whose cases were read from elsewhere).
    ///
    /// # Errors
    /// Unreadable files or files of the wrong record kind.
    pub fn from_run_dir_with_cases(dir: &Path, more_cases: &[PathBuf]) -> Result<Report> {
        Report::from_unit_patterns(dir, &[dir.to_path_buf(), dir.join("*")], more_cases)
    }

    /// The report of the run in `dir` over the given unit folders only (each holding
    /// `verdict/` and `case/`), e.g. the datasets a pipeline config lists, leaving out other
    /// folders an output holds.
    ///
    /// # Errors
    /// Unreadable files or files of the wrong record kind.
    pub fn from_units(dir: &Path, units: &[PathBuf]) -> Result<Report> {
        Report::from_unit_patterns(dir, units, &[])
    }

    /// Reads `<unit>/verdict/*.parquet` and `<unit>/case/*.parquet` for every unit folder
    /// pattern (glob patterns allowed), plus `more_cases`.
    fn from_unit_patterns(dir: &Path, units: &[PathBuf], more_cases: &[PathBuf]) -> Result<Report> {
        let pattern =
            |unit: &Path, kind: &str| unit.join(kind).join("*.parquet").display().to_string();
        let mut verdicts = Vec::new();
        let mut files = 0;
        let mut case_files = more_cases.to_vec();
        let mut rejected_files = Vec::new();
        let mut usage = Vec::new();
        for unit in units {
            for manifest in
                glob_files(&unit.join("_manifests").join("*.json").display().to_string())?
            {
                usage.extend(read_usage(&manifest)?);
            }
            let (v, n) = read_verdicts(&pattern(unit, "verdict"))?;
            verdicts.extend(v);
            files += n;
            case_files.extend(glob_files(&pattern(unit, "case"))?);
            rejected_files.extend(glob_files(&pattern(unit, "rejected"))?);
        }
        for list in [&mut case_files, &mut rejected_files] {
            list.sort();
            list.dedup();
        }
        let mut report = Report::from_verdicts_and_rejected(
            &verdicts,
            files,
            &case_files,
            &rejected_files,
            dir.display().to_string(),
        )?;
        report.summary.usage = metamorph_data::usage::sum_usage(&usage);
        Ok(report)
    }

    /// Writes `summary.json` and `report.html` into `dir`, each atomically; returns their paths.
    ///
    /// # Errors
    /// IO errors.
    pub fn write_all(&self, dir: &Path) -> Result<(PathBuf, PathBuf)> {
        let summary = dir.join("summary.json");
        self.summary.write(&summary)?;
        let html = dir.join("report.html");
        self.write_html(&html)?;
        Ok((summary, html))
    }

    /// Writes the HTML page atomically (temporary name, then rename).
    ///
    /// # Errors
    /// IO errors.
    pub fn write_html(&self, path: &Path) -> Result<()> {
        AtomicFile::write_all(path, self.render().as_bytes())?;
        Ok(())
    }

    /// The HTML page.
    pub fn render(&self) -> String {
        let s = &self.summary;
        let models = s.models();
        let relations: BTreeSet<(&str, &str)> = s
            .relations
            .iter()
            .map(|r| (r.family.as_str(), r.mr.as_str()))
            .collect();
        let mut h = String::with_capacity(64 * 1024);
        h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
        h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
        let _ = writeln!(
            h,
            "<title>metamorph report: {}</title>",
            esc(&self.run_name())
        );
        h.push_str("<style>");
        h.push_str(CSS);
        h.push_str("</style>\n</head>\n<body>\n");

        // Header and filters.
        let (cases, applicable, violations) = s.relations.iter().fold((0, 0, 0), |acc, r| {
            (acc.0 + r.cases, acc.1 + r.applicable, acc.2 + r.violations)
        });
        let _ = writeln!(
            h,
            "<header><h1>metamorph report</h1><p class=\"run\">{}</p><p>{} relation(s), {} model(s), {} case(s), {} applicable, <b>{} violation(s)</b>; {} verdict file(s). Rates are violations / applicable cases with Wilson 95% intervals.</p>",
            esc(&self.run),
            relations.len(),
            models.len(),
            cases,
            applicable,
            violations,
            s.verdict_files
        );
        h.push_str("<form class=\"filters\" id=\"filters\"><label>Model <select id=\"f-model\"><option value=\"\">all models</option>");
        for m in &models {
            let _ = write!(h, "<option value=\"{0}\">{0}</option>", esc(m));
        }
        h.push_str("</select></label> <label>Relation <select id=\"f-mr\"><option value=\"\">all relations</option>");
        for (family, mr) in &relations {
            let _ = write!(
                h,
                "<option value=\"{}\">{} · {}</option>",
                esc(&key(family, mr)),
                esc(family),
                esc(mr)
            );
        }
        h.push_str("</select></label></form>\n</header>\n<main>\n");

        if s.relations.is_empty() {
            h.push_str("<section><h2>Overview</h2><p class=\"empty\">No verdicts: the run produced no case (or no model was configured).</p></section>\n");
        } else {
            self.overview(&mut h);
            self.validity(&mut h);
            self.pooled(&mut h);
            self.comparisons(&mut h, models.len(), &relations);
            self.consistency(&mut h);
            for (family, mr) in &relations {
                self.relation_section(&mut h, family, mr);
            }
            h.push_str(METHODS);
        }
        h.push_str("</main>\n<script>");
        h.push_str(JS);
        h.push_str("</script>\n</body>\n</html>\n");
        h
    }

    fn run_name(&self) -> String {
        Path::new(&self.run)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.run.clone())
    }

    fn overview(&self, h: &mut String) {
        h.push_str("<section id=\"overview\"><h2>Overview</h2>\n<table class=\"overview\"><thead><tr><th>family</th><th>relation</th><th>model</th><th class=\"n\">cases</th><th class=\"n\">applicable</th><th class=\"n\">violations</th><th class=\"n\">rate</th><th>95% interval</th><th>violation rate (bar: rate, line: interval)</th></tr></thead><tbody>\n");
        for r in &self.summary.relations {
            let _ = writeln!(
                h,
                "<tr data-model=\"{m}\" data-mr=\"{k}\"><td>{f}</td><td><a href=\"#{id}\">{mr}</a></td><td>{m}</td><td class=\"n\">{c}</td><td class=\"n\">{a}</td><td class=\"n\">{v}</td><td class=\"n\">{rate}</td><td>{ci}</td><td>{bar}</td></tr>",
                m = esc(&r.model),
                k = esc(&key(&r.family, &r.mr)),
                f = esc(&r.family),
                id = esc(&anchor(&r.family, &r.mr)),
                mr = esc(&r.mr),
                c = r.cases,
                a = r.applicable,
                v = r.violations,
                rate = pct(r.violation_rate),
                ci = interval(r.ci95),
                bar = bar(r.violation_rate, r.ci95),
            );
        }
        h.push_str("</tbody></table>\n</section>\n");
    }

    /// What the validity step did per relation, and the violation rate among the cases that
    /// passed it (the rate to trust) when some failing cases were judged anyway.
    fn validity(&self, h: &mut String) {
        let v = &self.summary.validity;
        if v.iter().all(|r| r.checked == 0) {
            return;
        }
        h.push_str("<section id=\"validity\"><h2>Validity of the follow-ups</h2><p class=\"note\">Every follow-up was scored before execution: meaning kept (sentence-encoder similarity of the changed sentences), structure kept (re-parse), fluency (fit of substituted words), the language model's reading of the changed sentences (<code>lm</code>: log-probability after minus before; <code>lm_sentence</code>: a constructed sentence read whole; <code>lm_ending</code>: whether a sentence the relation built ends where it does, for NLPLego's parents; <code>lm_seam</code>: whether the words after a phrase NLPLego cut from the middle read as well as after the dataset text's own words; <code>lm_end_cut</code>: whether a sentence NLPLego cut at the end ends more likely than the dataset text goes on) and whole-word spans. Rejected cases are in each dataset's <code>rejected/</code> output with their reasons and are not judged; flagged ones failed but were judged (<code>mode = \"flag\"</code>).</p>\n<table><thead><tr><th>family</th><th>relation</th><th class=\"n\">generated</th><th class=\"n\">checked</th><th class=\"n\">passed</th><th class=\"n\">rejected</th><th class=\"n\">flagged</th><th class=\"n\">pass rate</th><th>failed checks</th></tr></thead><tbody>\n");
        for r in v {
            let failed: Vec<String> = r
                .failed_by_check
                .iter()
                .map(|(check, n)| format!("{} {n}", esc(check)))
                .collect();
            let _ = writeln!(
                h,
                "<tr data-mr=\"{k}\"><td>{f}</td><td>{mr}</td><td class=\"n\">{g}</td><td class=\"n\">{c}</td><td class=\"n\">{p}</td><td class=\"n\">{rj}</td><td class=\"n\">{fl}</td><td class=\"n\">{rate}</td><td>{failed}</td></tr>",
                k = esc(&key(&r.family, &r.mr)),
                f = esc(&r.family),
                mr = esc(&r.mr),
                g = r.generated,
                c = r.checked,
                p = r.passed,
                rj = r.rejected,
                fl = r.flagged,
                rate = pct(r.pass_rate()),
                failed = failed.join(", "),
            );
        }
        h.push_str("</tbody></table>\n");
        let flagged = self
            .summary
            .relations
            .iter()
            .filter(|r| r.valid_applicable != r.applicable)
            .collect::<Vec<_>>();
        if !flagged.is_empty() {
            h.push_str("<h3>Violation rate among valid follow-ups</h3><table><thead><tr><th>family</th><th>relation</th><th>model</th><th class=\"n\">applicable</th><th class=\"n\">rate</th><th class=\"n\">valid applicable</th><th class=\"n\">rate among valid</th></tr></thead><tbody>\n");
            for r in flagged {
                let _ = writeln!(
                    h,
                    "<tr data-model=\"{m}\" data-mr=\"{k}\"><td>{f}</td><td>{mr}</td><td>{m}</td><td class=\"n\">{a}</td><td class=\"n\">{rate}</td><td class=\"n\">{va}</td><td class=\"n\">{vrate}</td></tr>",
                    m = esc(&r.model),
                    k = esc(&key(&r.family, &r.mr)),
                    f = esc(&r.family),
                    mr = esc(&r.mr),
                    a = r.applicable,
                    rate = pct(r.violation_rate),
                    va = r.valid_applicable,
                    vrate = pct(r.valid_violation_rate),
                );
            }
            h.push_str("</tbody></table>\n");
        }
        h.push_str("</section>\n");
    }

    fn pooled(&self, h: &mut String) {
        h.push_str("<section id=\"pooled\"><h2>Pooled per model</h2><p class=\"note\">Σ violations / Σ applicable over the relations of a family, and over every family. The interval treats cases as independent; cases sharing a source are not, so read it as a guide.</p>\n<table><thead><tr><th>model</th><th>family</th><th class=\"n\">relations</th><th class=\"n\">applicable</th><th class=\"n\">violations</th><th class=\"n\">rate</th><th>95% interval</th><th></th></tr></thead><tbody>\n");
        let families = |model: &str| {
            self.summary
                .pooled
                .iter()
                .filter(|p| p.model == model && p.family.is_some())
                .count()
        };
        for p in &self.summary.pooled {
            // A model tested on one family: its family row would repeat the total.
            if p.family.is_some() && families(&p.model) == 1 {
                continue;
            }
            let _ = writeln!(
                h,
                "<tr data-model=\"{m}\"{cls}><td>{m}</td><td>{f}</td><td class=\"n\">{n}</td><td class=\"n\">{a}</td><td class=\"n\">{v}</td><td class=\"n\">{rate}</td><td>{ci}</td><td>{bar}</td></tr>",
                m = esc(&p.model),
                cls = if p.family.is_none() { " class=\"total\"" } else { "" },
                f = p.family.as_deref().map(esc).unwrap_or_else(|| "all families".into()),
                n = p.relations,
                a = p.applicable,
                v = p.violations,
                rate = pct(p.violation_rate),
                ci = interval(p.ci95),
                bar = bar(p.violation_rate, p.ci95),
            );
        }
        h.push_str("</tbody></table>\n</section>\n");
    }

    fn comparisons(&self, h: &mut String, models: usize, relations: &BTreeSet<(&str, &str)>) {
        h.push_str(
            "<section id=\"comparisons\"><h2>Comparisons (paired Wilcoxon signed-rank test)</h2>\n",
        );
        let cs = &self.summary.comparisons;
        if cs.is_empty() {
            let _ = writeln!(
                h,
                "<p class=\"empty\">Nothing to compare: {models} model(s) and {} relation(s). Models are compared pairwise over the relations both were judged on; relations of one family are compared pairwise over the sources both have applicable cases for.</p>",
                relations.len()
            );
        } else {
            h.push_str("<p class=\"note\">Differences a − b of violation rates; zeros dropped, midranks for ties, exact distribution up to 50 non-zero pairs. Decision as in MT4MRC (seed-000): two-sided p ≥ 0.05 → similar; otherwise one-sided p (a lower) &lt; 0.05 → a lower, else a higher. With fewer than 6 non-zero pairs no two-sided p can fall below 0.05, so such rows always read similar.</p>\n<table><thead><tr><th>compared</th><th>a</th><th>b</th><th class=\"n\">pairs</th><th class=\"n\">n ≠ 0</th><th class=\"n\">W⁺</th><th class=\"n\">p two-sided</th><th class=\"n\">p (a lower)</th><th>method</th><th>outcome</th></tr></thead><tbody>\n");
            for c in cs {
                comparison_row(h, c);
            }
            h.push_str("</tbody></table>\n");
        }
        h.push_str("</section>\n");
    }

    fn consistency(&self, h: &mut String) {
        let cs = &self.summary.consistency;
        if cs.is_empty() {
            return;
        }
        h.push_str("<section id=\"consistency\"><h2>Contrast-set consistency (Break-Perturb-Build)</h2><p class=\"note\">Share of original examples whose every applicable case holds (seed-002 §9.3); per relation, the contrast set is restricted to that relation's cases.</p>\n<table><thead><tr><th>family</th><th>relation</th><th>model</th><th class=\"n\">sets</th><th class=\"n\">consistent</th><th class=\"n\">consistency</th><th>95% interval</th><th></th></tr></thead><tbody>\n");
        for c in cs {
            let mr = c.mr.as_deref().unwrap_or("");
            let _ = writeln!(
                h,
                "<tr data-model=\"{m}\" data-mr=\"{k}\"><td>{f}</td><td>{mr}</td><td>{m}</td><td class=\"n\">{g}</td><td class=\"n\">{ok}</td><td class=\"n\">{rate}</td><td>{ci}</td><td>{bar}</td></tr>",
                m = esc(&c.model),
                k = if c.mr.is_some() { esc(&key(&c.family, mr)) } else { String::new() },
                f = esc(&c.family),
                mr = if c.mr.is_some() { esc(mr) } else { "all".into() },
                g = c.groups,
                ok = c.consistent,
                rate = pct(c.consistency),
                ci = interval(c.ci95),
                bar = bar(c.consistency, c.ci95),
            );
        }
        h.push_str("</tbody></table>\n</section>\n");
    }

    fn relation_section(&self, h: &mut String, family: &str, mr: &str) {
        let rows: Vec<_> = self
            .summary
            .relations
            .iter()
            .filter(|r| r.family == family && r.mr == mr)
            .collect();
        let examples: Vec<&ViolationExample> = self
            .examples
            .iter()
            .filter(|e| e.family == family && e.mr == mr)
            .collect();
        let _ = writeln!(
            h,
            "<section class=\"relation\" id=\"{}\" data-mr=\"{}\"><h2>{} · {}</h2>",
            esc(&anchor(family, mr)),
            esc(&key(family, mr)),
            esc(family),
            esc(mr)
        );
        if let Some(words) = self.expectations.get(&(family.to_string(), mr.to_string())) {
            let _ = writeln!(h, "<p class=\"expect\">Expectation: {}.</p>", esc(words));
        }
        let chart: Vec<ChartRow> = rows
            .iter()
            .map(|r| ChartRow {
                label: &r.model,
                rate: r.violation_rate,
                ci: r.ci95,
                count: format!("{}/{}", r.violations, r.applicable),
            })
            .collect();
        h.push_str(&chart_svg(&chart));
        let mut shown: HashSet<&str> = HashSet::new();
        for r in &rows {
            if !shown.insert(&r.model) {
                continue;
            }
            let _ = writeln!(
                h,
                "<div class=\"model\" data-model=\"{}\"><h3>{} <span class=\"stat\">{} of {} applicable violated ({}; {} cases judged)</span></h3>",
                esc(&r.model),
                esc(&r.model),
                r.violations,
                r.applicable,
                pct(r.violation_rate),
                r.cases
            );
            let mine: Vec<&&ViolationExample> =
                examples.iter().filter(|e| e.model == r.model).collect();
            if mine.is_empty() {
                h.push_str("<p class=\"empty\">No violation.</p>");
            } else if r.violations as usize > mine.len() {
                let _ = write!(
                    h,
                    "<p class=\"note\">The {} most instructive of {} violations (one per source first, smallest edit, shortest text).</p>",
                    mine.len(),
                    r.violations
                );
            }
            for e in mine {
                example_card(h, e);
            }
            h.push_str("</div>\n");
        }
        h.push_str("</section>\n");
    }
}

fn comparison_row(h: &mut String, c: &Comparison) {
    let (what, scope) = match c.kind {
        ComparisonKind::Models => ("models", "by relation".to_string()),
        ComparisonKind::Relations => (
            "relations",
            format!(
                "{} · {}, by source",
                c.family.as_deref().unwrap_or(""),
                c.model.as_deref().unwrap_or("")
            ),
        ),
    };
    let outcome = match c.decision {
        Decision::Similar => "similar".to_string(),
        Decision::Better => format!("{} lower", c.a),
        Decision::Worse => format!("{} higher", c.a),
    };
    let (model_attr, mr_attr) = match c.kind {
        ComparisonKind::Models => (String::new(), String::new()),
        ComparisonKind::Relations => (
            format!(" data-model=\"{}\"", esc(c.model.as_deref().unwrap_or(""))),
            String::new(),
        ),
    };
    let num = |f: Option<f64>| f.map(|p| format!("{p:.4}")).unwrap_or_else(|| "–".into());
    let t = c.test.as_ref();
    let _ = writeln!(
        h,
        "<tr{model_attr}{mr_attr}><td>{what} <span class=\"stat\">{}</span></td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"d-{:?}\">{}</td></tr>",
        esc(&scope),
        esc(&c.a),
        esc(&c.b),
        c.pairs,
        t.map(|t| t.n).unwrap_or(0),
        t.map(|t| format!("{}", t.w_plus)).unwrap_or_else(|| "–".into()),
        num(t.map(|t| t.p_two_sided)),
        num(t.map(|t| t.p_less)),
        t.map(|t| format!("{:?}", t.method).to_lowercase()).unwrap_or_else(|| "all tied".into()),
        c.decision,
        esc(&outcome),
    );
}

fn example_card(h: &mut String, e: &ViolationExample) {
    let _ = writeln!(
        h,
        "<div class=\"ex\"><p class=\"ex-id\">case <code>{}</code> · source {}</p>",
        esc(&e.case_id),
        e.source_ids
            .iter()
            .map(|s| format!("<code>{}</code>", esc(s)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !e.expectation.is_empty() {
        let _ = write!(
            h,
            "<p class=\"expect\">Expected: {}.</p>",
            esc(&e.expectation)
        );
    }
    h.push_str("<table class=\"pair\"><thead><tr><th></th><th>source</th><th>follow-up</th></tr></thead><tbody>");
    for f in &e.fields {
        let (s, fu) = highlight_pair(f);
        let _ = write!(
            h,
            "<tr><th>{}</th><td>{s}</td><td>{fu}</td></tr>",
            esc(&f.field)
        );
    }
    if e.fields.is_empty() {
        h.push_str("<tr><th>input</th><td colspan=\"2\" class=\"empty\">(case not found next to the verdicts)</td></tr>");
    }
    let _ = write!(
        h,
        "<tr class=\"out\"><th>output</th><td>{}</td><td>{}</td></tr></tbody></table>",
        esc(&e.source_output),
        esc(&e.followup_output)
    );
    let _ = write!(h, "<p class=\"detail\">✗ {}</p>", esc(&e.detail));
    for (name, text) in &e.unchanged {
        let _ = write!(
            h,
            "<details><summary>{} (unchanged)</summary><p>{}</p></details>",
            esc(name),
            esc(text)
        );
    }
    h.push_str("</div>\n");
}

/// Characters of context kept around the edits of a long field.
const WINDOW: usize = 220;

/// Source and follow-up HTML with their edits marked, cut to a window around the edits when
/// the field is long (both sides cut at the same distance from the first and last edit).
fn highlight_pair(f: &FieldPair) -> (String, String) {
    (
        highlight(&f.source, &f.source_spans, "del"),
        highlight(&f.followup, &f.followup_spans, "ins"),
    )
}

fn highlight(text: &str, spans: &[[usize; 2]], class: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut spans: Vec<[usize; 2]> = spans
        .iter()
        .filter(|[s, e]| s <= e && *e <= n)
        .copied()
        .collect();
    spans.sort_unstable();
    let (from, to) = match (spans.first(), spans.last()) {
        (Some(first), Some(last)) if n > 3 * WINDOW => {
            (first[0].saturating_sub(WINDOW), (last[1] + WINDOW).min(n))
        }
        _ => (0, n),
    };
    let slice = |a: usize, b: usize| esc(&chars[a..b].iter().collect::<String>());
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let mut at = from;
    for [s, e] in spans {
        if s < at {
            continue;
        }
        out.push_str(&slice(at, s));
        if s == e {
            // A pure insertion in the source or a deletion in the follow-up: mark the spot.
            let _ = write!(out, "<mark class=\"{class} gap\">‸</mark>");
        } else {
            let _ = write!(out, "<mark class=\"{class}\">{}</mark>", slice(s, e));
        }
        at = e;
    }
    out.push_str(&slice(at, to.max(at)));
    if to < n {
        out.push('…');
    }
    out
}

/// A bar for a rate in [0, 1] with its interval as a line.
fn bar(rate: Option<f64>, ci: Option<[f64; 2]>) -> String {
    const W: f64 = 160.0;
    let Some(rate) = rate else {
        return "<span class=\"empty\">n/a</span>".into();
    };
    let mut s = format!(
        "<svg class=\"bar\" width=\"{W}\" height=\"14\" viewBox=\"0 0 {W} 14\" role=\"img\" aria-label=\"{}\"><rect x=\"0\" y=\"2\" width=\"{W}\" height=\"10\" class=\"track\"/><rect x=\"0\" y=\"2\" width=\"{:.1}\" height=\"10\" class=\"fill\"/>",
        pct(Some(rate)),
        rate.clamp(0.0, 1.0) * W
    );
    if let Some([lo, hi]) = ci {
        let (a, b) = (lo * W, hi * W);
        let _ = write!(
            s,
            "<line x1=\"{a:.1}\" y1=\"7\" x2=\"{b:.1}\" y2=\"7\" class=\"ci\"/><line x1=\"{a:.1}\" y1=\"3\" x2=\"{a:.1}\" y2=\"11\" class=\"ci\"/><line x1=\"{b:.1}\" y1=\"3\" x2=\"{b:.1}\" y2=\"11\" class=\"ci\"/>"
        );
    }
    s.push_str("</svg>");
    s
}

/// One bar of [`chart_svg`].
struct ChartRow<'a> {
    label: &'a str,
    rate: Option<f64>,
    ci: Option<[f64; 2]>,
    count: String,
}

/// A horizontal bar chart, one row per model, with its interval and a 0–100% axis.
fn chart_svg(rows: &[ChartRow]) -> String {
    const LABEL: f64 = 200.0;
    const PLOT: f64 = 420.0;
    const ROW: f64 = 26.0;
    let height = 30.0 + ROW * rows.len() as f64;
    let width = LABEL + PLOT + 90.0;
    let mut s = format!(
        "<svg class=\"chart\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"violation rate per model\">"
    );
    for tick in 0..=4 {
        let x = LABEL + PLOT * tick as f64 / 4.0;
        let _ = write!(
            s,
            "<line x1=\"{x}\" y1=\"4\" x2=\"{x}\" y2=\"{}\" class=\"grid\"/><text x=\"{x}\" y=\"{}\" class=\"tick\">{}%</text>",
            height - 18.0,
            height - 4.0,
            tick * 25
        );
    }
    for (
        i,
        ChartRow {
            label,
            rate,
            ci,
            count,
        },
    ) in rows.iter().enumerate()
    {
        let y = 6.0 + ROW * i as f64;
        let _ = write!(
            s,
            "<g data-model=\"{}\"><text x=\"{}\" y=\"{}\" class=\"label\">{}</text>",
            esc(label),
            LABEL - 8.0,
            y + 14.0,
            esc(&truncate(label, 28))
        );
        if let Some(r) = rate {
            let _ = write!(
                s,
                "<rect x=\"{LABEL}\" y=\"{y}\" width=\"{:.1}\" height=\"18\" class=\"fill\"/>",
                r.clamp(0.0, 1.0) * PLOT
            );
        }
        if let Some([lo, hi]) = ci {
            let (a, b, m) = (LABEL + lo * PLOT, LABEL + hi * PLOT, y + 9.0);
            let _ = write!(
                s,
                "<line x1=\"{a:.1}\" y1=\"{m}\" x2=\"{b:.1}\" y2=\"{m}\" class=\"ci\"/><line x1=\"{a:.1}\" y1=\"{}\" x2=\"{a:.1}\" y2=\"{}\" class=\"ci\"/><line x1=\"{b:.1}\" y1=\"{}\" x2=\"{b:.1}\" y2=\"{}\" class=\"ci\"/>",
                y + 3.0,
                y + 15.0,
                y + 3.0,
                y + 15.0
            );
        }
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" class=\"value\">{} ({})</text></g>",
            LABEL + PLOT + 6.0,
            y + 14.0,
            pct(*rate),
            esc(count)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

fn key(family: &str, mr: &str) -> String {
    format!("{family}/{mr}")
}

fn anchor(family: &str, mr: &str) -> String {
    let mut a = String::from("r-");
    for c in format!("{family}-{mr}").chars() {
        a.push(if c.is_ascii_alphanumeric() { c } else { '-' });
    }
    a
}

fn pct(rate: Option<f64>) -> String {
    rate.map(|r| format!("{:.1}%", r * 100.0))
        .unwrap_or_else(|| "–".into())
}

fn interval(ci: Option<[f64; 2]>) -> String {
    ci.map(|[lo, hi]| format!("[{:.1}%, {:.1}%]", lo * 100.0, hi * 100.0))
        .unwrap_or_else(|| "–".into())
}

/// Escapes text for HTML content and double-quoted attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = r#"
:root{--fg:#1d2330;--muted:#5d6675;--line:#d9dde4;--bg:#fff;--bad:#c8413b;--track:#eef0f3;--ins:#d6f5d6;--del:#fbd9d7}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0}
header{padding:16px 24px;border-bottom:1px solid var(--line);background:#f7f8fa;position:sticky;top:0;z-index:1}
header h1{margin:0 0 4px;font-size:20px}
header p{margin:2px 0;color:var(--muted)}
.run{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.filters{margin-top:8px}.filters label{margin-right:16px;color:var(--fg)}
select{font:inherit;padding:2px 4px}
main{padding:8px 24px 48px;max-width:1280px}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{font-weight:600;color:var(--muted);font-size:12px;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:600}
a{color:inherit}
.note,.stat{color:var(--muted);font-size:12px;font-weight:normal}
.empty{color:var(--muted);font-style:italic}
svg .track{fill:var(--track)}svg .fill{fill:var(--bad);opacity:.8}
svg .ci{stroke:var(--fg);stroke-width:1.5}svg .grid{stroke:var(--line)}
svg text{font-size:11px;fill:var(--fg)}svg .tick{text-anchor:middle;fill:var(--muted)}
svg .label{text-anchor:end}
.expect{margin:6px 0}
.ex{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:10px 0}
.ex-id{margin:0;color:var(--muted);font-size:12px}
.pair{width:100%;table-layout:fixed}.pair th:first-child{width:90px}
.pair td{white-space:pre-wrap;word-break:break-word}
.pair tr.out td{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600}
mark.del{background:var(--del);text-decoration:line-through}mark.ins{background:var(--ins)}
mark.gap{text-decoration:none;padding:0 1px}
.detail{color:var(--bad);margin:4px 0}
details summary{cursor:pointer;color:var(--muted)}details p{white-space:pre-wrap}
.d-Better{color:#1f7a3a}.d-Worse{color:var(--bad)}
dl.methods dt{font-weight:600;margin-top:6px}dl.methods dd{margin-left:16px;color:var(--muted)}
"#;

/// The filters: hide elements whose `data-model` / `data-mr` differ from the chosen values. The
/// choice is kept in the address (`report.html#model=NAME&mr=FAMILY/MR`), so a filtered view can
/// be bookmarked or sent.
const JS: &str = r#"
(function(){
  var m=document.getElementById('f-model'), r=document.getElementById('f-mr');
  function pick(sel,v){for(var i=0;i<sel.options.length;i++){if(sel.options[i].value===v){sel.value=v;return;}}}
  function fromHash(){
    var h=location.hash.replace(/^#/,'');
    if(h.indexOf('=')<0)return;
    h.split('&').forEach(function(kv){
      var p=kv.split('='), v=decodeURIComponent(p[1]||'');
      if(p[0]==='model')pick(m,v); else if(p[0]==='mr')pick(r,v);
    });
  }
  function apply(){
    var mv=m.value, rv=r.value;
    document.querySelectorAll('[data-model],[data-mr]').forEach(function(e){
      var okm=!mv||!e.dataset.model||e.dataset.model===mv;
      var okr=!rv||!e.dataset.mr||e.dataset.mr===rv;
      e.style.display=(okm&&okr)?'':'none';
    });
  }
  function change(){
    var parts=[];
    if(m.value)parts.push('model='+encodeURIComponent(m.value));
    if(r.value)parts.push('mr='+encodeURIComponent(r.value));
    if(history.replaceState)history.replaceState(null,'',parts.length?'#'+parts.join('&'):location.pathname);
    apply();
  }
  m.addEventListener('change',change); r.addEventListener('change',change);
  document.getElementById('filters').addEventListener('submit',function(e){e.preventDefault();});
  fromHash(); apply();
})();
"#;

const METHODS: &str = r#"<section id="methods"><h2>How to read this report</h2><dl class="methods">
<dt>Violation rate</dt><dd>Violations / applicable cases. A case whose precondition fails on the source output (e.g. MT4MRC's inversion relations when the source answer is No) is not applicable and left out, so denominators differ per model.</dd>
<dt>95% interval</dt><dd>Wilson score interval: it stays inside [0, 100%] and is honest for small counts; a rate resting on five cases has a wide interval.</dd>
<dt>Comparisons</dt><dd>Paired Wilcoxon signed-rank test: models paired by relation, relations paired by source example. Zeros dropped, midranks for ties, exact p-values up to 50 pairs, normal approximation with tie correction above. Outcome as in MT4MRC: two-sided p ≥ 0.05 is similar.</dd>
<dt>Examples</dt><dd>Per relation and model, one violation per source first, then the smallest edit and the shortest text; the edit is struck through in the source and highlighted in the follow-up.</dd>
</dl></section>
"#;

/// The usage a shard's manifest records (none for manifests without any).
///
/// # Errors
/// [`metamorph_data::Error::Malformed`] naming the manifest when it is not a manifest.
fn read_usage(path: &Path) -> Result<Vec<metamorph_data::usage::ModelUsage>> {
    let text = std::fs::read_to_string(path).map_err(|e| metamorph_data::Error::io(path, e))?;
    let manifest: metamorph_data::Manifest = serde_json::from_str(&text)
        .map_err(|e| metamorph_data::Error::malformed(path, "-", "-", e.to_string()))?;
    Ok(manifest.usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_fields_are_cut_around_the_edit() {
        let text = format!("{}before{}", "a".repeat(1000), "b".repeat(1000));
        let html = highlight(&text, &[[1000, 1006]], "del");
        assert!(html.starts_with('…') && html.ends_with('…'), "{html}");
        assert!(html.contains("<mark class=\"del\">before</mark>"));
        let before_mark = &html[..html.find("<mark").unwrap()];
        assert_eq!(before_mark.chars().filter(|c| *c == 'a').count(), WINDOW);
        // Short fields are whole; an insertion point is marked; spans past the end are dropped.
        assert_eq!(
            highlight("x < y", &[[2, 2], [4, 99]], "ins"),
            "x <mark class=\"ins gap\">‸</mark>&lt; y"
        );
    }

    #[test]
    fn anchors_and_keys_are_safe() {
        assert_eq!(anchor("mt4mrc", "MR1-3"), "r-mt4mrc-MR1-3");
        assert_eq!(anchor("a b", "c/\"d"), "r-a-b-c--d");
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }
}
