//! Previewing follow-ups: run relations over a dataset in-process and show a seeded random
//! sample of source/follow-up pairs per relation — how a user (or a reviewer checking grammar)
//! sees what a relation does before running models. `metamorph preview` prints it.

use std::fmt::Write as _;

use metamorph_data::{Case, Example, Result};
use metamorph_parse::spacy::pipeline::Pipeline;

use metamorph_validate::window::edited_from;

use metamorph_perturb::lexicon::entity_pool::SplitMix64;
use metamorph_perturb::{parse_examples, MetamorphicRelation, Source};

/// The cases one relation produced over a dataset, and a sample of them.
#[derive(Clone, Debug)]
pub struct RelationPreview {
    /// The relation's family.
    pub family: String,
    /// The relation's name.
    pub mr: String,
    /// Sources of a task the relation handles.
    pub sources: usize,
    /// Sources that gave at least one case.
    pub eligible: usize,
    /// All cases, in source order.
    pub cases: Vec<Case>,
    /// Indices into `cases` of the sample, in case order.
    pub sample: Vec<usize>,
}

/// Runs `relations` over `examples` (parsing the fields they need with `pipeline`, when given)
/// and samples up to `sample` cases per relation with a generator seeded by `seed`.
///
/// # Errors
/// A parse error (a text over the pipeline's `max_length`) or a relation's error.
pub fn preview(
    relations: &[Box<dyn MetamorphicRelation>],
    examples: &[Example],
    pipeline: Option<&Pipeline>,
    sample: usize,
    seed: u64,
) -> Result<Vec<RelationPreview>> {
    let mut fields: Vec<&str> = relations
        .iter()
        .flat_map(|r| r.parsed_fields().iter().copied())
        .collect();
    fields.sort_unstable();
    fields.dedup();
    let parses = match pipeline {
        Some(p) if !fields.is_empty() => parse_examples(p, examples, &fields)?,
        _ => Vec::new(),
    };
    let mut by_id: std::collections::HashMap<&str, Vec<metamorph_data::ParsedText>> =
        std::collections::HashMap::new();
    for p in &parses {
        by_id.entry(p.id.as_str()).or_default().push(p.clone());
    }
    let mut previews = Vec::with_capacity(relations.len());
    for relation in relations {
        let mut preview = RelationPreview {
            family: relation.family().into(),
            mr: relation.name().into(),
            sources: 0,
            eligible: 0,
            cases: Vec::new(),
            sample: Vec::new(),
        };
        for example in examples
            .iter()
            .filter(|e| relation.tasks().contains(&e.task))
        {
            let parsed = by_id
                .get(example.id.as_str())
                .map_or(&[][..], Vec::as_slice);
            let cases = relation.follow_ups(&Source::new(example, parsed))?;
            preview.sources += 1;
            preview.eligible += usize::from(!cases.is_empty());
            preview.cases.extend(cases);
        }
        preview.sample = sample_indices(preview.cases.len(), sample, seed);
        previews.push(preview);
    }
    Ok(previews)
}

/// `k` distinct indices of `0..n` (all of them when `k >= n`), sorted, by a partial
/// Fisher–Yates shuffle seeded with `seed`.
pub fn sample_indices(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    if k < n {
        let mut rng = SplitMix64::new(seed);
        for i in 0..k {
            let j = i + rng.below(n - i);
            all.swap(i, j);
        }
        all.truncate(k);
    }
    all.sort_unstable();
    all
}

/// The sample as text: a header per relation, then for each case the edited fields before and
/// after (long fields shown around their edits).
pub fn render(previews: &[RelationPreview]) -> String {
    let mut out = String::new();
    for p in previews {
        let _ = writeln!(
            out,
            "== {} ({}): {} sources, {} eligible, {} cases; showing {}",
            p.mr,
            p.family,
            p.sources,
            p.eligible,
            p.cases.len(),
            p.sample.len()
        );
        for &i in &p.sample {
            let case = &p.cases[i];
            let _ = writeln!(out, "[{}]", case.case_id);
            let mut fields: Vec<&str> = case.edits.iter().map(|e| e.field.as_str()).collect();
            fields.dedup();
            for field in fields {
                let after = case.followup.field(field).unwrap_or_default();
                let before = edited_from(after, case, field);
                let _ = writeln!(out, "  - {field}: {}", excerpt(&before, case, field, false));
                let _ = writeln!(out, "  + {field}: {}", excerpt(after, case, field, true));
            }
            if case.edits.is_empty() {
                let _ = writeln!(out, "  (no text edit: {})", span_summary(case));
            }
            if let Some(v) = case.validity.as_ref().filter(|v| !v.passed) {
                let _ = writeln!(out, "  REJECTED: {}", v.reasons.join("; "));
            }
        }
        out.push('\n');
    }
    out
}

/// Scores the sampled follow-ups of every preview with `validator` (their `validity` is set),
/// so that [`render`] marks those the validity step would set aside, and why.
///
/// # Errors
/// The validator's (encoder or parser failures).
pub fn validate_sample(
    previews: &mut [RelationPreview],
    validator: &metamorph_validate::Validator,
) -> Result<()> {
    for p in previews {
        let sample: Vec<Case> = p.sample.iter().map(|&i| p.cases[i].clone()).collect();
        for (&i, v) in p.sample.iter().zip(validator.validate(&sample)?) {
            p.cases[i].validity = Some(v);
        }
    }
    Ok(())
}

/// The sample as a tab-separated table for a reader to judge: one row per case with the text
/// before and after each edited field (joined with ` | `), then the validity scores when the
/// sample was validated (one column per check of [`metamorph_validate::calibration::CHECKS`],
/// which `metamorph-validate calibrate` reads back: empty where a check did not apply;
/// `passed`; `reasons`), and a `reference` column with what a reader needs to judge
/// the expected output ([`reference`]). Tabs and line breaks inside texts become spaces.
pub fn render_tsv(previews: &[RelationPreview]) -> String {
    use metamorph_validate::calibration::CHECKS;
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let mut out = String::from("case_id\trelation\tsource\tfollow_up");
    for c in CHECKS {
        let _ = write!(out, "\t{c}");
    }
    out.push_str("\tpassed\treasons\treference\n");
    for p in previews {
        for &i in &p.sample {
            let case = &p.cases[i];
            let mut fields: Vec<&str> = case.edits.iter().map(|e| e.field.as_str()).collect();
            fields.dedup();
            let (mut before, mut after) = (Vec::new(), Vec::new());
            for field in fields {
                let a = case.followup.field(field).unwrap_or_default();
                let b = edited_from(a, case, field);
                before.push(format!("{field}: {}", excerpt(&b, case, field, false)));
                after.push(format!("{field}: {}", excerpt(a, case, field, true)));
            }
            if case.edits.is_empty() {
                after.push(span_summary(case));
            }
            let _ = write!(
                out,
                "{}\t{}\t{}\t{}",
                case.case_id,
                p.mr,
                clean(&before.join(" | ")),
                clean(&after.join(" | "))
            );
            for c in CHECKS {
                let score = case
                    .validity
                    .as_ref()
                    .and_then(|v| v.scores.iter().find(|s| s.check == c))
                    .map(|s| format!("{:.4}", s.score))
                    .unwrap_or_default();
                let _ = write!(out, "\t{score}");
            }
            let (passed, reasons) = case
                .validity
                .as_ref()
                .map_or((String::new(), String::new()), |v| {
                    (v.passed.to_string(), clean(&v.reasons.join("; ")))
                });
            let _ = writeln!(out, "\t{passed}\t{reasons}\t{}", clean(&reference(case)));
        }
    }
    out
}

/// What a reader needs besides the edited text to judge a follow-up's expected output: the
/// source's gold label (and, where the relation maps it, the label expected of the follow-up)
/// and answers, the question when only the passage was edited, the passage
/// (its first 600 characters) when only the question was, and the arguments of a relation
/// example before and after.
pub fn reference(case: &Case) -> String {
    let source = &case.sources[0];
    let edited = |field: &str| case.edits.iter().any(|e| e.field == field);
    let mut parts = Vec::new();
    if let Some(label) = &source.label {
        parts.push(format!("gold label: {label}"));
        // A relation that maps the label (MR-R2's coarser granularity, MR-S2's inverse): the
        // label a human should give the follow-up, so that a reader need not work it out.
        if let Ok(metamorph_data::Expectation::MapLabel { map }) = case.expectation() {
            if let Some(expected) = map.get(label) {
                parts.push(format!("expected label of the follow-up: {expected}"));
            }
        }
    }
    if let Some(answers) = source.answers.as_ref().filter(|a| !a.is_empty()) {
        let texts: Vec<&str> = answers.iter().map(|a| a.text.as_str()).collect();
        parts.push(format!("gold answers: {}", texts.join(" / ")));
    }
    if let Some(q) = source.question.as_deref().filter(|_| !edited("question")) {
        parts.push(format!("question: {q}"));
    }
    if let Some(c) = source.context.as_deref().filter(|_| !edited("context")) {
        let short: String = c.chars().take(600).collect();
        let more = if short.len() < c.len() { "…" } else { "" };
        parts.push(format!("passage: {short}{more}"));
    }
    let args = |e: &Example| {
        let arg = |s: &Option<metamorph_data::EntitySpan>| {
            s.as_ref().map_or("-".to_string(), |s| {
                format!(
                    "{:?}{}",
                    s.text,
                    s.entity_type
                        .as_deref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default()
                )
            })
        };
        format!("head {} tail {}", arg(&e.head), arg(&e.tail))
    };
    if source.head.is_some() {
        parts.push(format!("source: {}", args(source)));
        parts.push(format!("follow-up: {}", args(&case.followup)));
    }
    parts.join(" ‖ ")
}

/// Short texts whole; long ones (passages) from a little before the first edit to a little
/// after the last.
fn excerpt(text: &str, case: &Case, field: &str, followup: bool) -> String {
    const WHOLE: usize = 240;
    const MARGIN: usize = 80;
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= WHOLE {
        return text.to_string();
    }
    let edits: Vec<_> = case.edits.iter().filter(|e| e.field == field).collect();
    let (Some(first), Some(last)) = (edits.first(), edits.last()) else {
        return text.to_string();
    };
    // Follow-up offsets shift by the length changes of earlier edits.
    let shift = |upto: u32| -> i64 {
        edits
            .iter()
            .filter(|e| e.start < upto)
            .map(|e| e.after.chars().count() as i64 - (e.end - e.start) as i64)
            .sum()
    };
    let (start, end) = if followup {
        (
            (i64::from(first.start) + shift(first.start)).max(0) as usize,
            (i64::from(last.start) + shift(last.start) + last.after.chars().count() as i64).max(0)
                as usize,
        )
    } else {
        (first.start as usize, last.end as usize)
    };
    let lo = start.saturating_sub(MARGIN);
    let hi = (end + MARGIN).min(chars.len());
    let mut s = String::new();
    if lo > 0 {
        s.push('…');
    }
    s.extend(&chars[lo..hi]);
    if hi < chars.len() {
        s.push('…');
    }
    s
}

/// For cases that move spans instead of editing text (relation extraction): the arguments.
fn span_summary(case: &Case) -> String {
    let f = &case.followup;
    let arg = |s: &Option<metamorph_data::EntitySpan>| {
        s.as_ref().map_or_else(
            || "-".to_string(),
            |s| format!("{:?} [{}..{}]", s.text, s.start, s.end),
        )
    };
    format!("head {} tail {}", arg(&f.head), arg(&f.tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_distinct_sorted_and_seeded() {
        let a = sample_indices(1000, 100, 7);
        assert_eq!(a.len(), 100);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(a, sample_indices(1000, 100, 7));
        assert_ne!(a, sample_indices(1000, 100, 8));
        assert_eq!(sample_indices(5, 100, 1), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_text_before_is_rebuilt_from_the_follow_up() {
        let mut source = Example::new("p1", metamorph_data::Task::Paraphrase);
        source.text = Some("A cat sat.".into());
        source.text_b = Some("Something else entirely.".into());
        let mut followup = source.clone();
        followup.text = Some("The dog ran home.".into());
        followup.text_b = Some("The big dog ran home quickly.".into());
        let case = Case::new(
            "nlplego",
            "NLPLego-SSM",
            vec![source],
            followup,
            &metamorph_data::Expectation::Equal,
        )
        .with_edits(vec![
            metamorph_perturb::edit::difference("text_b", "The dog ran", "The big dog ran")
                .unwrap(),
            metamorph_perturb::edit::difference("text_b", "ran home.", "ran home quickly.")
                .unwrap(),
        ]);
        // The second edit's offsets, written against "ran home.", are moved to the full text.
        let mut edits = case.edits.clone();
        edits[1].start += 8;
        edits[1].end += 8;
        let case = case.with_edits(edits);
        assert_eq!(
            edited_from("The big dog ran home quickly.", &case, "text_b"),
            "The dog ran home."
        );
        let shown = render(&[RelationPreview {
            family: "nlplego".into(),
            mr: "NLPLego-SSM".into(),
            sources: 1,
            eligible: 1,
            cases: vec![case],
            sample: vec![0],
        }]);
        assert!(shown.contains("  - text_b: The dog ran home."), "{shown}");
        assert!(!shown.contains("Something else"), "{shown}");
    }

    #[test]
    fn a_mapped_label_is_shown_with_the_one_expected_of_the_follow_up() {
        let mut source = Example::new("r1", metamorph_data::Task::Relation);
        source.label = Some("P131".into());
        let map = [("P131", "P17"), ("P19", "P19")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let case = Case::new(
            "sit4re",
            "MR-R2",
            vec![source.clone()],
            source,
            &metamorph_data::Expectation::MapLabel { map },
        );
        assert_eq!(
            reference(&case),
            "gold label: P131 ‖ expected label of the follow-up: P17"
        );
    }

    #[test]
    fn previews_show_each_edit() {
        let resources = metamorph_perturb::Resources::from_config(&Default::default());
        let relations =
            metamorph_perturb::relations_by_name(&["MR1-3".into()], &resources).unwrap();
        let mut example = Example::new("q9", metamorph_data::Task::BoolQ);
        example.question = Some("was rome founded before athens".into());
        example.context = Some("x".into());
        let dir = metamorph_data::assets::ensure("en_core_web_sm").expect("fetch en_core_web_sm");
        let pipeline = Pipeline::load(&dir).expect("load en_core_web_sm");
        let previews = preview(&relations, &[example], Some(&pipeline), 10, 0).unwrap();
        assert_eq!((previews[0].sources, previews[0].eligible), (1, 1));
        let text = render(&previews);
        assert!(text.contains("== MR1-3 (mt4mrc): 1 sources, 1 eligible, 1 cases; showing 1"));
        assert!(text.contains("  - question: was rome founded before athens"));
        assert!(text.contains("  + question: was rome founded after athens"));
    }
}
