//! Typed rows → Arrow → Parquet → Arrow → typed rows is the identity, for every record kind
//! (property-tested), and files carry their kind in the footer.

use metamorph_data::{
    from_batch, read_shard, to_batch, Answer, AnswerSpan, Case, CharSpan, Edit, EntitySpan,
    Example, Expectation, GenerationRequest, LabelProb, ParquetShardWriter, ParsedText, Phrase,
    Precondition, Prediction, Record, RecordKind, ShardSpec, Task, Token, TokenSpan, Verdict,
};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,.'éü–-]{0,24}"
}

fn task() -> impl Strategy<Value = Task> {
    proptest::sample::select(Task::ALL.to_vec())
}

fn span() -> impl Strategy<Value = CharSpan> {
    (0u32..500, 0u32..50).prop_map(|(start, len)| CharSpan {
        start,
        end: start + len,
    })
}

fn entity() -> impl Strategy<Value = EntitySpan> {
    (text(), 0u32..40, 1u32..5, option::of(text())).prop_map(|(text, start, len, entity_type)| {
        EntitySpan {
            text,
            start,
            end: start + len,
            entity_type,
        }
    })
}

fn example() -> impl Strategy<Value = Example> {
    let texts = (
        text(),
        task(),
        option::of(text()),
        option::of(text()),
        option::of(text()),
        option::of(text()),
    );
    let more = (
        option::of(text()),
        option::of(text()),
        option::of(vec(
            (text(), option::of(0u32..1000)).prop_map(|(text, start)| Answer { text, start }),
            0..3,
        )),
        option::of(any::<bool>()),
        option::of(vec(text(), 0..5)),
        option::of(entity()),
        option::of(entity()),
    );
    let rest = (
        option::of(vec(vec(span(), 1..3), 0..3)),
        option::of(vec(text(), 0..3)),
        option::of(vec(text(), 0..3)),
    );
    (texts, more, rest).prop_map(
        |(
            (id, task, origin, title, context, question),
            (text, text_b, answers, is_impossible, tokens, head, tail),
            (clusters, steps, operators),
        )| Example {
            id,
            task,
            origin,
            title,
            context,
            question,
            text,
            text_b,
            label: None,
            answers,
            is_impossible,
            tokens,
            head,
            tail,
            clusters,
            steps,
            operators,
        },
    )
}

fn expectation() -> impl Strategy<Value = Expectation> {
    prop_oneof![
        Just(Expectation::Equal),
        Just(Expectation::Inverted),
        text().prop_map(|label| Expectation::LabelIs { label }),
        (0.0f32..1.0).prop_map(|threshold| Expectation::SameAnswer {
            metric: metamorph_data::AnswerMetric::F1,
            threshold
        }),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        text(),
        vec(example(), 1..3),
        example(),
        expectation(),
        option::of(text()),
        vec((text(), 0u32..100, 0u32..10, text(), text()), 0..3),
        any::<u64>(),
    )
        .prop_map(
            |(mr, sources, mut followup, expectation, pre_label, edits, seed)| {
                let case_id = format!("{}:{mr}:0", sources[0].id);
                followup.id = case_id.clone();
                let mut case = Case {
                    case_id,
                    family: "mt4mrc".into(),
                    mr,
                    source_ids: sources.iter().map(|s| s.id.clone()).collect(),
                    sources,
                    followup,
                    expectation_json: String::new(),
                    precondition_json: None,
                    edits: edits
                        .into_iter()
                        .map(|(field, start, len, before, after)| Edit {
                            field,
                            start,
                            end: start + len,
                            before,
                            after,
                        })
                        .collect(),
                    seed,
                    generation_json: None,
                    validity: None,
                    built_from: (seed % 3 == 0).then(|| format!("built from {seed}")),
                };
                case.set_expectation(&expectation);
                // Half the cases still wait for the generate stage.
                if seed % 2 == 0 {
                    case.set_generation(Some(&GenerationRequest::Question {
                        steps: vec!["return touchdowns".into(), "return number of #1".into()],
                        field: "question".into(),
                        original: None,
                        detail: None,
                    }));
                }
                case.set_precondition(
                    pre_label
                        .map(|label| Precondition::SourceLabelIs { source: 0, label })
                        .as_ref(),
                );
                case
            },
        )
}

fn prediction() -> impl Strategy<Value = Prediction> {
    (
        text(),
        task(),
        option::of(text()),
        option::of(vec(
            (text(), 0.0f32..1.0).prop_map(|(label, prob)| LabelProb { label, prob }),
            0..3,
        )),
        option::of((
            text(),
            option::of(0u32..100),
            option::of(0u32..100),
            option::of(-5.0f32..5.0),
        )),
        option::of(vec(vec(span(), 1..3), 0..2)),
        option::of(text()),
        0.0f32..1e4,
    )
        .prop_map(
            |(example_id, task, label, probabilities, answer, clusters, generated, latency_ms)| {
                Prediction {
                    example_id,
                    model: "m".into(),
                    task,
                    label,
                    probabilities,
                    answer: answer.map(|(text, start, end, score)| AnswerSpan {
                        text,
                        start,
                        end,
                        score,
                    }),
                    clusters,
                    generated,
                    latency_ms,
                }
            },
        )
}

fn verdict() -> impl Strategy<Value = Verdict> {
    (
        text(),
        text(),
        vec(text(), 1..3),
        text(),
        text(),
        any::<bool>(),
        option::of(any::<bool>()),
        text(),
    )
        .prop_map(
            |(
                case_id,
                mr,
                source_ids,
                source_output,
                followup_output,
                applicable,
                holds,
                detail,
            )| Verdict {
                case_id,
                family: "f".into(),
                mr,
                model: "m".into(),
                source_ids,
                source_output,
                followup_output,
                applicable,
                holds,
                detail,
            },
        )
}

fn parsed() -> impl Strategy<Value = ParsedText> {
    let token = (text(), text(), text(), 0u32..50, 0u32..500).prop_map(
        |(text, lemma, tag, head, start)| Token {
            end: start + text.chars().count() as u32,
            text,
            whitespace: " ".into(),
            lemma,
            pos: "NOUN".into(),
            tag,
            morph: "Number=Sing".into(),
            dep: "nsubj".into(),
            head,
            ent_iob: "O".into(),
            ent_type: String::new(),
            start,
        },
    );
    (
        text(),
        text(),
        vec(token, 0..6),
        vec((0u32..5, 0u32..5), 0..3),
        vec((text(), 0u32..5, 0u32..4), 0..4),
    )
        .prop_map(|(id, text, tokens, spans, phrases)| ParsedText {
            id,
            field: "question".into(),
            text,
            tokens,
            sentences: spans
                .iter()
                .map(|&(s, l)| TokenSpan {
                    start: s,
                    end: s + l,
                })
                .collect(),
            noun_chunks: spans
                .iter()
                .map(|&(s, l)| TokenSpan {
                    start: s,
                    end: s + l + 1,
                })
                .collect(),
            phrases: phrases
                .into_iter()
                .map(|(label, start, depth)| Phrase {
                    label,
                    start,
                    end: start + 1,
                    depth,
                })
                .collect(),
        })
}

/// Rows → batch → Parquet file → batch(es) → rows.
fn round_trip<R: Record + PartialEq + std::fmt::Debug + Clone>(rows: &[R]) -> Vec<R> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part.parquet");
    let mut writer = ParquetShardWriter::try_new(&path, R::KIND).unwrap();
    writer.write(&to_batch(rows).unwrap()).unwrap();
    writer.commit().unwrap();
    let mut back = Vec::new();
    for batch in read_shard(&path, ShardSpec::WHOLE, 7).unwrap() {
        let batch = batch.unwrap();
        assert_eq!(RecordKind::of_batch(&batch).unwrap(), R::KIND);
        back.extend(from_batch::<R>(&batch, "test").unwrap());
    }
    back
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn examples_round_trip(rows in vec(example(), 0..12)) {
        prop_assert_eq!(round_trip(&rows), rows);
    }

    #[test]
    fn cases_round_trip(rows in vec(case(), 0..6)) {
        let back = round_trip(&rows);
        for (a, b) in back.iter().zip(&rows) {
            prop_assert_eq!(a.expectation().unwrap(), b.expectation().unwrap());
            prop_assert_eq!(a.precondition().unwrap(), b.precondition().unwrap());
            a.validate().unwrap();
        }
        prop_assert_eq!(back, rows);
    }

    #[test]
    fn predictions_round_trip(rows in vec(prediction(), 0..12)) {
        prop_assert_eq!(round_trip(&rows), rows);
    }

    #[test]
    fn verdicts_round_trip(rows in vec(verdict(), 0..12)) {
        prop_assert_eq!(round_trip(&rows), rows);
    }

    #[test]
    fn parsed_texts_round_trip(rows in vec(parsed(), 0..6)) {
        prop_assert_eq!(round_trip(&rows), rows);
    }

    #[test]
    fn shards_partition_the_rows(rows in vec(example(), 1..40), count in 1usize..5) {
        let batch = to_batch(&rows).unwrap();
        let mut total = 0;
        for i in 0..count {
            let shard = ShardSpec::new(i, count).unwrap();
            let kept = metamorph_data::keep_shard_rows(&batch, RecordKind::Example, shard, "test").unwrap();
            for ex in from_batch::<Example>(&kept, "test").unwrap() {
                prop_assert!(shard.contains(&ex.id));
            }
            total += kept.num_rows();
        }
        prop_assert_eq!(total, rows.len());
    }
}

#[test]
fn reading_a_batch_as_the_wrong_kind_is_an_error() {
    let batch = to_batch(&[Example::new("a", Task::BoolQ)]).unwrap();
    let message = from_batch::<Verdict>(&batch, "somewhere.parquet")
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("somewhere.parquet") && message.contains("expected verdict records"),
        "{message}"
    );
}

#[test]
fn an_uncommitted_writer_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part.parquet");
    {
        let mut writer = ParquetShardWriter::try_new(&path, RecordKind::Example).unwrap();
        writer
            .write(&to_batch(&[Example::new("a", Task::BoolQ)]).unwrap())
            .unwrap();
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_non_parquet_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.parquet");
    std::fs::write(&path, "not parquet").unwrap();
    let message = metamorph_data::file_kind(&path).unwrap_err().to_string();
    assert!(
        message.contains("notes.parquet") && message.contains("not a readable Parquet file"),
        "{message}"
    );
}
