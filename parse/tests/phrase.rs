//! The constituency view: structural invariants on every golden document, exact bracketings
//! of hand-checked sentences (spaCy 3.8.7 `en_core_web_sm` parses), and malformed input.

use crate::common;

use metamorph_parse::phrase::{phrase_structure, Label, PhraseStructure};
use metamorph_parse::spacy::{Doc, Token};

/// Checks the structural invariants of `ps` over `doc`, returning a description of the first
/// violation.
fn check_invariants(doc: &Doc, ps: &PhraseStructure) -> Result<(), String> {
    let nodes = ps.constituents();
    let sents = doc.sentences();
    if ps.roots().len() != sents.len() {
        return Err(format!(
            "{} roots for {} sentences",
            ps.roots().len(),
            sents.len()
        ));
    }
    for (&r, s) in ps.roots().iter().zip(&sents) {
        let root = &nodes[r];
        if root.depth != 0 || root.parent.is_some() || root.span() != *s {
            return Err(format!("root {root:?} does not cover sentence {s:?}"));
        }
    }
    // Pre-order with a stack of open ancestors: nesting, depth and parent links.
    let mut stack: Vec<usize> = Vec::new();
    let mut sent = 0usize;
    for (i, c) in nodes.iter().enumerate() {
        if !Label::ALL.contains(&c.label) {
            return Err(format!("unknown label {:?}", c.label));
        }
        if c.start >= c.end {
            return Err(format!("empty constituent {c:?}"));
        }
        while sent < sents.len() && c.start >= sents[sent].end {
            sent += 1;
        }
        let s = sents
            .get(sent)
            .ok_or_else(|| format!("{c:?} beyond the last sentence"))?;
        if c.start < s.start || c.end > s.end {
            return Err(format!("{c:?} outside its sentence {s:?}"));
        }
        while let Some(&top) = stack.last() {
            let t = &nodes[top];
            if t.start <= c.start && c.end <= t.end && c.depth == t.depth + 1 {
                break;
            }
            if c.start < t.end && c.end > t.end {
                return Err(format!("crossing brackets {t:?} and {c:?}"));
            }
            stack.pop();
        }
        match stack.last() {
            Some(&p) => {
                if c.parent != Some(p) || !nodes[p].children.contains(&i) {
                    return Err(format!("{c:?} should be a child of {p}"));
                }
            }
            None => {
                if c.depth != 0 || c.parent.is_some() {
                    return Err(format!("{c:?} has no enclosing constituent"));
                }
            }
        }
        if c.depth != stack.len() {
            return Err(format!(
                "depth {} but nesting depth {}",
                c.depth,
                stack.len()
            ));
        }
        stack.push(i);
    }
    // Siblings are ordered and disjoint.
    for c in nodes {
        for w in c.children.windows(2) {
            if nodes[w[0]].end > nodes[w[1]].start {
                return Err(format!(
                    "overlapping siblings {:?} {:?}",
                    nodes[w[0]], nodes[w[1]]
                ));
            }
        }
    }
    let phrases = ps.to_phrases();
    if phrases.len() != nodes.len()
        || phrases.iter().zip(nodes).any(|(p, c)| {
            p.label != c.label.as_str()
                || p.start as usize != c.start
                || p.end as usize != c.end
                || p.depth as usize != c.depth
        })
    {
        return Err("to_phrases disagrees with the constituents".into());
    }
    Ok(())
}

#[test]
fn golden_docs_give_well_formed_trees() {
    let docs = common::golden_docs();
    let (mut n_const, mut n_sents) = (0usize, 0usize);
    let mut counts = std::collections::BTreeMap::new();
    for g in &docs {
        let doc = common::golden_annotated(g);
        let ps = phrase_structure(&doc);
        if let Err(e) = check_invariants(&doc, &ps) {
            panic!("{e}\n  in {:?}\n  {}", g.text, ps.bracketed(&doc));
        }
        n_const += ps.constituents().len();
        n_sents += ps.roots().len();
        for c in ps.constituents() {
            *counts.entry(c.label.as_str()).or_insert(0usize) += 1;
        }
    }
    eprintln!(
        "{} docs, {n_sents} sentences, {n_const} constituents: {counts:?}",
        docs.len()
    );
    assert!(n_sents >= 2465, "fewer sentences than the golden file has");
    for l in [
        "S", "SBAR", "NP", "VP", "PP", "ADJP", "ADVP", "QP", "PRT", "WHNP",
    ] {
        assert!(
            counts.get(l).copied().unwrap_or(0) > 0,
            "no {l} in the whole corpus"
        );
    }
}

#[test]
fn every_golden_noun_chunk_lies_inside_one_np() {
    // spaCy's noun chunks are base NPs: each should be the tail of some NP of the view
    // (a chunk `[left_edge, head + 1)` ends where the base NP of its head ends).
    let docs = common::golden_docs();
    let (mut ok, mut total) = (0usize, 0usize);
    for g in &docs {
        let doc = common::golden_annotated(g);
        let ps = phrase_structure(&doc);
        for &(s, e) in &g.noun_chunks {
            total += 1;
            let c = ps.lowest_covering(s, e).map(|i| &ps.constituents()[i]);
            if c.is_some_and(|c| matches!(c.label, Label::Np | Label::Whnp) && c.end == e) {
                ok += 1;
            } else if std::env::var("SHOW").is_ok() {
                eprintln!(
                    "{:?} {:?}\n  {}",
                    g.words[s..e].join(" "),
                    c.map(|c| c.label),
                    ps.bracketed(&doc)
                );
            }
        }
    }
    eprintln!("noun chunks ending an NP of the view: {ok}/{total}");
    assert!(ok * 100 >= total * 97, "{ok}/{total}");
}

/// A doc from `word/TAG/POS/dep/head` items (heads are token indices).
fn doc_from(spec: &str) -> Doc {
    let mut text = String::new();
    let mut tokens = Vec::new();
    for (i, item) in spec.split_whitespace().enumerate() {
        let f: Vec<&str> = item.rsplitn(5, '/').collect();
        let [head, dep, pos, tag, word] = f[..] else {
            panic!("bad item {item}")
        };
        let start = text.len();
        text.push_str(word);
        tokens.push(Token {
            start,
            end: text.len(),
            whitespace: true,
            tag: tag.into(),
            pos: pos.into(),
            dep: dep.into(),
            head: head.parse().unwrap(),
            sent_start: i == 0,
            ..Token::default()
        });
        text.push(' ');
    }
    Doc { text, tokens }
}

fn bracket(spec: &str) -> String {
    let doc = doc_from(spec);
    let ps = phrase_structure(&doc);
    check_invariants(&doc, &ps).unwrap();
    ps.bracketed(&doc)
}

/// Sentences parsed by spaCy 3.8.7 `en_core_web_sm`, with the bracketing checked by hand.
const HAND_CHECKED: &[(&str, &str, &str)] = &[
    (
        "PP adjunct, passive with agent, relative clause (NLPLego's example)",
        "On/IN/ADP/prep/7 May/NNP/PROPN/pobj/0 3/CD/NUM/nummod/1 ,/,/PUNCT/punct/7 downtown/NN/NOUN/compound/5 Jacksonville/NNP/PROPN/nsubjpass/7 was/VBD/AUX/auxpass/7 ravaged/VBN/VERB/ROOT/7 by/IN/ADP/agent/7 a/DT/DET/det/10 fire/NN/NOUN/pobj/8 that/WDT/PRON/nsubj/12 started/VBD/VERB/relcl/10 as/IN/ADP/prep/12 a/DT/DET/det/16 kitchen/NN/NOUN/compound/16 fire/NN/NOUN/pobj/13 ././PUNCT/punct/7",
        "(S (PP On (NP May 3)) , (NP downtown Jacksonville) (VP was ravaged (PP by (NP (NP a fire) (SBAR (WHNP that) (S (VP started (PP as (NP a kitchen fire)))))))) .)",
    ),
    (
        "relative clause on a subject",
        "The/DT/DET/det/1 man/NN/NOUN/nsubj/6 who/WP/PRON/nsubj/3 lives/VBZ/VERB/relcl/1 next/JJ/ADJ/amod/5 door/NN/NOUN/npadvmod/3 bought/VBD/VERB/ROOT/6 a/DT/DET/det/9 red/JJ/ADJ/amod/9 car/NN/NOUN/dobj/6 ././PUNCT/punct/6",
        "(S (NP (NP The man) (SBAR (WHNP who) (S (VP lives (NP next door))))) (VP bought (NP a red car)) .)",
    ),
    (
        "subordinate clause with mark, copula",
        "She/PRP/PRON/nsubj/1 left/VBD/VERB/ROOT/1 early/RB/ADV/advmod/1 because/IN/SCONJ/mark/5 she/PRP/PRON/nsubj/5 was/VBD/AUX/advcl/1 tired/JJ/ADJ/acomp/5 ././PUNCT/punct/1",
        "(S (NP She) (VP left (ADVP early) (SBAR because (S (NP she) (VP was (ADJP tired))))) .)",
    ),
    (
        "appositive",
        "John/NNP/PROPN/nsubj/6 ,/,/PUNCT/punct/0 my/PRP$/PRON/poss/4 older/JJR/ADJ/amod/4 brother/NN/NOUN/appos/0 ,/,/PUNCT/punct/0 works/VBZ/VERB/ROOT/6 in/IN/ADP/prep/6 a/DT/DET/det/9 bank/NN/NOUN/pobj/7 ././PUNCT/punct/6",
        "(S (NP (NP John) , (NP my older brother) ,) (VP works (PP in (NP a bank))) .)",
    ),
    (
        "NP coordination",
        "Tom/NNP/PROPN/nsubj/3 and/CC/CCONJ/cc/0 Mary/NNP/PROPN/conj/0 bought/VBD/VERB/ROOT/3 apples/NNS/NOUN/dobj/3 and/CC/CCONJ/cc/4 oranges/NNS/NOUN/conj/4 ././PUNCT/punct/3",
        "(S (NP (NP Tom) and (NP Mary)) (VP bought (NP (NP apples) and (NP oranges))) .)",
    ),
    (
        "clause coordination",
        "She/PRP/PRON/nsubj/1 sings/VBZ/VERB/ROOT/1 and/CC/CCONJ/cc/1 he/PRP/PRON/nsubj/4 dances/VBZ/VERB/conj/1 ././PUNCT/punct/1",
        "(S (S (NP She) (VP sings)) and (S (NP he) (VP dances)) .)",
    ),
    (
        "wh-question with do-support",
        "What/WP/PRON/dobj/3 did/VBD/AUX/aux/3 you/PRP/PRON/nsubj/3 see/VB/VERB/ROOT/3 in/IN/ADP/prep/3 the/DT/DET/det/6 garden/NN/NOUN/pobj/4 ?/./PUNCT/punct/3",
        "(SBARQ (WHNP What) (SQ did (NP you) (VP see (PP in (NP the garden)))) ?)",
    ),
    (
        "yes/no question, copula",
        "Is/VBZ/AUX/ROOT/0 he/PRP/PRON/nsubj/0 a/DT/DET/det/3 doctor/NN/NOUN/attr/0 ?/./PUNCT/punct/0",
        "(SQ Is (NP he) (NP a doctor) ?)",
    ),
    (
        "wh-subject question",
        "Who/WP/PRON/nsubj/1 called/VBD/VERB/ROOT/1 you/PRP/PRON/dobj/1 yesterday/NN/NOUN/npadvmod/1 ?/./PUNCT/punct/1",
        "(SBARQ (WHNP Who) (SQ (VP called (NP you) (NP yesterday))) ?)",
    ),
    (
        "wh-adverb question",
        "Where/WRB/SCONJ/advmod/3 do/VBP/AUX/aux/3 you/PRP/PRON/nsubj/3 live/VB/VERB/ROOT/3 ?/./PUNCT/punct/3",
        "(SBARQ (WHADVP Where) (SQ do (NP you) (VP live)) ?)",
    ),
    (
        "passive",
        "The/DT/DET/det/1 letter/NN/NOUN/nsubjpass/3 was/VBD/AUX/auxpass/3 written/VBN/VERB/ROOT/3 by/IN/ADP/agent/3 the/DT/DET/det/6 manager/NN/NOUN/pobj/4 ././PUNCT/punct/3",
        "(S (NP The letter) (VP was written (PP by (NP the manager))) .)",
    ),
    (
        "copula with adjective phrase and temporal NP",
        "The/DT/DET/det/1 weather/NN/NOUN/nsubj/2 is/VBZ/AUX/ROOT/2 very/RB/ADV/advmod/4 cold/JJ/ADJ/acomp/2 today/NN/NOUN/npadvmod/2 ././PUNCT/punct/2",
        "(S (NP The weather) (VP is (ADJP very cold) (NP today)) .)",
    ),
    (
        "complement clause with that",
        "I/PRP/PRON/nsubj/1 know/VBP/VERB/ROOT/1 that/IN/SCONJ/mark/5 he/PRP/PRON/nsubj/5 will/MD/AUX/aux/5 come/VB/VERB/ccomp/1 tomorrow/NN/NOUN/npadvmod/5 ././PUNCT/punct/1",
        "(S (NP I) (VP know (SBAR that (S (NP he) (VP will come (NP tomorrow))))) .)",
    ),
    (
        "relative clause without pronoun",
        "The/DT/DET/det/1 book/NN/NOUN/nsubj/5 I/PRP/PRON/nsubj/3 read/VBP/VERB/relcl/1 yesterday/NN/NOUN/npadvmod/3 was/VBD/AUX/ROOT/5 boring/JJ/ADJ/acomp/5 ././PUNCT/punct/5",
        "(S (NP (NP The book) (SBAR (S (NP I) (VP read (NP yesterday))))) (VP was (ADJP boring)) .)",
    ),
    (
        "imperative",
        "Go/VB/VERB/ROOT/0 home/RB/ADV/advmod/0 ././PUNCT/punct/0",
        "(S (VP Go (ADVP home)) .)",
    ),
    (
        "pied-piped relative clause, particle",
        "The/DT/DET/det/1 house/NN/NOUN/nsubj/6 in/IN/ADP/prep/5 which/WDT/PRON/pobj/2 he/PRP/PRON/nsubj/5 lived/VBD/VERB/relcl/1 burned/VBD/VERB/ROOT/6 down/RP/ADP/prt/6 ././PUNCT/punct/6",
        "(S (NP (NP The house) (SBAR (WHPP in (NP which)) (S (NP he) (VP lived)))) (VP burned (PRT down)) .)",
    ),
    (
        "fronted participial clause",
        "Having/VBG/AUX/aux/1 finished/VBN/VERB/advcl/6 the/DT/DET/det/3 work/NN/NOUN/dobj/1 ,/,/PUNCT/punct/6 she/PRP/PRON/nsubj/6 went/VBD/VERB/ROOT/6 out/RP/ADP/prt/6 ././PUNCT/punct/6",
        "(S (VP Having finished (NP the work)) , (NP she) (VP went (PRT out)) .)",
    ),
    (
        "non-restrictive relative clause between commas",
        "The/DT/DET/det/1 report/NN/NOUN/nsubj/9 ,/,/PUNCT/punct/1 which/WDT/PRON/nsubjpass/5 was/VBD/AUX/auxpass/5 published/VBN/VERB/relcl/1 in/IN/ADP/prep/5 May/NNP/PROPN/pobj/6 ,/,/PUNCT/punct/1 surprised/VBD/VERB/ROOT/9 everyone/NN/PRON/dobj/9 ././PUNCT/punct/9",
        "(S (NP (NP The report) , (SBAR (WHNP which) (S (VP was published (PP in (NP May))))) ,) (VP surprised (NP everyone)) .)",
    ),
    (
        "yes/no question without a question mark",
        "do/VB/AUX/aux/3 radio/NN/NOUN/compound/2 waves/NNS/NOUN/nsubj/3 travel/VBP/VERB/ROOT/3 at/IN/ADP/prep/3 the/DT/DET/det/6 speed/NN/NOUN/pobj/4 of/IN/ADP/prep/6 light/NN/NOUN/pobj/7",
        "(SQ do (NP radio waves) (VP travel (PP at (NP (NP the speed) (PP of (NP light))))))",
    ),
    (
        "object relative clause, copular relative clause",
        "The/DT/DET/det/1 key/NN/NOUN/nsubj/7 ,/,/PUNCT/punct/1 which/WDT/PRON/nsubj/4 was/VBD/AUX/relcl/1 small/JJ/ADJ/acomp/4 ,/,/PUNCT/punct/1 opened/VBD/VERB/ROOT/7 the/DT/DET/det/9 door/NN/NOUN/dobj/7 that/WDT/PRON/dobj/13 nobody/NN/PRON/nsubj/13 could/MD/AUX/aux/13 open/VB/VERB/relcl/9 ././PUNCT/punct/7",
        "(S (NP (NP The key) , (SBAR (WHNP which) (S (VP was (ADJP small)))) ,) (VP opened (NP (NP the door) (SBAR (WHNP that) (S (NP nobody) (VP could open))))) .)",
    ),
    (
        "a predicate noun with a subject heads a clause (spaCy tags `sleep` NOUN here)",
        "Cats/NNS/NOUN/nsubj/3 and/CC/CCONJ/cc/0 dogs/NNS/NOUN/conj/0 sleep/NN/NOUN/ROOT/3 all/DT/DET/det/5 day/NN/NOUN/npadvmod/3 ././PUNCT/punct/3",
        "(S (NP (NP Cats) and (NP dogs)) (VP sleep (NP all day)) .)",
    ),
];

#[test]
fn hand_checked_bracketings() {
    let mut failures = Vec::new();
    for (what, spec, want) in HAND_CHECKED {
        let got = bracket(spec);
        if got != *want {
            failures.push(format!("{what}:\n  want {want}\n  got  {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn depths_and_lowest_covering() {
    let doc = doc_from(HAND_CHECKED[0].1);
    let ps = phrase_structure(&doc);
    let nodes = ps.constituents();
    // "a fire" (9..11) is the inner NP of "a fire that started …": S > VP > PP > NP > NP.
    let inner = ps.lowest_covering(9, 11).unwrap();
    assert_eq!(
        (nodes[inner].label, nodes[inner].span(), nodes[inner].depth),
        (Label::Np, 9..11, 4)
    );
    // "that" is the WHNP under the SBAR (S > VP > PP > NP > SBAR > WHNP).
    let that = ps.lowest_covering(11, 12).unwrap();
    assert_eq!((nodes[that].label, nodes[that].depth), (Label::Whnp, 5));
    assert_eq!(ps.token_depth(11), Some(6));
    // The whole sentence is the root.
    assert_eq!(ps.lowest_covering(0, doc.len()), Some(ps.roots()[0]));
    assert_eq!(ps.lowest_covering(3, 3), None);
    assert_eq!(ps.lowest_covering(0, 99), None);
    let phrases = ps.to_phrases();
    assert_eq!(phrases[0].label, "S");
    assert_eq!(
        (phrases[0].start, phrases[0].end, phrases[0].depth),
        (0, 18, 0)
    );
}

#[test]
fn multi_sentence_doc_has_one_root_per_sentence() {
    let a = doc_from(HAND_CHECKED[14].1); // Go home .
    let b = doc_from(HAND_CHECKED[7].1); // Is he a doctor ?
    let mut doc = a.clone();
    let shift = doc.tokens.len();
    let text_shift = doc.text.len();
    doc.text.push_str(&b.text);
    for (i, t) in b.tokens.iter().enumerate() {
        let mut t = t.clone();
        t.start += text_shift;
        t.end += text_shift;
        t.head += shift;
        t.sent_start = i == 0;
        doc.tokens.push(t);
    }
    let ps = phrase_structure(&doc);
    check_invariants(&doc, &ps).unwrap();
    assert_eq!(
        ps.bracketed(&doc),
        "(S (VP Go (ADVP home)) .)\n(SQ Is (NP he) (NP a doctor) ?)"
    );
}

#[test]
fn malformed_docs_do_not_panic() {
    // Empty doc.
    let ps = phrase_structure(&Doc::default());
    assert!(ps.constituents().is_empty() && ps.roots().is_empty());
    assert_eq!(ps.bracketed(&Doc::default()), "");

    // Heads outside the sentence and the document, a cycle, no root at all.
    let mut doc = doc_from(
        "a/DT/DET/det/1 b/NN/NOUN/nsubj/2 c/VBD/VERB/ROOT/2 d/NN/NOUN/dobj/2 e/./PUNCT/punct/2",
    );
    doc.tokens[3].sent_start = true; // sentence 2: "d e", whose heads point into sentence 1
    doc.tokens[0].head = 1000;
    let ps = phrase_structure(&doc);
    check_invariants(&doc, &ps).unwrap();
    assert_eq!(ps.roots().len(), 2);

    let mut doc = doc_from(
        "a/DT/DET/det/1 b/NN/NOUN/nsubj/2 c/VBD/VERB/ROOT/0 d/NN/NOUN/dobj/4 e/./PUNCT/punct/3",
    );
    doc.tokens[2].dep = "conj".into(); // cycle a → b → c → a, and d ↔ e
    let ps = phrase_structure(&doc);
    check_invariants(&doc, &ps).unwrap();

    // Unparsed doc: default heads (all 0) and empty labels.
    let mut doc = doc_from("x/NN/NOUN/dep/0 y/NN/NOUN/dep/0 z/NN/NOUN/dep/0");
    for t in &mut doc.tokens {
        t.dep.clear();
        t.pos.clear();
        t.tag.clear();
    }
    let ps = phrase_structure(&doc);
    check_invariants(&doc, &ps).unwrap();

    // A sentence of punctuation only.
    let doc = doc_from("!/./PUNCT/ROOT/0 !/./PUNCT/punct/0");
    let ps = phrase_structure(&doc);
    check_invariants(&doc, &ps).unwrap();
    assert_eq!(ps.bracketed(&doc), "(FRAG ! !)");
}

#[test]
fn non_projective_arcs_are_lifted() {
    // "A man came in who was tall": the relative clause hangs off "man" across "came in".
    let spec = "A/DT/DET/det/1 man/NN/NOUN/nsubj/2 came/VBD/VERB/ROOT/2 in/RB/ADV/advmod/2 who/WP/PRON/nsubj/5 was/VBD/AUX/relcl/1 tall/JJ/ADJ/acomp/5 ././PUNCT/punct/2";
    assert_eq!(
        bracket(spec),
        "(S (NP A man) (VP came (ADVP in) (SBAR (WHNP who) (S (VP was (ADJP tall))))) .)"
    );
    // Many crossing arcs: still well formed, whatever the fallback.
    let mut items = Vec::new();
    for i in 0..200 {
        let head = if i == 0 {
            0
        } else if i % 2 == 0 {
            (i + 3).min(199)
        } else {
            i - 1
        };
        items.push(format!("w{i}/NN/NOUN/dep/{head}"));
    }
    items[0] = "w0/VB/VERB/ROOT/0".into();
    let doc = doc_from(&items.join(" "));
    let ps = phrase_structure(&doc);
    check_invariants(&doc, &ps).unwrap();
}

#[test]
fn deep_chains_do_not_overflow() {
    let n = 100_000;
    let mut items = vec!["w/VB/VERB/ROOT/0".to_string()];
    for i in 1..n {
        items.push(format!("w/NN/NOUN/pobj/{}", i - 1));
    }
    let doc = doc_from(&items.join(" "));
    let ps = phrase_structure(&doc);
    assert_eq!(ps.roots().len(), 1);
    assert_eq!(ps.constituents()[ps.roots()[0]].span(), 0..n);
}

#[test]
#[ignore = "prints bracketings of golden docs for inspection"]
fn dump_golden_bracketings() {
    for g in common::golden_docs().iter().step_by(97) {
        let doc = common::golden_annotated(g);
        eprintln!("{}\n", phrase_structure(&doc).bracketed(&doc));
    }
}

#[test]
fn flat_long_sentence_is_linear() {
    // One root with 200k dependents: a quadratic pass would not finish in test time.
    let n = 200_000;
    let mut items = vec!["w/VB/VERB/ROOT/0".to_string()];
    for i in 1..n {
        let dep = ["punct", "dobj", "cc", "conj", "prep"][i % 5];
        items.push(format!("w/NN/NOUN/{dep}/0"));
    }
    let doc = doc_from(&items.join(" "));
    let t = std::time::Instant::now();
    let ps = phrase_structure(&doc);
    assert_eq!(ps.constituents()[ps.roots()[0]].span(), 0..n);
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}
