//! CREST over the bundled coreference samples (`data/samples/coref.conll`, `gap.tsv`) and the
//! real ones in `../shared/data/coref` (GAP validation, LitBank's CoNLL files): every case is
//! valid, changes exactly one word with an exact edit, never touches a protected word (a gold
//! mention, or a word linked to a pronoun mention), and its dataset tokens (when present) are
//! its text. The sources and cases are printed; with `CREST_REVIEW=<n>` it also prints `n`
//! seeded-random follow-ups of the real samples (source and follow-up sentence) for review.

use std::path::Path;

use metamorph_data::{shared_data, Case, DatasetFormat, DatasetReader, Example, ReadOptions};
use metamorph_perturb::crest::protected::ProtectedWords;
use metamorph_perturb::{parse_examples, relations_by_name, PerturbConfig, Resources, Source};

fn read(path: &Path, format: DatasetFormat, limit: usize) -> Vec<Example> {
    DatasetReader::open(path, format, ReadOptions::default())
        .unwrap()
        .examples()
        .take(limit)
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Runs CREST over `examples`, checks every case, returns them.
fn run(name: &str, examples: &[Example]) -> Vec<Case> {
    let dir = metamorph_data::assets::ensure("en_core_web_sm").unwrap();
    let pipeline = metamorph_parse::spacy::pipeline::Pipeline::load(&dir).unwrap();
    let parses = parse_examples(&pipeline, examples, &["text"]).unwrap();
    let resources = Resources::from_config(&PerturbConfig::default());
    let relations = relations_by_name(&["crest".to_string()], &resources).unwrap();
    assert_eq!(relations.len(), 1);
    let mut cases = Vec::new();
    let mut eligible = 0;
    for example in examples {
        let source = Source::new(example, &parses);
        let found = relations[0].follow_ups(&source).unwrap();
        eligible += usize::from(!found.is_empty());
        let parsed = source.parse("text").unwrap();
        let words = ProtectedWords::new(parsed, example.clusters.as_deref().unwrap_or(&[]));
        let text = example.text.as_deref().unwrap();
        let chars: Vec<char> = text.chars().collect();
        for case in &found {
            case.validate().unwrap();
            assert_eq!(case.edits.len(), 1, "{}", case.case_id);
            let edit = &case.edits[0];
            let before: String = chars[edit.start as usize..edit.end as usize]
                .iter()
                .collect();
            assert_eq!(before, edit.before, "{}", case.case_id);
            let rebuilt: String = chars[..edit.start as usize].iter().collect::<String>()
                + &edit.after
                + &chars[edit.end as usize..].iter().collect::<String>();
            assert_eq!(case.followup.text.as_deref(), Some(rebuilt.as_str()));
            assert!(!edit.after.is_empty() && !edit.after.contains(char::is_whitespace));
            let token = parsed
                .tokens
                .iter()
                .position(|t| t.start == edit.start && t.end == edit.end)
                .expect("the edit replaces one whole token");
            assert!(
                !words.is_protected(token),
                "{}: protected word",
                case.case_id
            );
            if let Some(tokens) = &case.followup.tokens {
                let joined: Vec<&str> = case
                    .followup
                    .text
                    .as_deref()
                    .unwrap()
                    .split_whitespace()
                    .collect();
                assert_eq!(tokens, &joined, "{}", case.case_id);
            }
        }
        cases.extend(found);
    }
    println!(
        "{name}: {} sources, {eligible} with follow-ups, {} CREST cases",
        examples.len(),
        cases.len()
    );
    cases
}

/// The sentence around `case`'s edit in source and follow-up.
fn review_line(case: &Case) -> String {
    let edit = &case.edits[0];
    let text = case.followup.text.as_deref().unwrap();
    let chars: Vec<char> = text.chars().collect();
    let at = edit.start as usize;
    let stop = |c: &char| matches!(c, '.' | '!' | '?' | '\n');
    let from = chars[..at].iter().rposition(stop).map_or(0, |p| p + 1);
    let to = chars[at..]
        .iter()
        .position(stop)
        .map_or(chars.len(), |p| at + p + 1);
    let sentence: String = chars[from..to].iter().collect();
    format!(
        "{} | {} -> {} | {}",
        case.case_id,
        edit.before,
        edit.after,
        sentence.trim()
    )
}

#[test]
fn bundled_samples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/samples");
    let conll = run(
        "bundled coref.conll",
        &read(
            &root.join("coref.conll"),
            DatasetFormat::Conll2012,
            usize::MAX,
        ),
    );
    let gap = run(
        "bundled gap.tsv",
        &read(&root.join("gap.tsv"), DatasetFormat::Gap, usize::MAX),
    );
    assert!(!conll.is_empty() && !gap.is_empty());
}

#[test]
fn real_samples() {
    let mut all = Vec::new();
    if let Some(path) = shared_data::sample("coref/gap/gap-validation.tsv") {
        all.extend(run(
            "GAP validation",
            &read(&path, DatasetFormat::Gap, usize::MAX),
        ));
    }
    for book in ["1342_pride_and_prejudice_brat", "158_emma_brat"] {
        if let Some(path) = shared_data::sample(&format!("coref/litbank/{book}.conll")) {
            all.extend(run(
                &format!("LitBank {book}"),
                &read(&path, DatasetFormat::Conll2012, usize::MAX),
            ));
        }
    }
    if let Some(n) = std::env::var("CREST_REVIEW")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        // A seeded choice: every k-th case from a fixed stride.
        let stride = (all.len() / n.max(1)).max(1);
        for case in all.iter().step_by(stride).take(n) {
            println!("REVIEW {}", review_line(case));
        }
    }
}
