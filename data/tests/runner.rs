//! The stage runner: ordering of work, pass-through, backpressure, failure and cancellation.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow::array::RecordBatch;
use metamorph_data::{
    from_batch, to_batch, CancelToken, Emitter, Error, Example, Pipeline, RecordKind, Result,
    Stage, StageOptions, Task,
};

fn batches(n: usize, rows: usize) -> Vec<RecordBatch> {
    (0..n)
        .map(|b| {
            let examples: Vec<Example> = (0..rows)
                .map(|r| {
                    let mut ex = Example::new(format!("{b}-{r}"), Task::BoolQ);
                    ex.question = Some(format!("question {b} {r}"));
                    ex
                })
                .collect();
            to_batch(&examples).unwrap()
        })
        .collect()
}

/// Appends a suffix to every question; fails on the batch whose first id is `fail_on`.
struct Suffix {
    name: &'static str,
    suffix: &'static str,
    fail_on: Option<String>,
    delay: Duration,
}

impl Suffix {
    fn new(name: &'static str, suffix: &'static str) -> Self {
        Suffix {
            name,
            suffix,
            fail_on: None,
            delay: Duration::ZERO,
        }
    }
}

impl Stage for Suffix {
    fn name(&self) -> &str {
        self.name
    }
    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Example]
    }
    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Example]
    }
    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        std::thread::sleep(self.delay);
        let mut examples: Vec<Example> = from_batch(&batch, "test")?;
        if self.fail_on.as_deref() == examples.first().map(|e| e.id.as_str()) {
            return Err(Error::Config(format!("cannot handle {}", examples[0].id)));
        }
        for ex in &mut examples {
            ex.question.as_mut().unwrap().push_str(self.suffix);
        }
        emit.emit(to_batch(&examples)?)
    }
}

/// Reads only cases; everything else must pass through it.
struct CasesOnly(AtomicUsize);

impl Stage for CasesOnly {
    fn name(&self) -> &str {
        "cases-only"
    }
    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Case]
    }
    fn produces(&self) -> &[RecordKind] {
        &[]
    }
    fn process(&self, _batch: RecordBatch, _emit: &mut Emitter<'_>) -> Result<()> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

fn collect_sink() -> (
    Arc<Mutex<Vec<Example>>>,
    impl FnMut(RecordBatch) -> Result<()> + Send + 'static,
) {
    let out = Arc::new(Mutex::new(Vec::new()));
    let sink_out = out.clone();
    (out, move |batch: RecordBatch| {
        sink_out
            .lock()
            .unwrap()
            .extend(from_batch::<Example>(&batch, "sink")?);
        Ok(())
    })
}

#[test]
fn stages_run_in_order_and_unread_kinds_pass_through() {
    let (out, sink) = collect_sink();
    let cases_only = Arc::new(CasesOnly(AtomicUsize::new(0)));
    let report = Pipeline::new(batches(20, 5).into_iter().map(Ok))
        .progress(false)
        .stage(
            Arc::new(Suffix::new("a", " A")),
            StageOptions::default(),
            None,
        )
        .stage(cases_only.clone(), StageOptions::default(), None)
        .stage(
            Arc::new(Suffix::new("b", " B")),
            StageOptions {
                workers: 3,
                capacity: 2,
            },
            None,
        )
        .sink(sink)
        .run()
        .unwrap();
    let out = out.lock().unwrap();
    assert_eq!(out.len(), 100);
    assert!(out
        .iter()
        .all(|e| e.question.as_deref().unwrap().ends_with(" A B")));
    assert_eq!(cases_only.0.load(Ordering::Relaxed), 0);
    assert_eq!(report.source_rows, 100);
    assert_eq!(report.stages[0].rows_out, 100);
    assert_eq!(report.stages[1].rows_in, 100);
}

#[test]
fn the_first_error_stops_everything_and_names_the_stage() {
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = pulled.clone();
    let source = batches(1000, 2).into_iter().map(move |b| {
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(b)
    });
    let failing = Suffix {
        fail_on: Some("5-0".into()),
        ..Suffix::new("tokenize", "")
    };
    let error = Pipeline::new(source)
        .progress(false)
        .source_capacity(1)
        .stage(
            Arc::new(failing),
            StageOptions {
                workers: 1,
                capacity: 1,
            },
            None,
        )
        .stage(
            Arc::new(Suffix::new("b", "")),
            StageOptions {
                workers: 1,
                capacity: 1,
            },
            None,
        )
        .run()
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("stage `tokenize`") && message.contains("cannot handle 5-0"),
        "{message}"
    );
    // Backpressure: the source was stopped long before reading all 1000 batches.
    assert!(
        pulled.load(Ordering::Relaxed) < 20,
        "pulled {}",
        pulled.load(Ordering::Relaxed)
    );
}

#[test]
fn a_source_error_is_reported_as_the_read_stage() {
    let source = batches(3, 1)
        .into_iter()
        .map(Ok)
        .chain(std::iter::once(Err(Error::malformed(
            "data.jsonl",
            "line 4",
            "question",
            "missing",
        ))));
    let message = Pipeline::new(source)
        .progress(false)
        .stage(
            Arc::new(Suffix::new("a", "")),
            StageOptions::default(),
            None,
        )
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("stage `read`") && message.contains("data.jsonl:line 4"),
        "{message}"
    );
}

#[test]
fn cancellation_interrupts_the_run() {
    let token = CancelToken::new();
    let trigger = token.clone();
    let source = batches(10_000, 1)
        .into_iter()
        .enumerate()
        .map(move |(i, b)| {
            if i == 10 {
                trigger.cancel();
            }
            Ok(b)
        });
    let slow = Suffix {
        delay: Duration::from_millis(1),
        ..Suffix::new("slow", "")
    };
    let error = Pipeline::new(source)
        .progress(false)
        .cancel_token(token)
        .stage(Arc::new(slow), StageOptions::default(), None)
        .run()
        .unwrap_err();
    assert!(error.is_interrupted(), "{error}");
}

#[test]
fn the_tap_sees_exactly_what_the_stage_produces() {
    let tapped = Arc::new(AtomicUsize::new(0));
    let counter = tapped.clone();
    let tap: metamorph_data::runner::Tap = Box::new(move |kind, batch| {
        assert_eq!(kind, RecordKind::Example);
        counter.fetch_add(batch.num_rows(), Ordering::Relaxed);
        Ok(())
    });
    Pipeline::new(batches(7, 3).into_iter().map(Ok))
        .progress(false)
        .stage(
            Arc::new(Suffix::new("a", "")),
            StageOptions::default(),
            Some(tap),
        )
        .run()
        .unwrap();
    assert_eq!(tapped.load(Ordering::Relaxed), 21);
}
