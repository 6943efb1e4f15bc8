//! The violations a person should look at first: per MR × model, a few violated cases joined
//! with their source and follow-up inputs, edits located in both, and the expectation in words.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use metamorph_data::{
    from_batch, read_shard, AnswerMetric, Case, Example, Expectation, Precondition, Result,
    ShardSpec, Verdict,
};
use serde::{Deserialize, Serialize};

use crate::summary::RelationValidity;

/// Examples kept per (family, MR, model) by default.
pub const EXAMPLES_PER_RELATION: usize = 3;

/// One text field of a violated case, source beside follow-up, with the edited character
/// ranges (`[start, end)`, code points) located in each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldPair {
    /// The field (`question`, `context`, …).
    pub field: String,
    /// The source's text.
    pub source: String,
    /// The follow-up's text.
    pub followup: String,
    /// Edited ranges in the source (the replaced text). For a case without recorded edits,
    /// the range between the longest common prefix and suffix.
    pub source_spans: Vec<[usize; 2]>,
    /// The same edits in the follow-up (the replacement text).
    pub followup_spans: Vec<[usize; 2]>,
}

/// A violated case, ready to show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViolationExample {
    /// MR family.
    pub family: String,
    /// The relation.
    pub mr: String,
    /// The model under test.
    pub model: String,
    /// The case.
    pub case_id: String,
    /// Its source examples.
    pub source_ids: Vec<String>,
    /// The edited fields (or, for a case without edits, every text field that differs).
    pub fields: Vec<FieldPair>,
    /// Unedited text fields of the follow-up (e.g. the passage of a question edit).
    pub unchanged: Vec<(String, String)>,
    /// The model's output on the source.
    pub source_output: String,
    /// The model's output on the follow-up.
    pub followup_output: String,
    /// What the relation promised, in words (empty when the case was not found).
    pub expectation: String,
    /// The judge's detail line.
    pub detail: String,
    /// Characters changed by the edits (`usize::MAX` when the case was not found).
    pub edit_chars: usize,
}

/// Text fields shown, in this order.
const FIELDS: [&str; 5] = ["title", "question", "context", "text", "text_b"];

fn field<'a>(example: &'a Example, name: &str) -> Option<&'a str> {
    match name {
        "title" => example.title.as_deref(),
        "question" => example.question.as_deref(),
        "context" => example.context.as_deref(),
        "text" => example.text.as_deref(),
        "text_b" => example.text_b.as_deref(),
        _ => None,
    }
}

/// Reads the cases of `files` whose id is in `wanted`.
///
/// # Errors
/// Unreadable files or files of another record kind.
pub fn read_cases(files: &[PathBuf], wanted: &HashSet<&str>) -> Result<HashMap<String, Case>> {
    let mut out = HashMap::new();
    for path in files {
        for batch in read_shard(path, ShardSpec::WHOLE, 1024)? {
            for case in from_batch::<Case>(&batch?, &path.display().to_string())? {
                if wanted.contains(case.case_id.as_str()) {
                    out.insert(case.case_id.clone(), case);
                }
            }
        }
    }
    Ok(out)
}

/// The ids of violated cases: the only cases the examples need.
pub fn violated_ids(verdicts: &[Verdict]) -> HashSet<&str> {
    verdicts
        .iter()
        .filter(|v| v.applicable && v.holds == Some(false))
        .map(|v| v.case_id.as_str())
        .collect()
}

/// How instructive a violated case is, as far as its inputs tell (smaller first): the
/// selection's sort key after "one per source".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CaseRank {
    /// Characters changed: Σ max(|before|, |after|) over the edits (for a case without edits,
    /// the differing middle of each field).
    pub edit_chars: usize,
    /// Length of the edited fields in the follow-up.
    pub text_chars: usize,
}

/// The rank of a case (see [`choose_violations`]).
pub fn case_rank(case: &Case) -> CaseRank {
    Inputs::of(case).rank()
}

/// What one pass over the case files keeps: ranks of the wanted cases, and each relation's
/// expectation in words.
#[derive(Clone, Debug, Default)]
pub struct CaseScan {
    /// Rank of each wanted case, by case id.
    pub ranks: HashMap<String, CaseRank>,
    /// (family, MR) → the expectation in words, from its first case; prefixed with "e.g." when
    /// its cases promise different things (e.g. a label that depends on the source).
    pub expectations: BTreeMap<(String, String), String>,
    /// Each case's validity by case id (see [`CaseScan::note_validity`]).
    pub validity: HashMap<String, CaseValidity>,
}

/// What the validity step said of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseValidity {
    /// MR family.
    pub family: String,
    /// The relation.
    pub mr: String,
    /// Its validity (`None`: not checked).
    pub validity: Option<metamorph_data::Validity>,
    /// Read from a `rejected` file.
    pub rejected: bool,
}

impl CaseScan {
    /// Records a case's validity. A case met twice (a run whose output holds the cases both
    /// before and after validation, as a cluster run's may) keeps the checked record.
    pub fn note_validity(&mut self, case: &Case, rejected: bool) {
        match self.validity.get(&case.case_id) {
            Some(seen) if seen.validity.is_some() || case.validity.is_none() => {}
            _ => {
                self.validity.insert(
                    case.case_id.clone(),
                    CaseValidity {
                        family: case.family.clone(),
                        mr: case.mr.clone(),
                        validity: case.validity.clone(),
                        rejected,
                    },
                );
            }
        }
    }

    /// Per relation, what the validity step did; and the cases judged although they failed
    /// it (`mode = "flag"`).
    pub fn validity_tally(&self) -> (Vec<RelationValidity>, HashSet<String>) {
        let mut per: BTreeMap<(&str, &str), RelationValidity> = BTreeMap::new();
        let mut invalid = HashSet::new();
        for (id, c) in &self.validity {
            per.entry((c.family.as_str(), c.mr.as_str()))
                .or_insert_with(|| RelationValidity {
                    family: c.family.clone(),
                    mr: c.mr.clone(),
                    ..RelationValidity::default()
                })
                .add(c.validity.as_ref(), c.rejected);
            if !c.rejected && c.validity.as_ref().is_some_and(|v| !v.passed) {
                invalid.insert(id.clone());
            }
        }
        (per.into_values().collect(), invalid)
    }
}

/// Scans the cases of `files`: ranks of those whose id is in `wanted` and each relation's
/// expectation, keeping nothing else; the first of the two passes over the case files, so that
/// only the chosen cases are ever held whole.
///
/// # Errors
/// Unreadable files or files of another record kind.
pub fn scan_cases(files: &[PathBuf], wanted: &HashSet<&str>) -> Result<CaseScan> {
    let mut scan = CaseScan::default();
    // (family, MR) → (first case's expectation JSON, precondition JSON, varies)
    let mut seen: HashMap<(String, String), (String, Option<String>, bool)> = HashMap::new();
    for path in files {
        for batch in read_shard(path, ShardSpec::WHOLE, 1024)? {
            for case in from_batch::<Case>(&batch?, &path.display().to_string())? {
                if wanted.contains(case.case_id.as_str()) {
                    scan.ranks.insert(case.case_id.clone(), case_rank(&case));
                }
                let key = (case.family.clone(), case.mr.clone());
                scan.note_validity(&case, false);
                match seen.get_mut(&key) {
                    Some((x, p, varies)) => {
                        *varies |= *x != case.expectation_json || *p != case.precondition_json;
                    }
                    None => {
                        let words = match (case.expectation(), case.precondition()) {
                            (Ok(x), Ok(p)) => describe(&x, p.as_ref()),
                            _ => format!("(unreadable expectation: {})", case.expectation_json),
                        };
                        scan.expectations.insert(key.clone(), words);
                        seen.insert(key, (case.expectation_json, case.precondition_json, false));
                    }
                }
            }
        }
    }
    for (key, (_, _, varies)) in seen {
        if varies {
            if let Some(words) = scan.expectations.get_mut(&key) {
                *words = format!("e.g. {words}");
            }
        }
    }
    Ok(scan)
}

/// Up to `per_relation` violations per (family, MR, model), most instructive first.
///
/// The order is deterministic and means:
/// 1. **one example per source first**: a second violation of an already shown source is taken
///    only when no unseen source is left, so that the examples show different inputs;
/// 2. **fewest characters edited** (Σ max(|before|, |after|) over the edits): a minimal pair,
///    where a one-word change breaks the relation, is the clearest evidence of a defect;
/// 3. **shortest edited text** (the edited fields' follow-up length): it reads in seconds;
/// 4. **case id**: a stable tie-break, so the same run always shows the same examples.
///
/// Violations whose case has no rank (not found) come last (nothing to show but the outputs).
/// Results are grouped by (family, MR, model) in sorted order.
pub fn choose_violations<'a>(
    verdicts: &'a [Verdict],
    ranks: &HashMap<String, CaseRank>,
    per_relation: usize,
) -> Vec<&'a Verdict> {
    let mut groups: BTreeMap<(&str, &str, &str), Vec<&Verdict>> = BTreeMap::new();
    for v in verdicts
        .iter()
        .filter(|v| v.applicable && v.holds == Some(false))
    {
        groups
            .entry((&v.family, &v.mr, &v.model))
            .or_default()
            .push(v);
    }
    let mut out = Vec::new();
    for (_, mut candidates) in groups {
        candidates.sort_by(|a, b| {
            let key = |v: &Verdict| {
                let rank = ranks.get(&v.case_id);
                (rank.is_none(), rank.copied())
            };
            key(a).cmp(&key(b)).then_with(|| a.case_id.cmp(&b.case_id))
        });
        let mut seen: HashSet<&str> = HashSet::new();
        let (first, rest): (Vec<_>, Vec<_>) = candidates.into_iter().partition(|v| {
            seen.insert(v.source_ids.first().map(String::as_str).unwrap_or_default())
        });
        out.extend(first.into_iter().chain(rest).take(per_relation));
    }
    out
}

/// [`choose_violations`] with the cases at hand, joined into examples.
pub fn select_examples(
    verdicts: &[Verdict],
    cases: &HashMap<String, Case>,
    per_relation: usize,
) -> Vec<ViolationExample> {
    let ranks: HashMap<String, CaseRank> = cases
        .iter()
        .map(|(id, c)| (id.clone(), case_rank(c)))
        .collect();
    choose_violations(verdicts, &ranks, per_relation)
        .into_iter()
        .map(|v| violation_example(v, cases.get(&v.case_id)))
        .collect()
}

/// A violated case ready to show: `v` joined with its `case` (`None` when the case was not
/// found: the example then shows the outputs only).
pub fn violation_example(v: &Verdict, case: Option<&Case>) -> ViolationExample {
    let mut e = ViolationExample {
        family: v.family.clone(),
        mr: v.mr.clone(),
        model: v.model.clone(),
        case_id: v.case_id.clone(),
        source_ids: v.source_ids.clone(),
        fields: Vec::new(),
        unchanged: Vec::new(),
        source_output: v.source_output.clone(),
        followup_output: v.followup_output.clone(),
        expectation: String::new(),
        detail: v.detail.clone(),
        edit_chars: usize::MAX,
    };
    let Some(case) = case else {
        return e;
    };
    e.expectation = match (case.expectation(), case.precondition()) {
        (Ok(x), Ok(p)) => describe(&x, p.as_ref()),
        _ => format!("(unreadable expectation: {})", case.expectation_json),
    };
    let inputs = Inputs::of(case);
    e.fields = inputs.fields;
    e.unchanged = inputs.unchanged;
    e.edit_chars = inputs.edit_chars;
    e
}

/// The shown text of a case: edited fields with located edits, unedited fields.
struct Inputs {
    fields: Vec<FieldPair>,
    unchanged: Vec<(String, String)>,
    edit_chars: usize,
}

impl Inputs {
    fn of(case: &Case) -> Inputs {
        let mut e = Inputs {
            fields: Vec::new(),
            unchanged: Vec::new(),
            edit_chars: case
                .edits
                .iter()
                .map(|d| d.before.chars().count().max(d.after.chars().count()))
                .sum(),
        };
        let Some(source) = case.sources.first() else {
            return e;
        };
        for name in FIELDS {
            let (Some(s), Some(f)) = (field(source, name), field(&case.followup, name)) else {
                if let Some(f) = field(&case.followup, name) {
                    e.unchanged.push((name.into(), f.into()));
                }
                continue;
            };
            let mut edits: Vec<_> = case.edits.iter().filter(|d| d.field == name).collect();
            if edits.is_empty() && s == f {
                e.unchanged.push((name.into(), f.into()));
                continue;
            }
            if edits.is_empty() {
                // No recorded edit (e.g. a combination MR): mark what lies between the common
                // prefix and the common suffix.
                let (a, b): (Vec<char>, Vec<char>) = (s.chars().collect(), f.chars().collect());
                let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
                let max_suffix = a.len().min(b.len()) - prefix;
                let suffix = a
                    .iter()
                    .rev()
                    .zip(b.iter().rev())
                    .take(max_suffix)
                    .take_while(|(x, y)| x == y)
                    .count();
                e.fields.push(FieldPair {
                    field: name.into(),
                    source: s.into(),
                    followup: f.into(),
                    source_spans: vec![[prefix, a.len() - suffix]],
                    followup_spans: vec![[prefix, b.len() - suffix]],
                });
                continue;
            }
            edits.sort_by_key(|d| d.start);
            let (mut source_spans, mut followup_spans) = (Vec::new(), Vec::new());
            let mut shift: i64 = 0;
            for d in edits {
                let (start, end) = (d.start as usize, d.end as usize);
                let after = d.after.chars().count();
                let f_start = (start as i64 + shift).max(0) as usize;
                source_spans.push([start, end.max(start)]);
                followup_spans.push([f_start, f_start + after]);
                shift += after as i64 - (end.max(start) - start) as i64;
            }
            e.fields.push(FieldPair {
                field: name.into(),
                source: s.into(),
                followup: f.into(),
                source_spans,
                followup_spans,
            });
        }
        if case.edits.is_empty() {
            let len = |spans: &[[usize; 2]]| spans.iter().map(|[a, b]| b - a).sum::<usize>();
            e.edit_chars = e
                .fields
                .iter()
                .map(|f| len(&f.source_spans).max(len(&f.followup_spans)))
                .sum();
        }
        e
    }

    fn rank(&self) -> CaseRank {
        CaseRank {
            edit_chars: self.edit_chars,
            text_chars: self.fields.iter().map(|f| f.followup.chars().count()).sum(),
        }
    }
}

/// The expectation and precondition of a case in words.
///
/// ```
/// use metamorph_data::{Expectation, Precondition};
/// let yes = Precondition::SourceLabelIs { source: 0, label: "yes".into() };
/// assert_eq!(
///     metamorph_judge::describe(&Expectation::Inverted, Some(&yes)),
///     "the follow-up's label differs from the source's (applies when the source is labelled \"yes\")"
/// );
/// ```
pub fn describe(expectation: &Expectation, precondition: Option<&Precondition>) -> String {
    let what = match expectation {
        Expectation::Equal => "the follow-up gets the same label as the source".to_string(),
        Expectation::Inverted => "the follow-up's label differs from the source's".to_string(),
        Expectation::LabelIs { label } => format!("the follow-up is labelled {label:?}"),
        Expectation::MapLabel { map } => {
            let pairs: Vec<String> = map.iter().map(|(a, b)| format!("{a} → {b}")).collect();
            format!(
                "the follow-up's label is the source's mapped by {}",
                pairs.join(", ")
            )
        }
        Expectation::EqualToSource { source } => {
            format!(
                "the follow-up gets the label predicted for {}",
                nth(*source)
            )
        }
        Expectation::SameAnswer { metric, threshold } => match metric {
            AnswerMetric::ExactMatch => {
                "the follow-up's answer is the source's (exact match after SQuAD normalisation)"
                    .to_string()
            }
            AnswerMetric::F1 => {
                format!("the follow-up's answer matches the source's (token F1 ≥ {threshold})")
            }
        },
        Expectation::SameClusters {
            min_precision,
            min_recall,
        } => format!(
            "the follow-up's coreference clusters are the source's (link precision ≥ \
             {min_precision}, recall ≥ {min_recall}, after aligning offsets through the edit)"
        ),
        Expectation::Directional {
            parent,
            part,
            max_rise,
        } => format!(
            "the follow-up is {} with {} inserted: the classes other than the one predicted for \
             {} alone may gain at most {max_rise} probability",
            nth(*parent),
            nth(*part),
            nth(*part)
        ),
        other => format!("{other:?}"),
    };
    match precondition {
        None => what,
        Some(p) => format!("{what} (applies when {})", condition(p)),
    }
}

fn nth(source: usize) -> String {
    if source == 0 {
        "the source".into()
    } else {
        format!("source {}", source + 1)
    }
}

fn condition(p: &Precondition) -> String {
    match p {
        Precondition::SourceLabelIs { source, label } => {
            format!("{} is labelled {label:?}", nth(*source))
        }
        Precondition::SourceLabelIn { source, labels } => {
            format!("{} is labelled one of {}", nth(*source), labels.join(", "))
        }
        Precondition::SourceLabelNotIn { source, labels } => {
            format!("{} is labelled none of {}", nth(*source), labels.join(", "))
        }
        Precondition::All { all } => all.iter().map(condition).collect::<Vec<_>>().join(" and "),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{Edit, Task};

    fn case(id: &str, source: &str, question: &str, edit: (u32, u32, &str, &str)) -> Case {
        let mut s = Example::new(source, Task::BoolQ);
        s.question = Some(question.into());
        s.context = Some("a passage".into());
        let mut f = s.clone();
        f.id = id.into();
        let q: Vec<char> = question.chars().collect();
        let before: String = q[edit.0 as usize..edit.1 as usize].iter().collect();
        assert_eq!(before, edit.2);
        let mut followup: String = q[..edit.0 as usize].iter().collect();
        followup.push_str(edit.3);
        followup.extend(&q[edit.1 as usize..]);
        f.question = Some(followup);
        Case::new("mt4mrc", "MR1-3", vec![s], f, &Expectation::Inverted).with_edits(vec![Edit {
            field: "question".into(),
            start: edit.0,
            end: edit.1,
            before: edit.2.into(),
            after: edit.3.into(),
        }])
    }

    fn violated(id: &str, source: &str) -> Verdict {
        Verdict {
            case_id: id.into(),
            family: "mt4mrc".into(),
            mr: "MR1-3".into(),
            model: "m".into(),
            source_ids: vec![source.into()],
            source_output: "yes".into(),
            followup_output: "yes".into(),
            applicable: true,
            holds: Some(false),
            detail: "expected the label to change".into(),
        }
    }

    #[test]
    fn edits_are_located_in_both_texts() {
        let c = case(
            "c",
            "s",
            "was é built before x",
            (12, 18, "before", "after"),
        );
        let e = violation_example(&violated("c", "s"), Some(&c));
        let q = &e.fields[0];
        assert_eq!(q.followup, "was é built after x");
        assert_eq!(
            (q.source_spans[0], q.followup_spans[0]),
            ([12, 18], [12, 17])
        );
        let chars: String = q.followup.chars().skip(12).take(5).collect();
        assert_eq!(chars, "after");
        assert_eq!(e.unchanged, vec![("context".into(), "a passage".into())]);
        assert!(e.expectation.contains("differs"));
    }

    #[test]
    fn selection_prefers_new_sources_then_small_edits() {
        let cases: HashMap<String, Case> = [
            case("a:1", "a", "is it before noon", (6, 12, "before", "after")),
            case("a:2", "a", "x before", (2, 8, "before", "after")),
            case(
                "b:1",
                "b",
                "a long question asked before all else",
                (22, 28, "before", "after"),
            ),
            case("c:1", "c", "it was before", (7, 13, "before", "after")),
        ]
        .into_iter()
        .map(|c| (c.case_id.clone(), c))
        .collect();
        let verdicts: Vec<Verdict> = ["a:1", "a:2", "b:1", "c:1", "d:1"]
            .iter()
            .map(|id| violated(id, &id[..1]))
            .collect();
        let picked: Vec<String> = select_examples(&verdicts, &cases, 4)
            .into_iter()
            .map(|e| e.case_id)
            .collect();
        // Same edit size: shortest text first; a's second case only after the unseen sources;
        // d has no case and comes last among new sources.
        assert_eq!(picked, ["a:2", "c:1", "b:1", "d:1"]);
        let again: Vec<String> = select_examples(&verdicts, &cases, 4)
            .into_iter()
            .map(|e| e.case_id)
            .collect();
        assert_eq!(picked, again);
    }

    #[test]
    fn without_edits_the_differing_middle_is_marked() {
        let mut c = case("c", "s", "was it before noon", (7, 13, "before", "after"));
        c.edits.clear();
        let e = violation_example(&violated("c", "s"), Some(&c));
        assert_eq!(e.fields[0].source_spans, vec![[7, 13]]);
        assert_eq!(e.fields[0].followup_spans, vec![[7, 12]]);
        assert_eq!(e.edit_chars, 6);
    }

    #[test]
    fn a_scan_ranks_wanted_cases_and_words_every_relation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("case.parquet");
        let label = |k: usize, l: &str| {
            let mut c = case(
                &format!("t{k}"),
                &format!("t{k}"),
                "x before",
                (2, 8, "before", "after"),
            );
            c.mr = "MR-L".into();
            c.set_expectation(&Expectation::LabelIs { label: l.into() });
            c
        };
        let cases = vec![
            case("a:1", "a", "is it before noon", (6, 12, "before", "after")),
            case("b:1", "b", "x before", (2, 8, "before", "after")),
            label(1, "0"),
            label(2, "1"),
        ];
        let mut w =
            metamorph_data::ParquetShardWriter::try_new(&path, metamorph_data::RecordKind::Case)
                .unwrap();
        w.write(&metamorph_data::to_batch(&cases).unwrap()).unwrap();
        w.commit().unwrap();
        let wanted: HashSet<&str> = ["b:1"].into_iter().collect();
        let scan = scan_cases(&[path], &wanted).unwrap();
        assert_eq!(scan.ranks.len(), 1);
        assert_eq!(
            scan.ranks["b:1"],
            CaseRank {
                edit_chars: 6,
                text_chars: 7
            }
        );
        let words = |mr: &str| scan.expectations[&("mt4mrc".to_string(), mr.to_string())].clone();
        assert_eq!(
            words("MR1-3"),
            "the follow-up's label differs from the source's"
        );
        assert_eq!(words("MR-L"), "e.g. the follow-up is labelled \"0\"");
    }

    #[test]
    fn preconditions_read_as_words() {
        let both = Precondition::All {
            all: vec![
                Precondition::SourceLabelIn {
                    source: 0,
                    labels: vec!["per:spouse".into()],
                },
                Precondition::SourceLabelIs {
                    source: 1,
                    label: "org:founded".into(),
                },
            ],
        };
        let text = describe(&Expectation::EqualToSource { source: 1 }, Some(&both));
        assert_eq!(
            text,
            "the follow-up gets the label predicted for source 2 (applies when the source is \
             labelled one of per:spouse and source 2 is labelled \"org:founded\")"
        );
    }
}
