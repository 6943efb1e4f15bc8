//! `report.html`: self-contained (nothing fetched from a network or another file), well formed,
//! escaped, and showing what the summary says.

use std::collections::HashMap;

use metamorph_data::{Case, Edit, Example, Expectation, Precondition, Task, Verdict};
use metamorph_judge::{select_examples, Report, Summary};

fn boolq_case(source: &str, k: usize, question: &str, context: &str) -> Case {
    let mut s = Example::new(source, Task::BoolQ);
    s.question = Some(question.into());
    s.context = Some(context.into());
    let mut f = s.clone();
    f.id = format!("{source}:MR1-3:{k}");
    let start = question.find("before").expect("test question has `before`");
    let start = question[..start].chars().count() as u32;
    f.question = Some(question.replacen("before", "after", 1));
    Case::new("mt4mrc", "MR1-3", vec![s], f, &Expectation::Inverted)
        .with_precondition(&Precondition::SourceLabelIs {
            source: 0,
            label: "yes".into(),
        })
        .with_edits(vec![Edit {
            field: "question".into(),
            start,
            end: start + 6,
            before: "before".into(),
            after: "after".into(),
        }])
}

fn verdict(case: &Case, model: &str, family: &str, mr: &str, holds: Option<bool>) -> Verdict {
    Verdict {
        case_id: case.case_id.clone(),
        family: family.into(),
        mr: mr.into(),
        model: model.into(),
        source_ids: case.source_ids.clone(),
        source_output: "yes".into(),
        followup_output: if holds == Some(false) { "yes" } else { "no" }.into(),
        applicable: holds.is_some(),
        holds,
        detail: "expected the label to change: source \"yes\", follow-up \"yes\"".into(),
    }
}

/// Two models, two families (one a contrast-set family), hostile text, a long passage.
fn run() -> Report {
    let long = "A long passage. ".repeat(200);
    let cases = vec![
        boolq_case(
            "s1",
            0,
            "was <script>alert(1)</script> built before \"x\"",
            "short & sweet",
        ),
        boolq_case("s2", 0, "did it end before the war", &long),
        boolq_case(
            "s3",
            0,
            "was the tower built before the statue",
            "see http://example.com",
        ),
    ];
    let mut verdicts = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        verdicts.push(verdict(c, "model-a", "mt4mrc", "MR1-3", Some(i == 2)));
        verdicts.push(verdict(c, "model-b", "mt4mrc", "MR1-3", Some(false)));
        verdicts.push(verdict(c, "model-a", "bpb", "AppendBool", Some(i != 1)));
    }
    let by_id: HashMap<String, Case> = cases.into_iter().map(|c| (c.case_id.clone(), c)).collect();
    let mut summary = Summary::from_verdicts(&verdicts);
    summary.verdict_files = 2;
    Report::new(
        summary,
        select_examples(&verdicts, &by_id, 3),
        "/runs/<nightly>",
    )
}

/// Checks that every non-void element is closed in order and every tag's quotes pair up;
/// `<script>` and `<style>` bodies are skipped. Returns the element names seen.
fn check_well_formed(html: &str) -> Vec<String> {
    const VOID: [&str; 6] = ["meta", "input", "br", "img", "hr", "link"];
    let mut stack: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open..];
        if rest.starts_with("<!DOCTYPE") || rest.starts_with("<!--") {
            rest = &rest[rest.find('>').unwrap() + 1..];
            continue;
        }
        let close = rest.find('>').expect("unterminated tag");
        let tag = &rest[1..close];
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in <{tag}>"
        );
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack
                .pop()
                .unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(top, name, "</{name}> closes <{top}>");
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(!name.is_empty(), "bad tag <{tag}>");
        seen.push(name.clone());
        if name == "script" || name == "style" {
            let end = format!("</{name}>");
            rest = &rest[rest.find(&end).expect("unclosed script/style") + end.len()..];
            continue;
        }
        if !tag.ends_with('/') && !VOID.contains(&name.as_str()) {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    seen
}

#[test]
fn the_report_is_self_contained_and_well_formed() {
    let html = run().render();
    let tags = check_well_formed(&html);
    for forbidden in ["link", "img", "iframe", "object", "embed"] {
        assert!(
            !tags.iter().any(|t| t == forbidden),
            "<{forbidden}> in the report"
        );
    }
    // Nothing fetched: no URL but the data's own text (escaped inside a <p>), no src=, no CSS
    // imports or url(), no xmlns namespace URL on the inline SVG.
    let without_data = html.replace("see http://example.com", "");
    assert!(!without_data.contains("http"), "a URL in the template");
    for fetch in [" src=", "@import", "url(", "xmlns"] {
        assert!(!html.contains(fetch), "{fetch} in the report");
    }
    // Data is escaped: the hostile question shows as text, not as a script.
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_eq!(html.matches("<script>").count(), 1);
    assert!(tags.iter().filter(|t| *t == "svg").count() >= 4);
}

#[test]
fn the_report_shows_rates_filters_comparisons_consistency_and_examples() {
    let report = run();
    let html = report.render();
    // Filters list both models and every relation.
    for option in [
        "<option value=\"model-a\">",
        "<option value=\"model-b\">",
        "<option value=\"mt4mrc/MR1-3\">",
        "<option value=\"bpb/AppendBool\">",
    ] {
        assert!(html.contains(option), "{option}");
    }
    // Overview rows carry the filter attributes and the rates.
    assert!(html.contains("data-model=\"model-b\" data-mr=\"mt4mrc/MR1-3\""));
    assert!(html.contains("66.7%") && html.contains("100.0%"));
    // Comparisons of the two models (paired by relation) and consistency of the bpb family.
    assert!(html.contains("Comparisons (paired Wilcoxon"));
    assert!(html.contains("id=\"consistency\""));
    // Examples: the edit struck in the source and highlighted in the follow-up, both outputs,
    // the expectation in words.
    assert!(html.contains("<mark class=\"del\">before</mark>"));
    assert!(html.contains("<mark class=\"ins\">after</mark>"));
    assert!(html.contains("Expected: the follow-up&#39;s label differs from the source&#39;s"));
    // The long passage is cut around the edit only in fields with edits; the context is folded.
    assert!(html.contains("<details><summary>context (unchanged)</summary>"));
    assert_eq!(
        report
            .examples
            .iter()
            .filter(|e| e.model == "model-b")
            .count(),
        3
    );
}

#[test]
fn an_empty_run_still_renders() {
    let report = Report::new(Summary::default(), Vec::new(), "empty");
    let html = report.render();
    check_well_formed(&html);
    assert!(html.contains("No verdicts"));
}

#[test]
fn the_report_is_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let (summary, html) = run().write_all(dir.path()).unwrap();
    assert!(summary.ends_with("summary.json") && html.ends_with("report.html"));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // Counts read back exactly (floats to within serde_json's parsing, not bit for bit).
    let back = Summary::read(&summary).unwrap();
    let counts = |s: &Summary| -> Vec<(u64, u64, u64)> {
        s.relations
            .iter()
            .map(|r| (r.cases, r.applicable, r.violations))
            .collect()
    };
    assert_eq!(counts(&back), counts(&run().summary));
    assert_eq!(back.comparisons.len(), 1);
    assert_eq!(back.consistency.len(), 2);
}
