//! The [`Disassembler`]: runs the keep-test (re-parsing a sentence without a candidate) over the
//! candidates and the whole-reading checks, and splits long adjuncts into slots.

use std::ops::Range;
use std::sync::Arc;

use metamorph_data::{ParsedText, Result};
use metamorph_parse::spacy::pipeline::Pipeline;

use super::adjunct::{included_at, overlap, render, Adjunct, AdjunctKind, Disassembly};
use super::basic::{basic_elements, is_gapped, sentence_ranges, strips_a_verb, trim};
use super::candidates::candidates;
use super::parent_needs::needed_in_a_parent;
use super::reads_whole::{ends_cut_short, loses_its_finite_verb, orphans, seam};
use crate::lexicon::wordnet::WordNet;

/// Whether two spellings of a token are the same word (case aside; "a" and "an" are one).
fn same_word(a: &str, b: &str) -> bool {
    let article = |w: &str| w.eq_ignore_ascii_case("a") || w.eq_ignore_ascii_case("an");
    a.eq_ignore_ascii_case(b) || (article(a) && article(b))
}

/// The kinds of phrase split off the end of a longer adjunct (see
/// [`Disassembler::disassemble_parsed`]).
const SPLITTABLE: [AdjunctKind; 3] = [
    AdjunctKind::Prepositional,
    AdjunctKind::Verbal,
    AdjunctKind::Clause,
];

/// Finds adjuncts with the keep-test, re-parsing with the relation's spaCy pipeline.
pub struct Disassembler {
    parser: Arc<Pipeline>,
    wordnet: Arc<WordNet>,
    inner_levels_read: bool,
}

impl std::fmt::Debug for Disassembler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Disassembler")
            .field("parser", &self.parser.name())
            .field("inner_levels_read", &self.inner_levels_read)
            .finish()
    }
}

impl Disassembler {
    /// A disassembler over `parser` (the `en_core_web_sm` port the `parse` stage runs), with
    /// `wordnet` to tell relational adjectives.
    pub fn new(parser: Arc<Pipeline>, wordnet: Arc<WordNet>) -> Self {
        Disassembler {
            parser,
            wordnet,
            inner_levels_read: false,
        }
    }

    /// The same disassembler for trees whose inner levels are read as sentences (NLPLego-SA
    /// and -SSM, whose cases pair a parent with its child; NLPLego-MRC reads only the leaves):
    /// no level may then end a clause cut short (see `ends_cut_short`).
    pub fn reading_inner_levels(mut self) -> Self {
        self.inner_levels_read = true;
        self
    }

    /// The parser.
    pub fn parser(&self) -> &Pipeline {
        &self.parser
    }

    /// Parses `texts`, each alone.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] when a text is longer than the pipeline allows.
    pub fn parse(&self, texts: &[&str]) -> Result<Vec<ParsedText>> {
        crate::parse_alone(&self.parser, texts, "NLPLego parse")
    }

    /// Disassembles `text` (parsed alone): `None` when it has no adjunct.
    ///
    /// # Errors
    /// As [`Disassembler::parse`].
    pub fn disassemble(&self, text: &str) -> Result<Option<Disassembly>> {
        let parsed = self.parse(&[text])?.remove(0);
        self.disassemble_parsed(parsed)
    }

    /// Disassembles a text already parsed alone by this disassembler's pipeline.
    ///
    /// # Errors
    /// As [`Disassembler::parse`].
    pub fn disassemble_parsed(&self, parsed: ParsedText) -> Result<Option<Disassembly>> {
        let basic = basic_elements(&parsed.tokens);
        let mut candidates = candidates(&parsed, &self.wordnet);
        let sentences = sentence_ranges(&parsed);
        let gapped: Vec<&Range<usize>> = sentences
            .iter()
            .filter(|s| is_gapped(&parsed.tokens, s))
            .collect();
        candidates.retain(|c| !gapped.iter().any(|s| s.contains(&c.core.start)));
        if self.inner_levels_read {
            candidates
                .retain(|c| !needed_in_a_parent(&parsed.tokens, &sentences, c, &self.wordnet));
        }
        let mut accepted: Vec<Adjunct> = Vec::new();
        for candidate in &candidates {
            if accepted.iter().any(|a| overlap(a, candidate)) {
                continue;
            }
            let trial: Vec<&Adjunct> = accepted.iter().chain([candidate]).collect();
            if self.keeps_without(&parsed, &basic, &trial)? {
                accepted.push(candidate.clone());
            }
        }
        if accepted.is_empty() {
            return Ok(None);
        }
        // Split an adjunct that ends in a phrase of its own ("for the protection of the realm
        // | against further Viking incursions"), as the authors' slots do, when the sentence
        // with the first part and without the second passes the keep-test too.
        let mut k = 0;
        while k < accepted.len() {
            let outer = accepted[k].clone();
            let inner = candidates.iter().find(|c| {
                SPLITTABLE.contains(&c.kind)
                    && c.core.end == outer.core.end
                    && c.tokens.end == outer.tokens.end
                    && c.core.start > outer.core.start + 1
            });
            if let Some(inner) = inner {
                let head_core = trim(&parsed.tokens, outer.core.start..inner.tokens.start);
                let head = Adjunct {
                    kind: outer.kind,
                    tokens: outer.tokens.start..inner.tokens.start,
                    core: head_core
                        .clone()
                        .unwrap_or(outer.core.start..inner.tokens.start),
                };
                let trial: Vec<&Adjunct> = accepted
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != k)
                    .map(|(_, a)| a)
                    .chain([inner])
                    .collect();
                if head_core.is_some() && self.keeps_without(&parsed, &basic, &trial)? {
                    accepted[k] = head;
                    accepted.push(inner.clone());
                    continue;
                }
            }
            k += 1;
        }
        accepted.sort_by_key(|a| a.tokens.start);
        // Every level must read without a seam where its removed adjuncts were (see
        // [`seam`]): an adjunct that leaves one stays in the basic sentence, and the rest must
        // still pass the keep-test.
        loop {
            let seam_at = (0..=accepted.len()).find_map(|level| {
                let included = included_at(parsed.tokens.len(), &accepted, level);
                seam(&parsed.tokens, &included)
                    .or_else(|| loses_its_finite_verb(&parsed.tokens, &sentences, &included))
                    .or_else(|| {
                        self.inner_levels_read
                            .then(|| ends_cut_short(&parsed.tokens, &included))
                            .flatten()
                    })
            });
            let Some(gap_start) = seam_at else { break };
            let Some(k) = accepted.iter().position(|a| a.tokens.contains(&gap_start)) else {
                return Ok(None);
            };
            accepted.remove(k);
            let rest: Vec<&Adjunct> = accepted.iter().collect();
            if accepted.is_empty() || !self.keeps_without(&parsed, &basic, &rest)? {
                return Ok(None);
            }
        }
        Ok(Some(Disassembly {
            parsed,
            adjuncts: accepted,
        }))
    }

    /// [`Disassembler::keeps`] with the tokens of `adjuncts` removed.
    fn keeps_without(
        &self,
        parsed: &ParsedText,
        basic: &[bool],
        adjuncts: &[&Adjunct],
    ) -> Result<bool> {
        let mut removed = vec![false; parsed.tokens.len()];
        let mut aside = vec![false; parsed.tokens.len()];
        for a in adjuncts {
            for i in a.tokens.clone() {
                removed[i] = true;
                aside[i] = a.kind == AdjunctKind::Parenthetical;
            }
        }
        self.keeps(parsed, basic, &removed, &aside)
    }

    /// The keep-test: the text without the `removed` tokens re-parses into the kept tokens, and
    /// every kept basic element has its dependency label and its head unchanged (`aside`: the
    /// removed tokens of bracketed asides, see [`orphans`]).
    fn keeps(
        &self,
        parsed: &ParsedText,
        basic: &[bool],
        removed: &[bool],
        aside: &[bool],
    ) -> Result<bool> {
        let tokens = &parsed.tokens;
        // The structural checks first: they need no re-parse.
        if strips_a_verb(tokens, removed) || orphans(tokens, removed, aside) {
            return Ok(false);
        }
        let included: Vec<bool> = removed.iter().map(|r| !r).collect();
        // No sentence may start with the punctuation that joined a removed opening
        // (", the joint is called …", "; the general had never seen …").
        for sentence in &parsed.sentences {
            let first = (sentence.start as usize..sentence.end as usize).find(|&i| included[i]);
            if first.is_some_and(|i| {
                matches!(tokens[i].text.as_str(), "," | ";" | ":" | "-" | "–" | "—")
            }) {
                return Ok(false);
            }
        }
        let text = render(tokens, &included, |i| tokens[i].text.as_str());
        let reparsed = self.parse(&[&text])?.remove(0);
        let kept: Vec<usize> = (0..tokens.len()).filter(|&i| included[i]).collect();
        if reparsed.tokens.len() != kept.len() || reparsed.sentences.len() != parsed.sentences.len()
        {
            return Ok(false);
        }
        let mut new_index = vec![usize::MAX; tokens.len()];
        for (k, &i) in kept.iter().enumerate() {
            if !same_word(&reparsed.tokens[k].text, &tokens[i].text) {
                return Ok(false);
            }
            new_index[i] = k;
        }
        for (k, &i) in kept.iter().enumerate() {
            if !basic[i] {
                continue;
            }
            let (old, new) = (&tokens[i], &reparsed.tokens[k]);
            let old_head = new_index[old.head as usize];
            if new.dep != old.dep || new.head as usize != old_head {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
