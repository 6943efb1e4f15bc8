//! The perturb stage joins `parsed` rows to their examples whatever the order they arrive in,
//! and counts sources, eligible sources, cases and sources left unparsed per relation.

use std::sync::{Arc, Mutex};

use metamorph_data::{
    from_batch, to_batch, Case, Example, Expectation, ParsedText, Pipeline, StageOptions, Task,
    Token, TokenSpan,
};
use metamorph_perturb::{MetamorphicRelation, PerturbStage, Source};

/// A relation that needs the question's parse and reports its first token's lemma.
struct FirstLemma;

impl MetamorphicRelation for FirstLemma {
    fn family(&self) -> &'static str {
        "test"
    }
    fn name(&self) -> &'static str {
        "FIRST-LEMMA"
    }
    fn tasks(&self) -> &'static [Task] {
        &[Task::BoolQ]
    }
    fn parsed_fields(&self) -> &'static [&'static str] {
        &["question"]
    }
    fn follow_ups(&self, source: &Source<'_>) -> metamorph_data::Result<Vec<Case>> {
        let Some(parse) = source.parse("question") else {
            return Ok(Vec::new());
        };
        let mut followup = source.example.clone();
        followup.id = format!("{}:{}", source.example.id, parse.tokens[0].lemma);
        Ok(vec![Case::new(
            "test",
            "FIRST-LEMMA",
            vec![source.example.clone()],
            followup,
            &Expectation::Equal,
        )])
    }
}

fn example(id: &str, question: &str) -> Example {
    let mut e = Example::new(id, Task::BoolQ);
    e.question = Some(question.into());
    e
}

/// A one-token "parse" whose lemma is the upper-cased word.
fn parsed(id: &str, question: &str) -> ParsedText {
    let word = question.split(' ').next().unwrap();
    ParsedText {
        id: id.into(),
        field: "question".into(),
        text: question.into(),
        tokens: vec![Token {
            text: word.into(),
            whitespace: String::new(),
            lemma: word.to_uppercase(),
            pos: "AUX".into(),
            tag: "VBZ".into(),
            morph: String::new(),
            dep: "ROOT".into(),
            head: 0,
            ent_iob: "O".into(),
            ent_type: String::new(),
            start: 0,
            end: word.chars().count() as u32,
        }],
        sentences: vec![TokenSpan { start: 0, end: 1 }],
        noun_chunks: vec![],
        phrases: vec![],
    }
}

fn run(
    batches: Vec<arrow::array::RecordBatch>,
    expect_parses: bool,
) -> (Vec<String>, metamorph_perturb::RelationCounts) {
    let stage = Arc::new(PerturbStage::from_relations(
        vec![Box::new(FirstLemma)],
        expect_parses,
    ));
    let ids = Arc::new(Mutex::new(Vec::new()));
    let sink = ids.clone();
    Pipeline::new(batches.into_iter().map(Ok))
        .progress(false)
        .stage(stage.clone(), StageOptions::default(), None)
        .sink(move |b| {
            for case in from_batch::<Case>(&b, "sink")? {
                sink.lock().unwrap().push(case.case_id);
            }
            Ok(())
        })
        .run()
        .unwrap();
    let mut ids = ids.lock().unwrap().clone();
    ids.sort();
    (ids, stage.counts().remove(0))
}

#[test]
fn parses_join_examples_in_either_order() {
    let examples = to_batch(&[example("a", "is it"), example("b", "does it")]).unwrap();
    let parses = to_batch(&[parsed("a", "is it"), parsed("b", "does it")]).unwrap();
    for order in [
        vec![parses.clone(), examples.clone()],
        vec![examples.clone(), parses.clone()],
    ] {
        let (ids, counts) = run(order, true);
        assert_eq!(ids, ["a:IS", "b:DOES"]);
        assert_eq!(
            (
                counts.sources,
                counts.eligible,
                counts.cases,
                counts.unparsed
            ),
            (2, 2, 2, 0)
        );
    }
}

#[test]
fn examples_without_parses_are_counted_not_lost() {
    let examples = to_batch(&[example("a", "is it"), example("b", "does it")]).unwrap();
    let parses = to_batch(&[parsed("a", "is it")]).unwrap();
    // Expecting parses: "b" waits for one until the end, then is counted as unparsed.
    let (ids, counts) = run(vec![examples.clone(), parses], true);
    assert_eq!(ids, ["a:IS"]);
    assert_eq!((counts.sources, counts.cases, counts.unparsed), (2, 1, 1));
    // Not expecting parses (no parse stage): nothing waits.
    let (ids, counts) = run(vec![examples], false);
    assert!(ids.is_empty());
    assert_eq!((counts.sources, counts.unparsed), (2, 2));
    // A parse of different text (an edited field) does not count as the field's parse.
    let stale = to_batch(&[parsed("a", "was it")]).unwrap();
    let (ids, counts) = run(
        vec![stale, to_batch(&[example("a", "is it")]).unwrap()],
        true,
    );
    assert!(ids.is_empty());
    assert_eq!(counts.unparsed, 1);
}
