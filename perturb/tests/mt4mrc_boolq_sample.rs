//! Every MT4MRC relation over the real BoolQ sample (`../shared/data/boolq`, SuperGLUE BoolQ
//! validation, first 1,000 questions): each case is valid, each edit is exact (the source text
//! at the edit's offsets is `before`, and applying the edits to the source gives the follow-up),
//! and each edited question or passage sentence re-parses with the same root lemma.

use std::collections::HashMap;

use metamorph_data::{
    shared_data, Case, DatasetFormat, DatasetReader, Example, ParsedText, ReadOptions,
};
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_perturb::edit::{apply, Replacement};
use metamorph_perturb::syntax::Tree;
use metamorph_perturb::{parse_examples, relations_by_name, PerturbConfig, Resources, Source};

fn pipeline() -> Pipeline {
    let dir = metamorph_data::assets::ensure("en_core_web_sm").expect("fetch en_core_web_sm");
    Pipeline::load(&dir).expect("load en_core_web_sm")
}

/// The lemma of the main verb of the sentence of `parsed` that contains character `at`: its
/// root, or, when the root is a "going (to)" future or an auxiliary the parser made the root
/// ("has croatia ever won …" with "won" as the `ccomp` of "has"; "is the terminal based on …"
/// with "based" as an `acl` of the subject), the verb it governs — so
/// that a tense change ("is there going to be" → "has there ever been") or a fronted
/// auxiliary moved behind the subject does not count as a changed structure.
fn root_lemma_at(parsed: &ParsedText, at: u32) -> Option<String> {
    let tree = Tree::new(parsed);
    let token = parsed
        .tokens
        .iter()
        .position(|t| t.end > at)
        .unwrap_or(parsed.tokens.len().saturating_sub(1));
    let sentence = tree.sentence_of(token);
    let mut root = tree.root(sentence.clone())?;
    for _ in 0..3 {
        let t = &parsed.tokens[root];
        let lemma = t.lemma.to_lowercase();
        let auxiliary = matches!(lemma.as_str(), "go" | "have" | "do" | "be")
            && (lemma == "go" || t.pos == "AUX" || root == sentence.start);
        let complement = tree
            .children(root)
            .find(|&c| {
                let c = &parsed.tokens[c];
                matches!(c.dep.as_str(), "xcomp" | "ccomp")
                    && matches!(c.pos.as_str(), "VERB" | "AUX")
            })
            .or_else(|| {
                // A fronted "is" taken for a copula, its participle for a modifier of the
                // subject: "is the terminal based on a real story".
                let subject = tree.child_with_dep(root, &["nsubj"])?;
                (lemma == "be" && root == sentence.start)
                    .then(|| {
                        tree.children(subject).find(|&c| {
                            let c = &parsed.tokens[c];
                            c.dep == "acl" && matches!(c.tag.as_str(), "VBN" | "VBG")
                        })
                    })
                    .flatten()
            });
        match complement.filter(|_| auxiliary) {
            Some(c) => root = c,
            None => break,
        }
    }
    Some(parsed.tokens[root].lemma.to_lowercase())
}

/// MR1-4's literal tag question, which the re-parse must not see: the parser makes "is it
/// right" the root clause of the whole follow-up.
const MR1_4_TAG: &str = ", is that right";

/// Checks one case's edits against its source and follow-up; returns the edited fields.
fn check_edits(case: &Case) -> Vec<String> {
    case.validate().unwrap();
    let source = &case.sources[0];
    let mut fields: Vec<String> = case.edits.iter().map(|e| e.field.clone()).collect();
    fields.sort();
    fields.dedup();
    for field in &fields {
        let text = source
            .field(field)
            .expect("edited field exists in the source");
        let chars: Vec<char> = text.chars().collect();
        let mut replacements = Vec::new();
        for e in case.edits.iter().filter(|e| &e.field == field) {
            let before: String = chars[e.start as usize..e.end as usize].iter().collect();
            assert_eq!(
                before, e.before,
                "{}: edit {e:?} is not exact",
                case.case_id
            );
            replacements.push(Replacement::new(
                e.start as usize,
                e.end as usize,
                e.after.clone(),
            ));
        }
        let (rebuilt, _) = apply(field, text, replacements).expect("edits do not overlap");
        assert_eq!(
            Some(rebuilt.as_str()),
            case.followup.field(field),
            "{}: the edits of `{field}` do not give the follow-up",
            case.case_id
        );
    }
    // Fields without edits are unchanged.
    for field in ["question", "context", "text", "text_b", "title"] {
        if !fields.iter().any(|f| f == field) {
            assert_eq!(
                source.field(field),
                case.followup.field(field),
                "{}: `{field}` changed without an edit",
                case.case_id
            );
        }
    }
    fields
}

#[test]
fn every_relation_on_the_boolq_sample() {
    let Some(path) = shared_data::sample("boolq/superglue_boolq_val_first1000.jsonl") else {
        return;
    };
    let examples: Vec<Example> =
        DatasetReader::open(&path, DatasetFormat::Boolq, ReadOptions::default())
            .unwrap()
            .examples()
            .collect::<Result<_, _>>()
            .unwrap();
    let resources = Resources::from_config(&PerturbConfig::default());
    let relations = relations_by_name(&["mt4mrc".into()], &resources).unwrap();
    let pipeline = pipeline();
    let parses = parse_examples(&pipeline, &examples, &["question", "context"]).unwrap();
    let mut by_id: HashMap<&str, Vec<ParsedText>> = HashMap::new();
    for p in &parses {
        by_id.entry(p.id.as_str()).or_default().push(p.clone());
    }
    let mut report = Vec::new();
    for relation in &relations {
        let mut cases = Vec::new();
        let mut eligible = 0;
        for example in &examples {
            let parsed = by_id
                .get(example.id.as_str())
                .map_or(&[][..], Vec::as_slice);
            let got = relation.follow_ups(&Source::new(example, parsed)).unwrap();
            eligible += usize::from(!got.is_empty());
            cases.extend(got);
        }
        // Re-parse every edited field of every follow-up in one batch.
        let mut checks = Vec::new(); // (case index, field, source char, follow-up char)
        let mut followups = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            for field in check_edits(case) {
                let edits: Vec<_> = case.edits.iter().filter(|e| e.field == field).collect();
                let mut shift = 0i64;
                for e in edits {
                    let after_at = (i64::from(e.start) + shift) as u32;
                    checks.push((i, field.clone(), e.start, after_at));
                    shift += e.after.chars().count() as i64 - i64::from(e.end - e.start);
                }
            }
            let mut f = case.followup.clone();
            f.id = format!("{i}");
            if case.mr == "MR1-4" {
                // The tag is appended at the end, so no edit offset before it moves.
                f.question = f.question.map(|q| q.replacen(MR1_4_TAG, "", 1));
            }
            followups.push(f);
        }
        let reparsed = parse_examples(&pipeline, &followups, &["question", "context"]).unwrap();
        let reparsed: HashMap<(String, String), &ParsedText> = reparsed
            .iter()
            .map(|p| ((p.id.clone(), p.field.clone()), p))
            .collect();
        let mut same_root = 0;
        for (i, field, before_at, after_at) in &checks {
            let source = by_id[cases[*i].sources[0].id.as_str()]
                .iter()
                .find(|p| &p.field == field)
                .unwrap();
            let followup = reparsed[&(i.to_string(), field.clone())];
            if root_lemma_at(source, *before_at) == root_lemma_at(followup, *after_at) {
                same_root += 1;
            }
        }
        report.push(format!(
            "{}: {} sources, {eligible} eligible, {} cases, {same_root}/{} edited sentences keep their root",
            relation.name(),
            examples.len(),
            cases.len(),
            checks.len()
        ));
        // The parser is statistical, so a rewritten sentence may occasionally parse with a
        // different root; more than 5% would mean the rewrite changed the sentence's structure.
        // MR1-2 is allowed 10%: en_core_web_sm parses its lower-case "will <name> <verb> …"
        // follow-ups ("will eric clapton play while my guitar gently weeps", "will wayne
        // gretzky win a stanley cup") with the name as the root (8 of its 118 cases), and
        // "has X been to Y" → "will X go to Y" changes the verb on purpose.
        let min_percent = if relation.name() == "MR1-2" { 90 } else { 95 };
        assert!(
            same_root * 100 >= checks.len() * min_percent,
            "{}: only {same_root} of {} edited sentences re-parse with the same root",
            relation.name(),
            checks.len()
        );
    }
    for line in report {
        eprintln!("{line}");
    }
}
