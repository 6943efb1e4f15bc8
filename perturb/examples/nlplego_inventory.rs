//! How close NLPLego's disassembly comes to the authors' adjunct inventory.
//!
//! The authors' repository (`SSCT-Lab/NLPLego`, public) ships the SQuAD sentences it disassembled
//! (`comp_input/context.cln.sent`, one tokenized sentence per line between `<s>` and `<\s>`) and
//! its templates (`temp_adjunct/context_temp.txt`, the same tokens with every adjunct word
//! replaced by its slot `t0`, `t1`, …). This example disassembles the same sentences with
//! [`Disassembler`] and compares, over words (punctuation aside):
//!
//! * word agreement: precision and recall of "this word is in an adjunct";
//! * adjunct agreement: the share of the authors' adjuncts that one of ours covers word for word,
//!   and the share of ours that one of theirs covers;
//! * with `--show N`, the first `N` sentences where the two differ, side by side;
//! * with `--debug LINE`, that line's parse and adjunct candidates;
//! * `--from LINE` starts at that line (1-based), `--limit N` stops after `N` sentences.
//!
//! ```text
//! cargo run --release -p metamorph-perturb --example nlplego_inventory -- \
//!     <NLPLego checkout>/comp_input/context.cln.sent <NLPLego checkout>/temp_adjunct/context_temp.txt \
//!     --limit 400 --show 20
//! ```
//!
//! Nothing of the authors' repository is part of this one: point the example at a checkout.

use std::collections::BTreeMap;
use std::path::PathBuf;

use metamorph_perturb::nlplego::disassembly::candidates;
use metamorph_perturb::nlplego::Disassembler;
use metamorph_perturb::{PerturbConfig, Resources};

/// Punctuation of the authors' tokenization, never counted as a word.
fn is_punct(word: &str) -> bool {
    word.chars().all(|c| !c.is_alphanumeric())
}

/// The authors' tokens joined into running text, with each token's character span.
fn detokenize(tokens: &[String]) -> (String, Vec<(usize, usize)>) {
    const NO_SPACE_BEFORE: [&str; 9] = [",", ".", ";", ":", ")", "'s", "n't", "?", "!"];
    let mut text = String::new();
    let mut spans = Vec::with_capacity(tokens.len());
    let mut chars = 0;
    for (i, token) in tokens.iter().enumerate() {
        let glue = i == 0 || NO_SPACE_BEFORE.contains(&token.as_str()) || tokens[i - 1] == "(";
        if !glue {
            text.push(' ');
            chars += 1;
        }
        let len = token.chars().count();
        spans.push((chars, chars + len));
        text.push_str(token);
        chars += len;
    }
    (text, spans)
}

/// Maximal runs of equal non-negative labels over words (punctuation is skipped, not a break).
fn runs(labels: &[Option<usize>], words: &[bool]) -> Vec<Vec<usize>> {
    let mut by_label: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, label) in labels.iter().enumerate() {
        if let (Some(l), true) = (label, words[i]) {
            by_label.entry(*l).or_default().push(i);
        }
    }
    by_label.into_values().collect()
}

struct Args {
    sentences: PathBuf,
    templates: PathBuf,
    from: usize,
    limit: usize,
    show: usize,
    debug: Option<usize>,
}

fn args() -> Args {
    let mut positional = Vec::new();
    let mut limit = 400;
    let mut show = 0;
    let mut debug = None;
    let mut from = 1;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--limit" => limit = it.next().and_then(|v| v.parse().ok()).expect("--limit N"),
            "--show" => show = it.next().and_then(|v| v.parse().ok()).expect("--show N"),
            "--debug" => debug = it.next().and_then(|v| v.parse().ok()),
            "--from" => from = it.next().and_then(|v| v.parse().ok()).expect("--from LINE"),
            _ => positional.push(PathBuf::from(a)),
        }
    }
    assert_eq!(
        positional.len(),
        2,
        "usage: nlplego_inventory <context.cln.sent> <context_temp.txt> [--from LINE] [--limit N] \
         [--show N] [--debug LINE]"
    );
    Args {
        sentences: positional.remove(0),
        templates: positional.remove(0),
        from,
        limit,
        show,
        debug,
    }
}

fn main() {
    let args = args();
    let read =
        |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let sentences = read(&args.sentences);
    let templates = read(&args.templates);
    let resources = Resources::from_config(&PerturbConfig::default());
    let wordnet = resources.wordnet().expect("WordNet");
    let disassembler =
        Disassembler::new(resources.parser().expect("en_core_web_sm"), wordnet.clone());

    let (mut both, mut theirs_only, mut ours_only) = (0usize, 0usize, 0usize);
    let (mut their_adjuncts, mut their_matched) = (0usize, 0usize);
    let (mut our_adjuncts, mut our_matched) = (0usize, 0usize);
    let (mut compared, mut skipped, mut shown) = (0usize, 0usize, 0usize);
    for (line, (sentence, template)) in sentences.lines().zip(templates.lines()).enumerate() {
        if compared >= args.limit {
            break;
        }
        if line + 1 < args.from {
            continue;
        }
        let tokens: Vec<String> = sentence
            .split_whitespace()
            .filter(|t| *t != "<s>" && *t != "<\\s>")
            .map(|t| t.replace("``", "\"").replace("''", "\""))
            .collect();
        let (text, spans) = detokenize(&tokens);
        if args.debug == Some(line + 1) {
            let parsed = disassembler.parse(&[&text]).expect("parse").remove(0);
            for (i, t) in parsed.tokens.iter().enumerate() {
                println!(
                    "{i:>3} {:<14} {:<6} {:<5} {:<10} -> {}",
                    t.text, t.pos, t.tag, t.dep, t.head
                );
            }
            for c in candidates(&parsed, &wordnet) {
                println!("candidate {:?} {:?}", c.kind, c.tokens);
            }
        }
        let slots: Vec<&str> = template.split_whitespace().collect();
        if slots.len() != tokens.len() {
            skipped += 1;
            continue;
        }
        compared += 1;
        let their_label: Vec<Option<usize>> = slots
            .iter()
            .map(|s| {
                s.strip_prefix('t')
                    .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
                    .and_then(|n| n.parse().ok())
            })
            .collect();
        let words: Vec<bool> = tokens.iter().map(|t| !is_punct(t)).collect();
        let mut our_label = vec![None; tokens.len()];
        let disassembly = disassembler
            .disassemble(&text)
            .unwrap_or_else(|e| panic!("line {}: {e}", line + 1));
        if let Some(d) = &disassembly {
            for (k, adjunct) in d.adjuncts.iter().enumerate() {
                for t in &d.parsed.tokens[adjunct.tokens.clone()] {
                    // The authors' token holding this token's first character.
                    let start = t.start as usize;
                    if let Some(j) = spans.iter().position(|&(s, e)| s <= start && start < e) {
                        our_label[j] = Some(k);
                    }
                }
            }
        }
        for i in (0..tokens.len()).filter(|&i| words[i]) {
            match (their_label[i].is_some(), our_label[i].is_some()) {
                (true, true) => both += 1,
                (true, false) => theirs_only += 1,
                (false, true) => ours_only += 1,
                (false, false) => {}
            }
        }
        let theirs = runs(&their_label, &words);
        let ours = runs(&our_label, &words);
        their_adjuncts += theirs.len();
        our_adjuncts += ours.len();
        their_matched += theirs.iter().filter(|r| ours.contains(r)).count();
        our_matched += ours.iter().filter(|r| theirs.contains(r)).count();
        if shown < args.show && theirs != ours {
            shown += 1;
            let render = |r: &Vec<usize>| {
                r.iter()
                    .map(|&i| tokens[i].as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            println!("#{} {text}", line + 1);
            for r in &theirs {
                let mark = if ours.contains(r) { "=" } else { "-" };
                println!("  {mark} theirs: {}", render(r));
            }
            for r in ours.iter().filter(|r| !theirs.contains(r)) {
                println!("  + ours:   {}", render(r));
            }
        }
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "{compared} sentences compared ({skipped} skipped: template and sentence differ in length)"
    );
    println!(
        "words in an adjunct: theirs {} / ours {} / both {both}; precision {:.1}%, recall {:.1}%",
        both + theirs_only,
        both + ours_only,
        pct(both, both + ours_only),
        pct(both, both + theirs_only)
    );
    println!(
        "adjuncts matched word for word: {their_matched} of their {their_adjuncts} ({:.1}%), \
         {our_matched} of our {our_adjuncts} ({:.1}%)",
        pct(their_matched, their_adjuncts),
        pct(our_matched, our_adjuncts)
    );
}
