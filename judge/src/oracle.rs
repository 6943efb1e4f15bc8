//! The oracle: one case, the model's predictions for its sources and its follow-up, one
//! verdict.

use metamorph_data::{AnswerMetric, Case, Expectation, Precondition, Prediction, Result, Verdict};

use crate::coref_links::link_scores;
use crate::squad_metric::{exact_match, token_f1};

/// Judges `case` for the model that produced `sources` (in `source_ids` order) and `followup`.
///
/// # Errors
/// [`metamorph_data::Error::Schema`] when the case's expectation or precondition cannot be read,
/// or when a prediction lacks the output the expectation compares (e.g. no label for
/// `Inverted`).
pub fn judge_case(case: &Case, sources: &[&Prediction], followup: &Prediction) -> Result<Verdict> {
    let expectation = case.expectation()?;
    let precondition = case.precondition()?;
    let missing = |what: &str, p: &Prediction| metamorph_data::Error::Schema {
        context: format!("case `{}`", case.case_id),
        message: format!(
            "prediction for `{}` by `{}` has no {what}",
            p.example_id, p.model
        ),
    };
    let source = *sources
        .first()
        .ok_or_else(|| metamorph_data::Error::Schema {
            context: format!("case `{}`", case.case_id),
            message: "no source prediction".into(),
        })?;
    let mut verdict = Verdict {
        case_id: case.case_id.clone(),
        family: case.family.clone(),
        mr: case.mr.clone(),
        model: followup.model.clone(),
        source_ids: case.source_ids.clone(),
        source_output: source.summary(),
        followup_output: followup.summary(),
        applicable: true,
        holds: None,
        detail: String::new(),
    };

    if let Some(precondition) = &precondition {
        if let Some(reason) = unmet(case, precondition, sources)? {
            verdict.applicable = false;
            verdict.detail = format!("not applicable: {reason}");
            return Ok(verdict);
        }
    }

    let (holds, detail) = match &expectation {
        Expectation::Equal | Expectation::Inverted => {
            let s = source
                .label
                .as_deref()
                .ok_or_else(|| missing("label", source))?;
            let f = followup
                .label
                .as_deref()
                .ok_or_else(|| missing("label", followup))?;
            let same = s == f;
            if matches!(expectation, Expectation::Equal) {
                (
                    same,
                    format!("expected the same label: source {s:?}, follow-up {f:?}"),
                )
            } else {
                (
                    !same,
                    format!("expected the label to change: source {s:?}, follow-up {f:?}"),
                )
            }
        }
        Expectation::LabelIs { label } => {
            let f = followup
                .label
                .as_deref()
                .ok_or_else(|| missing("label", followup))?;
            (
                f == label,
                format!("expected follow-up label {label:?}, got {f:?}"),
            )
        }
        Expectation::MapLabel { map } => {
            let s = source
                .label
                .as_deref()
                .ok_or_else(|| missing("label", source))?;
            let f = followup
                .label
                .as_deref()
                .ok_or_else(|| missing("label", followup))?;
            match map.get(s) {
                Some(want) => (
                    f == want,
                    format!("source {s:?} maps to {want:?}; follow-up {f:?}"),
                ),
                None => (
                    false,
                    format!(
                        "source {s:?} has no image in the relation's label map; follow-up {f:?}"
                    ),
                ),
            }
        }
        Expectation::EqualToSource { source: index } => {
            let p = source_at(case, sources, *index)?;
            let s = p.label.as_deref().ok_or_else(|| missing("label", p))?;
            let f = followup
                .label
                .as_deref()
                .ok_or_else(|| missing("label", followup))?;
            (
                f == s,
                format!("expected the label of source {index} ({s:?}); follow-up {f:?}"),
            )
        }
        Expectation::SameAnswer { metric, threshold } => {
            let s = source
                .answer
                .as_ref()
                .ok_or_else(|| missing("answer", source))?;
            let f = followup
                .answer
                .as_ref()
                .ok_or_else(|| missing("answer", followup))?;
            let (name, score) = match metric {
                AnswerMetric::ExactMatch => ("exact match", exact_match(&f.text, &s.text)),
                AnswerMetric::F1 => ("F1", token_f1(&f.text, &s.text)),
            };
            (
                score >= *threshold,
                format!(
                    "{name} {score:.3} (threshold {threshold}) between {:?} and {:?}",
                    s.text, f.text
                ),
            )
        }
        Expectation::SameClusters {
            min_precision,
            min_recall,
        } => {
            let s = source
                .clusters
                .as_deref()
                .ok_or_else(|| missing("clusters", source))?;
            let f = followup
                .clusters
                .as_deref()
                .ok_or_else(|| missing("clusters", followup))?;
            // Clusters are spans of `text`, the only field a coreference example has.
            let edits: Vec<&metamorph_data::Edit> =
                case.edits.iter().filter(|e| e.field == "text").collect();
            let scores = link_scores(s, f, &edits);
            (
                scores.precision >= f64::from(*min_precision)
                    && scores.recall >= f64::from(*min_recall),
                format!(
                    "link precision {:.3} (threshold {min_precision}), recall {:.3} (threshold \
                     {min_recall}): {} of the source's {} links, {} follow-up links",
                    scores.precision,
                    scores.recall,
                    scores.common,
                    scores.source_links,
                    scores.followup_links
                ),
            )
        }
        Expectation::Answer {
            value,
            constraint,
            original,
            min_f1,
        } => {
            // Extractive models answer with a span; yes/no and label models with a label.
            let answer = followup
                .answer
                .as_ref()
                .map(|a| a.text.as_str())
                .or(followup.label.as_deref())
                .ok_or_else(|| missing("answer", followup))?;
            match (value, constraint) {
                (Some(value), _) => {
                    let f1 = token_f1(answer, value);
                    (
                        f1 >= *min_f1,
                        format!("F1 {f1:.3} (threshold {min_f1}) of {answer:?} against {value:?}"),
                    )
                }
                (None, Some(constraint)) => match constraint.satisfied(original, answer) {
                    Some(ok) => (
                        ok,
                        format!(
                            "{answer:?} {} the constraint {constraint:?} (original answer \
                             {original:?})",
                            if ok { "satisfies" } else { "violates" }
                        ),
                    ),
                    None => {
                        verdict.applicable = false;
                        verdict.detail = format!(
                            "constraint {constraint:?} needs a numeric original answer, got \
                             {original:?}"
                        );
                        return Ok(verdict);
                    }
                },
                (None, None) => {
                    return Err(metamorph_data::Error::Schema {
                        context: format!("case `{}`", case.case_id),
                        message: "an `answer` expectation with neither value nor constraint".into(),
                    })
                }
            }
        }
        Expectation::Directional {
            parent,
            part,
            max_rise,
        } => {
            let parent_p = source_at(case, sources, *parent)?;
            let part_p = source_at(case, sources, *part)?;
            let label = part_p
                .label
                .as_deref()
                .ok_or_else(|| missing("label", part_p))?;
            let probability = |p: &Prediction| -> Result<f32> {
                let probs = p
                    .probabilities
                    .as_deref()
                    .ok_or_else(|| missing("class probabilities", p))?;
                probs
                    .iter()
                    .find(|lp| lp.label == label)
                    .map(|lp| lp.prob)
                    .ok_or_else(|| metamorph_data::Error::Schema {
                        context: format!("case `{}`", case.case_id),
                        message: format!(
                            "prediction for `{}` by `{}` has no probability for label {label:?}",
                            p.example_id, p.model
                        ),
                    })
            };
            let before = probability(parent_p)?;
            let after = probability(followup)?;
            // The other classes' probability is 1 - P(label); its rise is P(label)'s fall.
            let rise = before - after;
            (
                rise <= *max_rise,
                format!(
                    "inserted part labelled {label:?}: P({label}) {before:.3} -> {after:.3}, the \
                     other classes rose by {rise:.3} (at most {max_rise})"
                ),
            )
        }
        _ => {
            return Err(metamorph_data::Error::Schema {
                context: format!("case `{}`", case.case_id),
                message: format!(
                    "expectation {:?} is not supported by this judge",
                    case.expectation_json
                ),
            })
        }
    };
    verdict.holds = Some(holds);
    verdict.detail = detail;
    Ok(verdict)
}

/// The prediction for source `index`, or a schema error naming the case.
fn source_at<'p>(case: &Case, sources: &[&'p Prediction], index: usize) -> Result<&'p Prediction> {
    sources
        .get(index)
        .copied()
        .ok_or_else(|| metamorph_data::Error::Schema {
            context: format!("case `{}`", case.case_id),
            message: format!(
                "the case refers to source {index}, but it has {}",
                sources.len()
            ),
        })
}

/// Why `precondition` does not hold for these source predictions (`None` when it holds).
fn unmet(
    case: &Case,
    precondition: &Precondition,
    sources: &[&Prediction],
) -> Result<Option<String>> {
    let label_of = |index: usize| -> Result<&str> {
        let p = source_at(case, sources, index)?;
        p.label
            .as_deref()
            .ok_or_else(|| metamorph_data::Error::Schema {
                context: format!("case `{}`", case.case_id),
                message: format!(
                    "prediction for `{}` by `{}` has no label",
                    p.example_id, p.model
                ),
            })
    };
    Ok(match precondition {
        Precondition::SourceLabelIs { source, label } => {
            let actual = label_of(*source)?;
            (actual != label).then(|| {
                format!("source {source} label is {actual:?}, the relation needs {label:?}")
            })
        }
        Precondition::SourceLabelIn { source, labels } => {
            let actual = label_of(*source)?;
            (!labels.iter().any(|l| l == actual)).then(|| {
                format!("source {source} label is {actual:?}, the relation needs one of {labels:?}")
            })
        }
        Precondition::SourceLabelNotIn { source, labels } => {
            let actual = label_of(*source)?;
            labels.iter().any(|l| l == actual).then(|| {
                format!(
                    "source {source} label is {actual:?}, the relation needs none of {labels:?}"
                )
            })
        }
        Precondition::All { all } => {
            let mut first = None;
            for p in all {
                if let Some(reason) = unmet(case, p, sources)? {
                    first = Some(reason);
                    break;
                }
            }
            first
        }
        other => {
            return Err(metamorph_data::Error::Schema {
                context: format!("case `{}`", case.case_id),
                message: format!("precondition {other:?} is not supported by this judge"),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{AnswerSpan, Example, Task};

    fn case(expectation: Expectation, precondition: Option<Precondition>) -> Case {
        let source = Example::new("s", Task::BoolQ);
        let mut followup = Example::new("s:MR:0", Task::BoolQ);
        followup.question = Some("q".into());
        let case = Case::new("f", "MR", vec![source], followup, &expectation);
        match precondition {
            Some(p) => case.with_precondition(&p),
            None => case,
        }
    }

    fn label(id: &str, label: &str) -> Prediction {
        Prediction {
            label: Some(label.into()),
            ..Prediction::new(id, "m", Task::BoolQ)
        }
    }

    fn yes_source() -> Option<Precondition> {
        Some(Precondition::SourceLabelIs {
            source: 0,
            label: "yes".into(),
        })
    }

    /// A sentiment prediction with P(positive) = `positive`.
    fn sentiment(id: &str, positive: f32) -> Prediction {
        use metamorph_data::LabelProb;
        Prediction {
            label: Some(
                if positive >= 0.5 {
                    "positive"
                } else {
                    "negative"
                }
                .into(),
            ),
            probabilities: Some(vec![
                LabelProb {
                    label: "positive".into(),
                    prob: positive,
                },
                LabelProb {
                    label: "negative".into(),
                    prob: 1.0 - positive,
                },
            ]),
            ..Prediction::new(id, "m", Task::Sentiment)
        }
    }

    #[test]
    fn directional_fails_when_the_opposite_class_gains_more_than_the_threshold() {
        // seed-003 Table 4: RoBERTa labels "brave" negative, and "It's a brave attempt." gains
        // +0.990 positive over "It's a attempt.": the opposite of the adjunct's own label rose.
        let directional = Expectation::Directional {
            parent: 0,
            part: 1,
            max_rise: 0.1,
        };
        let mut c = case(directional, None);
        c.source_ids.push("adjunct".into());
        c.sources.push(Example::new("adjunct", Task::Sentiment));
        let parent = sentiment("s", 0.005);
        let brave = sentiment("adjunct", 0.2);
        let v = judge_case(&c, &[&parent, &brave], &sentiment("s:MR:0", 0.995)).unwrap();
        assert_eq!(v.holds, Some(false), "{}", v.detail);
        assert!(v.detail.contains("rose by 0.990"), "{}", v.detail);
        // A rise of 0.05 is within the threshold, and a fall of the opposite class holds.
        let v = judge_case(&c, &[&parent, &brave], &sentiment("s:MR:0", 0.055)).unwrap();
        assert_eq!(v.holds, Some(true), "{}", v.detail);
        let v = judge_case(
            &c,
            &[&sentiment("s", 0.6), &brave],
            &sentiment("s:MR:0", 0.1),
        )
        .unwrap();
        assert_eq!(v.holds, Some(true), "{}", v.detail);
        // A positive adjunct: the negative class may not rise by more than 0.1.
        let good = sentiment("adjunct", 0.9);
        let v = judge_case(
            &c,
            &[&sentiment("s", 0.7), &good],
            &sentiment("s:MR:0", 0.55),
        )
        .unwrap();
        assert_eq!(v.holds, Some(false), "{}", v.detail);
        // Without probabilities the case cannot be judged: an error naming what is missing.
        let err = judge_case(
            &c,
            &[&label("s", "positive"), &good],
            &sentiment("s:MR:0", 0.5),
        )
        .unwrap_err();
        assert!(err.to_string().contains("class probabilities"), "{err}");
    }

    #[test]
    fn a_neutral_adjunct_makes_the_directional_case_not_applicable() {
        let directional = Expectation::Directional {
            parent: 0,
            part: 1,
            max_rise: 0.1,
        };
        let neutral = Precondition::SourceLabelNotIn {
            source: 1,
            labels: vec!["neutral".into()],
        };
        let mut c = case(directional, Some(neutral));
        c.source_ids.push("adjunct".into());
        c.sources.push(Example::new("adjunct", Task::Sentiment));
        let adjunct = label("adjunct", "neutral");
        let v = judge_case(
            &c,
            &[&sentiment("s", 0.9), &adjunct],
            &sentiment("s:MR:0", 0.1),
        )
        .unwrap();
        assert!(!v.applicable && v.holds.is_none(), "{}", v.detail);
        assert!(v.detail.contains("none of"), "{}", v.detail);
    }

    #[test]
    fn same_clusters_aligns_through_the_edit_and_applies_thresholds() {
        use metamorph_data::{CharSpan, Edit};
        let span = |start, end| CharSpan { start, end };
        // "The fish ate the worm because it was tasty" → "The fish devoured the worm …":
        // +5 characters after "ate".
        let edit = Edit {
            field: "text".into(),
            start: 9,
            end: 12,
            before: "ate".into(),
            after: "devoured".into(),
        };
        let strict = Expectation::SameClusters {
            min_precision: 1.0,
            min_recall: 1.0,
        };
        let c = case(strict, None).with_edits(vec![edit.clone()]);
        let clusters = |id: &str, clusters: Vec<Vec<CharSpan>>| Prediction {
            clusters: Some(clusters),
            ..Prediction::new(id, "m", Task::Coref)
        };
        let source = clusters("s", vec![vec![span(13, 21), span(30, 32)]]);
        let shifted = clusters("s:MR:0", vec![vec![span(35, 37), span(18, 26)]]);
        let v = judge_case(&c, &[&source], &shifted).unwrap();
        assert_eq!(v.holds, Some(true), "{}", v.detail);
        // Unshifted offsets in the follow-up point elsewhere: the link is lost.
        let unshifted = clusters("s:MR:0", vec![vec![span(13, 21), span(30, 32)]]);
        let v = judge_case(&c, &[&source], &unshifted).unwrap();
        assert_eq!(v.holds, Some(false));
        assert!(v.detail.contains("recall 0.000"), "{}", v.detail);
        // An extra mention: precision 1/3; a threshold of 0.3 tolerates it, 1.0 does not.
        let extra = clusters("s:MR:0", vec![vec![span(35, 37), span(18, 26), span(0, 8)]]);
        assert_eq!(
            judge_case(&c, &[&source], &extra).unwrap().holds,
            Some(false)
        );
        let lenient = case(
            Expectation::SameClusters {
                min_precision: 0.3,
                min_recall: 1.0,
            },
            None,
        )
        .with_edits(vec![edit]);
        let v = judge_case(&lenient, &[&source], &extra).unwrap();
        assert_eq!(v.holds, Some(true), "{}", v.detail);
        // A prediction without clusters is an error naming the case.
        let err = judge_case(&c, &[&label("s", "x")], &shifted).unwrap_err();
        assert!(err.to_string().contains("clusters"), "{err}");
    }

    #[test]
    fn inversion_with_precondition() {
        let c = case(Expectation::Inverted, yes_source());
        let v = judge_case(&c, &[&label("s", "yes")], &label("s:MR:0", "no")).unwrap();
        assert_eq!((v.applicable, v.holds), (true, Some(true)));
        let v = judge_case(&c, &[&label("s", "yes")], &label("s:MR:0", "yes")).unwrap();
        assert_eq!((v.applicable, v.holds), (true, Some(false)));
        let v = judge_case(&c, &[&label("s", "no")], &label("s:MR:0", "yes")).unwrap();
        assert_eq!((v.applicable, v.holds), (false, None));
        assert!(v.detail.contains("not applicable"));
    }

    #[test]
    fn equality_and_label_is() {
        let c = case(Expectation::Equal, None);
        assert_eq!(
            judge_case(&c, &[&label("s", "no")], &label("f", "no"))
                .unwrap()
                .holds,
            Some(true)
        );
        assert_eq!(
            judge_case(&c, &[&label("s", "no")], &label("f", "yes"))
                .unwrap()
                .holds,
            Some(false)
        );
        let c = case(Expectation::LabelIs { label: "0".into() }, None);
        assert_eq!(
            judge_case(&c, &[&label("s", "1")], &label("f", "0"))
                .unwrap()
                .holds,
            Some(true)
        );
    }

    #[test]
    fn answers_are_judged_against_values_or_constraints() {
        use metamorph_data::answer_value::Constraint;
        let answer = |text: &str| Prediction {
            label: None,
            answer: Some(AnswerSpan {
                text: text.into(),
                start: None,
                end: None,
                score: None,
            }),
            ..label("f", "")
        };
        let expect = |value: Option<&str>, constraint: Option<Constraint>, original: &str| {
            case(
                Expectation::Answer {
                    value: value.map(String::from),
                    constraint,
                    original: original.into(),
                    min_f1: 0.8,
                },
                None,
            )
        };
        let source = label("s", "");
        let judge = |c: &Case, p: &Prediction| judge_case(c, &[&source], p).unwrap();
        let v = judge(
            &expect(Some("Mitchell Trubisky"), None, "x"),
            &answer("Trubisky"),
        );
        assert_eq!(v.holds, Some(false), "F1 0.67 is below 0.8: {}", v.detail);
        let v = judge(
            &expect(Some("Mitchell Trubisky"), None, "x"),
            &answer("mitchell trubisky."),
        );
        assert_eq!(v.holds, Some(true), "{}", v.detail);
        // A yes/no model answers with a label.
        let yes = label("f", "yes");
        assert_eq!(
            judge(&expect(Some("yes"), None, "2"), &yes).holds,
            Some(true)
        );
        let at_least = Some(Constraint::AtLeastOriginal);
        assert_eq!(
            judge(&expect(None, at_least, "13"), &answer("20 yards")).holds,
            Some(true)
        );
        assert_eq!(
            judge(&expect(None, at_least, "13"), &answer("7")).holds,
            Some(false)
        );
        let numeric = Some(Constraint::Numeric);
        assert_eq!(
            judge(&expect(None, numeric, "x"), &answer("the Packers")).holds,
            Some(false)
        );
        let v = judge(&expect(None, at_least, "Packers"), &answer("7"));
        assert!(!v.applicable && v.holds.is_none(), "{}", v.detail);
        assert!(judge_case(&expect(None, None, "x"), &[&source], &answer("7")).is_err());
    }

    #[test]
    fn same_answer_under_squad_normalisation() {
        let answer = |id: &str, text: &str| Prediction {
            label: None,
            answer: Some(AnswerSpan {
                text: text.into(),
                start: None,
                end: None,
                score: None,
            }),
            ..label(id, "")
        };
        let c = case(
            Expectation::SameAnswer {
                metric: AnswerMetric::ExactMatch,
                threshold: 1.0,
            },
            None,
        );
        assert_eq!(
            judge_case(&c, &[&answer("s", "the Volga")], &answer("f", "Volga."))
                .unwrap()
                .holds,
            Some(true)
        );
        let c = case(
            Expectation::SameAnswer {
                metric: AnswerMetric::F1,
                threshold: 0.8,
            },
            None,
        );
        assert_eq!(
            judge_case(
                &c,
                &[&answer("s", "the river Volga")],
                &answer("f", "Volga")
            )
            .unwrap()
            .holds,
            Some(false)
        );
    }

    #[test]
    fn map_label_follows_the_map_and_fails_outside_it() {
        let map = [
            ("per:children", "per:parents"),
            ("per:parents", "per:children"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .into_iter()
        .collect();
        let c = case(Expectation::MapLabel { map }, None);
        let judge = |s: &str, f: &str| {
            judge_case(&c, &[&label("s", s)], &label("f", f))
                .unwrap()
                .holds
        };
        assert_eq!(judge("per:children", "per:parents"), Some(true));
        assert_eq!(judge("per:children", "per:children"), Some(false));
        assert_eq!(judge("per:parents", "per:children"), Some(true));
        assert_eq!(judge("no_relation", "no_relation"), Some(false));
    }

    #[test]
    fn equal_to_second_source_under_a_conjunction_of_preconditions() {
        let mut c = case(Expectation::EqualToSource { source: 1 }, None);
        c.source_ids.push("s2".into());
        c.sources.push(Example::new("s2", Task::Relation));
        let both = Precondition::All {
            all: vec![
                Precondition::SourceLabelIn {
                    source: 0,
                    labels: vec!["per:spouse".into(), "per:siblings".into()],
                },
                Precondition::SourceLabelIs {
                    source: 1,
                    label: "per:children".into(),
                },
            ],
        };
        let c = c.with_precondition(&both);
        let run = |s1: &str, s2: &str, f: &str| {
            let v = judge_case(&c, &[&label("s", s1), &label("s2", s2)], &label("f", f)).unwrap();
            (v.applicable, v.holds)
        };
        assert_eq!(
            run("per:spouse", "per:children", "per:children"),
            (true, Some(true))
        );
        assert_eq!(
            run("per:spouse", "per:children", "no_relation"),
            (true, Some(false))
        );
        assert_eq!(
            run("per:title", "per:children", "per:children"),
            (false, None)
        );
        assert_eq!(
            run("per:spouse", "per:parents", "per:children"),
            (false, None)
        );
        // A precondition naming a source the case does not have is an error, not a verdict.
        let bad = case(Expectation::Equal, None).with_precondition(&Precondition::SourceLabelIs {
            source: 3,
            label: "x".into(),
        });
        assert!(judge_case(&bad, &[&label("s", "x")], &label("f", "x")).is_err());
    }

    #[test]
    fn missing_outputs_are_errors_naming_the_case() {
        let c = case(Expectation::Inverted, None);
        let mut p = label("f", "yes");
        p.label = None;
        let message = judge_case(&c, &[&label("s", "yes")], &p)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("s:MR:0") && message.contains("no label"),
            "{message}"
        );
    }
}
