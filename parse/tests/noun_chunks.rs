//! `noun_chunks` against spaCy 3.8's `doc.noun_chunks` on the golden corpus.

use crate::common;

use metamorph_parse::noun_chunks::noun_chunks;

#[test]
fn noun_chunks_match_spacy_on_golden_docs() {
    let docs = common::golden_docs();
    let (mut docs_ok, mut sents_ok, mut sents_total) = (0usize, 0usize, 0usize);
    let (mut chunks_ok, mut chunks_gold, mut chunks_ours) = (0usize, 0usize, 0usize);
    let mut shown = 0;
    for g in &docs {
        let doc = common::golden_annotated(g);
        let ours: Vec<(usize, usize)> = noun_chunks(&doc)
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect();
        chunks_gold += g.noun_chunks.len();
        chunks_ours += ours.len();
        chunks_ok += ours.iter().filter(|c| g.noun_chunks.contains(c)).count();
        if ours == g.noun_chunks {
            docs_ok += 1;
        } else if shown < 5 {
            shown += 1;
            eprintln!(
                "MISMATCH {:?}\n  gold {:?}\n  ours {:?}",
                g.text, g.noun_chunks, ours
            );
        }
        for s in doc.sentences() {
            sents_total += 1;
            let inside = |c: &&(usize, usize)| c.0 >= s.start && c.0 < s.end;
            let a: Vec<_> = ours.iter().filter(inside).collect();
            let b: Vec<_> = g.noun_chunks.iter().filter(inside).collect();
            if a == b {
                sents_ok += 1;
            }
        }
    }
    eprintln!(
        "noun chunks: docs {docs_ok}/{} identical, sentences {sents_ok}/{sents_total} identical, \
         chunks {chunks_ok} matched of {chunks_gold} gold / {chunks_ours} ours",
        docs.len()
    );
    assert!(
        docs.len() > 1000 && chunks_gold > 5000,
        "golden corpus unexpectedly small"
    );
    assert!(
        docs_ok * 1000 >= docs.len() * 995,
        "docs: {docs_ok}/{}",
        docs.len()
    );
    assert!(
        sents_ok * 1000 >= sents_total * 995,
        "sentences: {sents_ok}/{sents_total}"
    );
}
