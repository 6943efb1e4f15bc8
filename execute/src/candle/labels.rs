//! Model labels (`id2label`) → the labels each task's records use.
//!
//! The judge compares predictions with the task's own vocabulary: BoolQ `yes`/`no`, paraphrase
//! `1`/`0`, sentiment `positive`/`negative`/`neutral`/`mixed`. Checkpoints name their classes
//! freely, so a [`LabelMap`] translates:
//!
//! 1. an entry of the configured `label_map` table (exact model label) replaces the label by
//!    a word of the table's choosing, read like a model label in step 2 (so one table serves
//!    several tasks: `entailment = "yes"` is `yes` for BoolQ and `1` for paraphrase);
//! 2. the built-in reading, compared case-insensitively with `-` and spaces read as `_`:
//!    * BoolQ: `yes`/`true`/`1` → `yes`, `no`/`false`/`0` → `no`;
//!    * paraphrase: `1`/`yes`/`true`/`paraphrase`/`duplicate`/`equivalent` → `1`, `0`/`no`/
//!      `false`/`not_paraphrase`/`not_duplicate`/`not_equivalent` → `0`;
//!    * sentiment: `positive`/`pos`, `negative`/`neg`, `neutral`/`neu`, `mixed`;
//!    * for every task, a two-class model's anonymous `LABEL_0`/`LABEL_1` (transformers' default
//!      names) read as the task's negative/positive class (`no`/`yes`, `0`/`1`,
//!      `negative`/`positive`), the convention of the BoolQ, QQP/MRPC and SST-2 fine-tunes;
//!      with more classes `LABEL_n` means nothing and needs the table.
//! 3. else the model cannot answer the task: an error names the label and the task.
//!
//! Relation labels are open-ended (TACRED's `per:employee_of`, Wikidata's `P108`, …): a
//! relation model's labels are kept as they are, after the table.
//!
//! Several model labels may map to one task label (an NLI model as a paraphrase model:
//! entailment → `1`, neutral and contradiction → `0`); their probabilities are summed and the
//! predicted label is the likeliest task label (the first in `id2label` order on ties).

use std::collections::BTreeMap;

use metamorph_data::{LabelProb, Task};

/// Translates model labels into task labels (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelMap {
    table: BTreeMap<String, String>,
}

impl LabelMap {
    /// The built-in readings after `table` (model label → a word they read).
    pub fn new(table: BTreeMap<String, String>) -> Self {
        LabelMap { table }
    }

    /// The task label of every model label, in `id2label` order.
    ///
    /// # Errors
    /// A message naming the first model label with no meaning for `task`.
    pub fn for_task(&self, task: Task, labels: &[String]) -> Result<Vec<String>, String> {
        labels
            .iter()
            .map(|label| {
                let word = self.table.get(label).unwrap_or(label);
                if task == Task::Relation {
                    return Ok(word.clone());
                }
                builtin(task, word, labels.len())
                    .map(str::to_string)
                    .ok_or_else(|| {
                        let via = if word == label {
                            String::new()
                        } else {
                            format!(" (`{word}` by `label_map`)")
                        };
                        format!(
                            "the model's label `{label}`{via} (of [{}]) has no meaning for task \
                             `{task}`; map it with `label_map = {{ \"{label}\" = \"…\" }}`",
                            labels.join(", ")
                        )
                    })
            })
            .collect()
    }
}

/// The built-in task label of `label` for `task` (a model with `classes` labels).
fn builtin(task: Task, label: &str, classes: usize) -> Option<&'static str> {
    let key = label.trim().to_lowercase().replace(['-', ' '], "_");
    let (negative, positive) = match task {
        Task::BoolQ => ("no", "yes"),
        Task::Paraphrase => ("0", "1"),
        Task::Sentiment => ("negative", "positive"),
        _ => return None,
    };
    match key.as_str() {
        "label_0" if classes == 2 => return Some(negative),
        "label_1" if classes == 2 => return Some(positive),
        _ => {}
    }
    match (task, key.as_str()) {
        (Task::BoolQ, "yes" | "true" | "1") => Some("yes"),
        (Task::BoolQ, "no" | "false" | "0") => Some("no"),
        (Task::Paraphrase, "1" | "yes" | "true" | "paraphrase" | "duplicate" | "equivalent") => {
            Some("1")
        }
        (
            Task::Paraphrase,
            "0" | "no" | "false" | "not_paraphrase" | "not_duplicate" | "not_equivalent",
        ) => Some("0"),
        (Task::Sentiment, "positive" | "pos") => Some("positive"),
        (Task::Sentiment, "negative" | "neg") => Some("negative"),
        (Task::Sentiment, "neutral" | "neu") => Some("neutral"),
        (Task::Sentiment, "mixed") => Some("mixed"),
        _ => None,
    }
}

/// Sums the probabilities of model classes per task label (`mapped[i]` is class `i`'s task
/// label), in order of first appearance, and picks the likeliest (first on ties).
pub fn combine(mapped: &[String], probs: &[f32]) -> (String, Vec<LabelProb>) {
    let mut out: Vec<LabelProb> = Vec::new();
    for (label, &prob) in mapped.iter().zip(probs) {
        match out.iter_mut().find(|p| &p.label == label) {
            Some(p) => p.prob += prob,
            None => out.push(LabelProb {
                label: label.clone(),
                prob,
            }),
        }
    }
    let best = out
        .iter()
        .fold(None::<&LabelProb>, |best, p| match best {
            Some(b) if b.prob >= p.prob => Some(b),
            _ => Some(p),
        })
        .map(|p| p.label.clone())
        .unwrap_or_default();
    (best, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn builtin_readings_per_task() {
        let map = LabelMap::default();
        assert_eq!(
            map.for_task(Task::BoolQ, &labels(&["False", "True"]))
                .unwrap(),
            ["no", "yes"]
        );
        assert_eq!(
            map.for_task(Task::BoolQ, &labels(&["LABEL_0", "LABEL_1"]))
                .unwrap(),
            ["no", "yes"]
        );
        assert_eq!(
            map.for_task(Task::Paraphrase, &labels(&["not_equivalent", "equivalent"]))
                .unwrap(),
            ["0", "1"]
        );
        assert_eq!(
            map.for_task(Task::Sentiment, &labels(&["NEGATIVE", "POSITIVE"]))
                .unwrap(),
            ["negative", "positive"]
        );
        assert_eq!(
            map.for_task(
                Task::Sentiment,
                &labels(&["negative", "Neutral", "positive"])
            )
            .unwrap(),
            ["negative", "neutral", "positive"]
        );
    }

    #[test]
    fn unknown_labels_are_named_and_the_table_wins() {
        let map = LabelMap::default();
        // Three anonymous classes mean nothing without a table.
        let three = labels(&["LABEL_0", "LABEL_1", "LABEL_2"]);
        let message = map.for_task(Task::Sentiment, &three).unwrap_err();
        assert!(
            message.contains("`LABEL_0`") && message.contains("sentiment"),
            "{message}"
        );
        let nli = labels(&["entailment", "neutral", "contradiction"]);
        assert!(map
            .for_task(Task::Paraphrase, &nli)
            .unwrap_err()
            .contains("`entailment`"));
        let table = LabelMap::new(BTreeMap::from([
            ("entailment".to_string(), "1".to_string()),
            ("neutral".to_string(), "0".to_string()),
            ("contradiction".to_string(), "0".to_string()),
        ]));
        let mapped = table.for_task(Task::Paraphrase, &nli).unwrap();
        assert_eq!(mapped, ["1", "0", "0"]);
        // One table serves several tasks; it overrides a built-in reading.
        let yes_no = LabelMap::new(BTreeMap::from([
            ("entailment".to_string(), "yes".to_string()),
            ("neutral".to_string(), "no".to_string()),
            ("contradiction".to_string(), "no".to_string()),
        ]));
        assert_eq!(
            yes_no.for_task(Task::BoolQ, &nli).unwrap(),
            ["yes", "no", "no"]
        );
        assert_eq!(
            yes_no.for_task(Task::Paraphrase, &nli).unwrap(),
            ["1", "0", "0"]
        );
        let message = yes_no.for_task(Task::Sentiment, &nli).unwrap_err();
        assert!(
            message.contains("`entailment` (`yes` by `label_map`)"),
            "{message}"
        );
        let flipped = LabelMap::new(BTreeMap::from([("LABEL_0".to_string(), "yes".to_string())]));
        assert_eq!(
            flipped
                .for_task(Task::BoolQ, &labels(&["LABEL_0", "LABEL_1"]))
                .unwrap(),
            ["yes", "yes"]
        );
    }

    #[test]
    fn relation_labels_are_kept() {
        let map = LabelMap::new(BTreeMap::from([(
            "LABEL_0".to_string(),
            "no_relation".to_string(),
        )]));
        assert_eq!(
            map.for_task(Task::Relation, &labels(&["LABEL_0", "per:employee_of"]))
                .unwrap(),
            ["no_relation", "per:employee_of"]
        );
    }

    #[test]
    fn probabilities_of_one_task_label_are_summed() {
        let mapped = labels(&["1", "0", "0"]);
        let (label, probs) = combine(&mapped, &[0.4, 0.35, 0.25]);
        assert_eq!(label, "0");
        assert_eq!(probs.len(), 2);
        assert_eq!(probs[0].label, "1");
        assert!((probs[1].prob - 0.6).abs() < 1e-6);
        let (label, _) = combine(&labels(&["no", "yes"]), &[0.5, 0.5]);
        assert_eq!(label, "no");
    }
}
