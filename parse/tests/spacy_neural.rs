//! Parity of the neural components (tok2vec, tagger, parser, NER) with spaCy on spaCy's own
//! tokenisation, so that tokenizer differences cannot hide or cause mismatches here.

mod common;

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
