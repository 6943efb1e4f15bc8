//! Parity of the neural components (tok2vec, tagger, parser, NER) with spaCy on spaCy's own
//! tokenisation, so that tokenizer differences cannot hide or cause mismatches here.

use crate::common;

use metamorph_parse::spacy::lexeme::Vocab;
use metamorph_parse::spacy::msgpack::ThincModel;
use metamorph_parse::spacy::tagger::Tagger;
use metamorph_parse::spacy::tok2vec::Tok2Vec;

#[test]
fn tagger_matches_spacy_on_golden_tokens() {
    let dir = common::en_core_web_sm();
    let vocab = Vocab::load(&dir).unwrap();
    let tok2vec =
        Tok2Vec::from_model(&ThincModel::read(&dir.join("tok2vec/model")).unwrap()).unwrap();
    let tagger = Tagger::from_dir(&dir.join("tagger")).unwrap();
    let golden = common::golden_docs();
    let (mut total, mut wrong, mut shown) = (0, 0, 0);
    for g in &golden {
        let mut doc = common::golden_tokens(g);
        // Norms that differ are tokenizer special cases (`n't` → `not`): take spaCy's, since this
        // test feeds spaCy's tokens without running the tokenizer.
        for i in 0..doc.len() {
            if vocab.token_norm(&doc, i) != g.norm[i] {
                doc.tokens[i].norm_exception = Some(g.norm[i].clone());
            }
        }
        let features: Vec<_> = (0..doc.len()).map(|i| vocab.features(&doc, i)).collect();
        let vectors = tok2vec.forward(&[features.as_slice()]);
        tagger.apply(&mut doc, &vectors[0]);
        for (i, t) in doc.tokens.iter().enumerate() {
            total += 1;
            if t.tag != g.tag[i] {
                wrong += 1;
                if shown < 10 {
                    shown += 1;
                    eprintln!(
                        "{:?} token {i} {:?}: {} vs spaCy {}",
                        g.source, g.words[i], t.tag, g.tag[i]
                    );
                }
            }
        }
    }
    eprintln!("tagger: {wrong} of {total} tags differ from spaCy");
    assert!(wrong * 1000 <= total, "{wrong} of {total} tags differ");
}

#[test]
fn parser_and_ner_match_spacy_on_golden_tokens() {
    use metamorph_parse::spacy::parser::{DependencyParser, EntityRecognizer};
    let dir = common::en_core_web_sm();
    let vocab = Vocab::load(&dir).unwrap();
    let tok2vec =
        Tok2Vec::from_model(&ThincModel::read(&dir.join("tok2vec/model")).unwrap()).unwrap();
    let parser = DependencyParser::from_dir(&dir.join("parser")).unwrap();
    let ner = EntityRecognizer::from_dir(&dir.join("ner")).unwrap();
    let golden = common::golden_docs();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    let mut total = 0;
    let mut shown = 0;
    // Batches of 16 documents exercise the batched layout and decoding.
    for chunk in golden.chunks(16) {
        let mut docs: Vec<_> = chunk
            .iter()
            .map(|g| {
                let mut doc = common::golden_tokens(g);
                for i in 0..doc.len() {
                    if vocab.token_norm(&doc, i) != g.norm[i] {
                        doc.tokens[i].norm_exception = Some(g.norm[i].clone());
                    }
                }
                doc
            })
            .collect();
        let features: Vec<Vec<_>> = docs
            .iter()
            .map(|d| (0..d.len()).map(|i| vocab.features(d, i)).collect())
            .collect();
        let feature_refs: Vec<&[_]> = features.iter().map(Vec::as_slice).collect();
        let vectors = tok2vec.forward(&feature_refs);
        parser.apply(&mut docs, &vectors);
        ner.apply(&mut docs, &feature_refs);
        for (doc, g) in docs.iter().zip(chunk) {
            for (i, t) in doc.tokens.iter().enumerate() {
                total += 1;
                let checks = [
                    ("head", t.head == g.head[i]),
                    // The attribute ruler, not the parser, relabels whitespace tokens `dep`.
                    (
                        "dep",
                        t.dep == g.dep[i] || metamorph_parse::spacy::lexeme::is_space(&g.words[i]),
                    ),
                    ("sent_start", t.sent_start == g.sent_start[i]),
                    ("ent_iob", t.ent_iob.as_str() == g.ent_iob[i]),
                    ("ent_type", t.ent_type == g.ent_type[i]),
                ];
                for (name, ok) in checks {
                    if !ok {
                        *counts.entry(name).or_default() += 1;
                        if shown < 15 {
                            shown += 1;
                            eprintln!(
                                "{:?} token {i} {:?} {name}: ours head {} {} {}{} vs spaCy head {} {} {}{}",
                                g.source, g.words[i], t.head, t.dep, t.ent_iob.as_str(), t.ent_type,
                                g.head[i], g.dep[i], g.ent_iob[i], g.ent_type[i]
                            );
                        }
                    }
                }
            }
        }
    }
    eprintln!("parser/ner on {total} tokens, mismatches: {counts:?}");
    for (name, n) in &counts {
        assert!(
            n * 1000 <= total,
            "{n} of {total} `{name}` values differ from spaCy"
        );
    }
}

/// The embedding cache returns the same bits as a computation: vectors of a batch whose tokens
/// were all seen before (every row from the cache) equal those of a fresh model (none from
/// it), and those of the same batch run again.
#[test]
fn cached_embeddings_give_the_same_vectors() {
    let dir = common::en_core_web_sm();
    let vocab = Vocab::load(&dir).unwrap();
    let load =
        || Tok2Vec::from_model(&ThincModel::read(&dir.join("tok2vec/model")).unwrap()).unwrap();
    let golden = common::golden_docs();
    let features: Vec<Vec<_>> = golden
        .iter()
        .take(40)
        .map(|g| {
            let doc = common::golden_tokens(g);
            (0..doc.len()).map(|i| vocab.features(&doc, i)).collect()
        })
        .collect();
    let batch: Vec<&[_]> = features.iter().map(Vec::as_slice).collect();
    let warm = load();
    let first = warm.forward(&batch);
    let again = warm.forward(&batch);
    // One document at a time through a fresh model: the cache fills as it goes.
    let fresh = load();
    let one_by_one: Vec<_> = batch
        .iter()
        .map(|doc| fresh.forward(&[doc]).remove(0))
        .collect();
    let cold = load().forward(&batch);
    assert_eq!(first, again);
    assert_eq!(first, cold);
    // Batching changes nothing either: each document's rows are its own.
    assert_eq!(first, one_by_one);
    assert!(first.iter().map(|v| v.len()).sum::<usize>() > 500);
}
