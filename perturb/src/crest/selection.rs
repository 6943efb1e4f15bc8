//! CREST's follow-up selection (seed-004 Algorithms 2 and 3): a one-word mutation is kept only
//! when a re-parse shows the sentence's structure around the mentions unchanged.
//!
//! * **Constituent label** (Algorithm 3, which the artifact omits — seed G8): the replaced
//!   word keeps its preterminal (its Penn tag: `NN` stays `NN`, the seed's reading) *and* the
//!   label of the lowest constituent covering it (an adjective of an `NP` still sits in an
//!   `NP`).
//! * **Mention depth** (Algorithm 2, the paper's per-mention definition rather than the
//!   artifact's regex sets): every mention keeps its phrase-structure depth.
//!
//! Depths come from the `parse` crate's phrase-structure view (`ParsedText::phrases`), derived
//! from the dependency tree, since no constituency parser runs here. The paper counts the
//! *nodes* from the clause `S` down; the phrase view counts *edges* from the sentence root, so
//! every depth here is the paper's minus one — only equality matters:
//! * a single-token mention's depth is its preterminal's: the lowest covering constituent's
//!   depth plus one (`it` in `(S (SBAR (S (NP it) …)))` is 4 here, 5 in the paper);
//! * a longer mention's depth is that of the lowest constituent covering its span (`the fish`
//!   in `(S (NP (NP the fish) (PP in …)) …)` is 2 here, 3 in the paper).

use std::ops::Range;

use metamorph_data::ParsedText;

/// The lowest constituent of `parsed` covering tokens `span` (the deepest; for a unary chain the
/// innermost), as an index into `parsed.phrases`.
pub fn lowest_covering(parsed: &ParsedText, span: &Range<usize>) -> Option<usize> {
    parsed
        .phrases
        .iter()
        .enumerate()
        .filter(|(_, p)| p.start as usize <= span.start && span.end <= p.end as usize)
        .max_by_key(|(k, p)| (p.depth, *k))
        .map(|(k, _)| k)
}

/// The phrase-structure depth of the mention over tokens `span` (see the module docs), or
/// `None` for an empty span or one no constituent covers.
pub fn mention_depth(parsed: &ParsedText, span: &Range<usize>) -> Option<u32> {
    if span.is_empty() {
        return None;
    }
    let lowest = &parsed.phrases[lowest_covering(parsed, span)?];
    Some(if span.len() == 1 {
        lowest.depth + 1
    } else {
        lowest.depth
    })
}

/// The constituent label of token `i`: its preterminal (Penn tag) and the label of the lowest
/// constituent covering it.
pub fn constituent_label(parsed: &ParsedText, i: usize) -> Option<(&str, &str)> {
    let token = parsed.tokens.get(i)?;
    let phrase = &parsed.phrases[lowest_covering(parsed, &(i..i + 1))?];
    Some((token.tag.as_str(), phrase.label.as_str()))
}

/// Why a follow-up is rejected by the selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The follow-up does not tokenize into the source's tokens with one word replaced.
    Tokenization,
    /// The replaced word's constituent label changed.
    Label,
    /// A mention's depth changed (the mention's token range).
    Depth(Range<usize>),
}

/// Checks a follow-up parse against the source parse of the same text with token `replaced`
/// substituted: the same token count, the replaced word's constituent label unchanged, and the
/// depth of every mention in `mentions` (token ranges, equal in both since the token counts
/// match) unchanged.
///
/// # Errors
/// The first [`Rejection`] found.
pub fn check(
    source: &ParsedText,
    followup: &ParsedText,
    replaced: usize,
    mentions: &[Range<usize>],
) -> Result<(), Rejection> {
    if source.tokens.len() != followup.tokens.len() {
        return Err(Rejection::Tokenization);
    }
    if constituent_label(source, replaced) != constituent_label(followup, replaced) {
        return Err(Rejection::Label);
    }
    for mention in mentions {
        if mention_depth(source, mention) != mention_depth(followup, mention) {
            return Err(Rejection::Depth(mention.clone()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::pipeline;
    use metamorph_data::{Phrase, Token};

    fn parsed(text: &str) -> ParsedText {
        let docs = pipeline().process(&[text]).unwrap();
        metamorph_parse::to_parsed_text("x", "text", &docs[0])
    }

    /// Figure 1 as CoreNLP brackets it (the paper's tree, root `S` at depth 0):
    /// `(S (NP (NP The fish) (PP in (NP the clean lake))) (VP ate (NP the worm))
    ///  (SBAR because (S (NP it) (VP is (ADJP tasty)))) .)`.
    fn figure_1_tree() -> ParsedText {
        let words = "The fish in the clean lake ate the worm because it is tasty .";
        let tokens = words
            .split(' ')
            .map(|w| Token {
                tag: if w == "it" { "PRP".into() } else { "X".into() },
                ..crate::testing::token(w)
            })
            .collect();
        let phrase = |label: &str, start: u32, end: u32, depth: u32| Phrase {
            label: label.into(),
            start,
            end,
            depth,
        };
        ParsedText {
            id: "fig1".into(),
            field: "text".into(),
            text: words.into(),
            tokens,
            sentences: vec![],
            noun_chunks: vec![],
            phrases: vec![
                phrase("S", 0, 14, 0),
                phrase("NP", 0, 6, 1),
                phrase("NP", 0, 2, 2),
                phrase("PP", 2, 6, 2),
                phrase("NP", 3, 6, 3),
                phrase("VP", 6, 9, 1),
                phrase("NP", 7, 9, 2),
                phrase("SBAR", 9, 13, 1),
                phrase("S", 10, 13, 2),
                phrase("NP", 10, 11, 3),
                phrase("VP", 11, 13, 3),
                phrase("ADJP", 12, 13, 4),
            ],
        }
    }

    #[test]
    fn figure_1_depths_are_the_papers_minus_one() {
        let tree = figure_1_tree();
        // "it" = S-SBAR-S-NP-PRP: 5 nodes in the paper, 4 edges here.
        assert_eq!(mention_depth(&tree, &(10..11)), Some(4));
        // "the fish" = S-NP-NP: 3 nodes in the paper, 2 edges here.
        assert_eq!(mention_depth(&tree, &(0..2)), Some(2));
        // "the worm" = S-VP-NP.
        assert_eq!(mention_depth(&tree, &(7..9)), Some(2));
        assert_eq!(constituent_label(&tree, 4), Some(("X", "NP")));
        assert_eq!(mention_depth(&tree, &(3..3)), None);
    }

    #[test]
    fn figure_1_real_parse_keeps_an_adjective_swap_and_the_mention_depths() {
        // en_core_web_sm reads Figure 1's "the clean lake" as a name (Clean/NNP Lake/NNP), so
        // "clean" → "dirty" changes the replaced word's preterminal: rejected. From "dirty"
        // (JJ), "filthy" keeps everything.
        let clean = parsed("The fish in the clean lake ate the worm because it is tasty.");
        let source = parsed("The fish in the dirty lake ate the worm because it is tasty.");
        let followup = parsed("The fish in the filthy lake ate the worm because it is tasty.");
        let mentions = [7..9, 10..11];
        assert_eq!(check(&clean, &source, 4, &mentions), Err(Rejection::Label));
        assert_eq!(check(&source, &followup, 4, &mentions), Ok(()));
        // The spaCy-derived tree attaches the SBAR under the VP, one level lower than CoreNLP's
        // (4 and 2 in Figure 1's tree), so "it" is at 5, "the fish" at 2.
        assert_eq!(mention_depth(&source, &(10..11)), Some(5));
        assert_eq!(mention_depth(&source, &(0..2)), Some(2));
        let it = mention_depth(&source, &(10..11)).unwrap();
        let fish = mention_depth(&source, &(0..2)).unwrap();
        assert!(it > fish, "it {it} vs the fish {fish}");
    }

    #[test]
    fn a_changed_label_or_token_count_is_rejected() {
        let source = parsed("The fish in the clean lake ate the worm because it is tasty.");
        // "clean" (JJ) → "cleans" (VBZ) changes the replaced word's preterminal.
        let verb = parsed("The fish in the cleans lake ate the worm because it is tasty.");
        assert_ne!(check(&source, &verb, 4, &[7..9, 10..11]), Ok(()));
        let split = parsed("The fish in the well-kept lake ate the worm because it is tasty.");
        assert_eq!(
            check(&source, &split, 4, &[7..9, 10..11]),
            Err(Rejection::Tokenization)
        );
    }

    #[test]
    fn a_moved_mention_is_a_depth_change() {
        let source = figure_1_tree();
        let mut followup = figure_1_tree();
        // Attach the SBAR under the VP: "it" sinks one level.
        for p in followup.phrases.iter_mut().filter(|p| p.start >= 9) {
            p.depth += 1;
        }
        assert_eq!(
            check(&source, &followup, 4, &[7..9, 10..11]),
            Err(Rejection::Depth(10..11))
        );
    }
}
