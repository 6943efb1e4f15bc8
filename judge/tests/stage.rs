//! The judge stage accepts predictions and cases in any order.

use std::sync::{Arc, Mutex};

use metamorph_data::{
    from_batch, to_batch, Case, Example, Expectation, Pipeline, Prediction, StageOptions, Task,
    Verdict,
};
use metamorph_judge::JudgeStage;

fn case(i: usize) -> Case {
    let source = Example::new(format!("s{i}"), Task::BoolQ);
    let mut followup = source.clone();
    followup.id = format!("s{i}:MR:0");
    Case::new("f", "MR", vec![source], followup, &Expectation::Equal)
}

fn label(id: &str, label: &str) -> Prediction {
    Prediction {
        label: Some(label.into()),
        ..Prediction::new(id, "m", Task::BoolQ)
    }
}

fn judge(batches: Vec<arrow::array::RecordBatch>) -> metamorph_data::Result<Vec<Verdict>> {
    let verdicts = Arc::new(Mutex::new(Vec::new()));
    let sink = verdicts.clone();
    Pipeline::new(batches.into_iter().map(Ok))
        .progress(false)
        .stage(Arc::new(JudgeStage::new()), StageOptions::default(), None)
        .sink(move |b| {
            sink.lock()
                .unwrap()
                .extend(from_batch::<Verdict>(&b, "sink")?);
            Ok(())
        })
        .run()?;
    let mut v = verdicts.lock().unwrap().clone();
    v.sort_by(|a, b| a.case_id.cmp(&b.case_id));
    Ok(v)
}

#[test]
fn cases_wait_for_their_predictions() {
    let cases = to_batch(&[case(0), case(1)]).unwrap();
    let first = to_batch(&[
        label("s0", "yes"),
        label("s0:MR:0", "yes"),
        label("s1", "no"),
    ])
    .unwrap();
    let second = to_batch(&[label("s1:MR:0", "yes")]).unwrap();
    for order in [
        vec![cases.clone(), first.clone(), second.clone()],
        vec![first, second, cases],
    ] {
        let verdicts = judge(order).unwrap();
        let holds: Vec<Option<bool>> = verdicts.iter().map(|v| v.holds).collect();
        assert_eq!(holds, vec![Some(true), Some(false)]);
    }
}

#[test]
fn a_case_without_predictions_fails_at_the_end() {
    let message = judge(vec![to_batch(&[case(7)]).unwrap()])
        .unwrap_err()
        .to_string();
    assert!(message.contains("s7:MR:0"), "{message}");
}

#[test]
fn models_are_expected_only_for_the_tasks_they_answer() {
    // "m" answers BoolQ only, "re" relation extraction only: each task's case gets one verdict.
    let relation_case = {
        let source = Example::new("r0", Task::Relation);
        let mut followup = source.clone();
        followup.id = "r0:MR:0".into();
        Case::new("f", "MR", vec![source], followup, &Expectation::Equal)
    };
    let re = |id: &str, l: &str| Prediction {
        label: Some(l.into()),
        ..Prediction::new(id, "re", Task::Relation)
    };
    let predictions = to_batch(&[
        label("s0", "yes"),
        label("s0:MR:0", "no"),
        re("r0", "per:spouse"),
        re("r0:MR:0", "per:spouse"),
    ])
    .unwrap();
    let cases = to_batch(&[case(0), relation_case]).unwrap();
    let verdicts = judge(vec![predictions, cases]).unwrap();
    let got: Vec<(&str, &str, Option<bool>)> = verdicts
        .iter()
        .map(|v| (v.case_id.as_str(), v.model.as_str(), v.holds))
        .collect();
    assert_eq!(
        got,
        vec![("r0:MR:0", "re", Some(true)), ("s0:MR:0", "m", Some(false))]
    );
}
