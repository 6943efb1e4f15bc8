//! The lookup API on a loaded [`WordNet`]: synsets of a lemma, morphy, sense counts, antonyms and
//! synonyms as [`Word`]s.

use std::collections::HashMap;
use std::path::Path;

#[cfg(doc)]
use metamorph_data::Error;
use metamorph_data::Result;

use super::load::{malformed, read_text};
use super::store::WordNet;
use super::synset::{Lemma, Synset};
use super::types::{Pos, Relation, SynsetId};
use crate::lexicon::inflect::Inflections;

impl WordNet {
    /// The folder the database was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many synsets were loaded (all parts of speech).
    pub fn synset_count(&self) -> usize {
        self.synsets.len()
    }

    /// How many distinct lemmas the index files list (all parts of speech).
    pub fn lemma_count(&self) -> usize {
        self.index.len()
    }

    /// The synset for a handle.
    pub fn synset(&self, id: SynsetId) -> Synset<'_> {
        Synset { wn: self, id }
    }

    /// The synset at `offset` in the data file of `pos` (NLTK's `synset_from_pos_and_offset`).
    pub fn synset_at(&self, pos: Pos, offset: u32) -> Option<Synset<'_>> {
        self.find_offset(pos, offset).map(|id| self.synset(id))
    }

    /// The synset called `name` (`dog.n.01`, `good.s.06`), as NLTK's `synset(name)`: the n-th
    /// sense of the lemma in the index of that POS (`s` and `a` share the adjective index).
    pub fn synset_by_name(&self, name: &str) -> Option<Synset<'_>> {
        let mut parts = name.rsplitn(3, '.');
        let number: usize = parts.next()?.parse().ok()?;
        let pos = Pos::from_tag(parts.next()?)?;
        let lemma = parts.next()?;
        let ids = self.index_entry(lemma, pos);
        let id = *ids.get(number.checked_sub(1)?)?;
        Some(self.synset(id))
    }

    /// The synsets the index lists for exactly `lemma` (already lowercase, underscores) in
    /// sense order; no normalisation, no morphy.
    pub fn index_entry(&self, lemma: &str, pos: Pos) -> &[SynsetId] {
        self.index
            .get(lemma)
            .and_then(|spans| self.index_synsets.get(spans[pos.index()].range()))
            .unwrap_or(&[])
    }

    fn in_index(&self, lemma: &str, pos: Pos) -> bool {
        !self.index_entry(lemma, pos).is_empty()
    }

    /// This WordNet with morphological exceptions taken from lemminflect's lemma tables (the
    /// package has no `*.exc` files; see the module doc).
    pub fn with_exceptions(mut self, inflections: std::sync::Arc<Inflections>) -> Self {
        self.exceptions = Some(inflections);
        self
    }

    /// The irregular base forms of `form` as `pos`: lemminflect's table lemmas of `form` that
    /// no detachment rule reaches (empty without [`WordNet::with_exceptions`]).
    pub fn exceptions(&self, form: &str, pos: Pos) -> Vec<String> {
        let Some(inflections) = &self.exceptions else {
            return Vec::new();
        };
        let regular = self.detachments(form, pos);
        inflections
            .lemmas(&form.replace('_', " "), pos.upos())
            .into_iter()
            .map(|l| normalize(&l))
            .filter(|l| l != form && !regular.contains(l))
            .collect()
    }

    /// `form` and each result of one detachment rule, in rule order.
    fn detachments(&self, form: &str, pos: Pos) -> Vec<String> {
        let mut candidates = vec![form.to_string()];
        for (old, new) in pos.substitutions() {
            if let Some(stem) = form.strip_suffix(old) {
                candidates.push(format!("{stem}{new}"));
            }
        }
        candidates
    }

    /// NLTK's `_morphy(form, pos)`: when `form` has exceptions ([`WordNet::exceptions`]),
    /// `form` and those; otherwise `form` itself and each result of one detachment rule, in
    /// rule order; kept when the index of `pos` lists it, without duplicates. `form` should be
    /// lowercase with underscores, as [`WordNet::synsets`] passes it.
    pub fn morphy(&self, form: &str, pos: Pos) -> Vec<String> {
        let exceptions = self.exceptions(form, pos);
        let candidates = if exceptions.is_empty() {
            self.detachments(form, pos)
        } else {
            std::iter::once(form.to_string())
                .chain(exceptions)
                .collect()
        };
        let mut out: Vec<String> = Vec::new();
        for c in candidates {
            if self.in_index(&c, pos) && !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The synsets of `lemma` as `pos`, in the order NLTK's `wordnet.synsets(lemma, pos)`
    /// returns them: the lemma is lowercased (and, beyond NLTK, spaces become underscores), its
    /// base forms are found with [`WordNet::morphy`], and each form's synsets follow in WordNet
    /// sense order. Unknown words give an empty list.
    pub fn synsets(&self, lemma: &str, pos: Pos) -> Vec<Synset<'_>> {
        let form = normalize(lemma);
        self.morphy(&form, pos)
            .iter()
            .flat_map(|f| self.index_entry(f, pos).iter())
            .map(|&id| self.synset(id))
            .collect()
    }

    /// How often `lemma` was tagged in `synset`'s sense in the semantic concordance (NLTK's
    /// `Lemma.count()`, from `index.sense`): 0 for senses never seen in running text, which is
    /// how rare or archaic synonyms ("coevals" for "generation") are told apart.
    ///
    /// # Errors
    /// [`Error::Io`] when `index.sense` cannot be read; [`Error::Malformed`] naming its line.
    pub fn sense_count(&self, synset: Synset<'_>, lemma: &str) -> Result<u32> {
        if self.sense_counts.get().is_none() {
            let path = self.dir.join("index.sense");
            let text = read_text(&path)?;
            let mut counts = HashMap::with_capacity(210_000);
            for (n, line) in text.lines().enumerate() {
                // `lemma%ss_type:lex_filenum:lex_id:head_word:head_id offset sense_number count`
                let mut fields = line.split(' ');
                let (Some(key), Some(offset), Some(_), Some(count)) =
                    (fields.next(), fields.next(), fields.next(), fields.next())
                else {
                    return Err(malformed(&path, n + 1, "sense", "expected four fields"));
                };
                let Some((name, rest)) = key.split_once('%') else {
                    return Err(malformed(&path, n + 1, "sense key", "no `%`"));
                };
                let pos = match rest.as_bytes().first() {
                    Some(b'1') => Pos::Noun,
                    Some(b'2') => Pos::Verb,
                    Some(b'3' | b'5') => Pos::Adj,
                    Some(b'4') => Pos::Adv,
                    _ => return Err(malformed(&path, n + 1, "sense key", "unknown ss_type")),
                };
                let (Ok(offset), Ok(count)) = (offset.parse::<u32>(), count.parse::<u32>()) else {
                    return Err(malformed(&path, n + 1, "offset/count", "not a number"));
                };
                counts.insert((Box::from(name), pos.index(), offset), count);
            }
            let _ = self.sense_counts.set(counts);
        }
        let counts = self.sense_counts.get().expect("set above");
        let key = (
            Box::from(normalize(lemma).as_str()),
            synset.pos().index(),
            synset.offset(),
        );
        Ok(counts.get(&key).copied().unwrap_or(0))
    }

    /// The synsets of `lemma` in every POS (NLTK's `synsets(lemma)` with no POS: nouns, verbs,
    /// adjectives, adverbs).
    pub fn synsets_any_pos(&self, lemma: &str) -> Vec<Synset<'_>> {
        Pos::ALL
            .iter()
            .flat_map(|&pos| self.synsets(lemma, pos))
            .collect()
    }

    /// The antonyms of `lemma` in `synset` (NLTK's `lemma.antonyms()`): see
    /// [`Synset::lemma_antonyms`].
    pub fn lemma_antonyms<'a>(&'a self, synset: Synset<'a>, lemma: &str) -> Vec<Lemma<'a>> {
        synset.lemma_antonyms(lemma)
    }

    /// The hypernyms of `synset`, `@` and instance `@i` together: see
    /// [`Synset::hypernyms_and_instances`].
    pub fn hypernyms<'a>(&'a self, synset: Synset<'a>) -> Vec<Synset<'a>> {
        synset.hypernyms_and_instances()
    }

    /// MR1-1's antonym candidates for `word` (seed-000, `tool/MR1_1.py`): for each synset of
    /// `wordnet.synsets(word, pos)` in order, for each of its lemmas in order (every lemma, not
    /// only `word`), the first antonym of that lemma (`lemma.antonyms()[0].name()`) when it has
    /// one. The authors then drop duplicate (adjective, antonym) pairs; here duplicates are
    /// dropped keeping the first occurrence, so the order is the enumeration order.
    pub fn antonyms(&self, word: &str, pos: Pos) -> Vec<Word> {
        let mut out: Vec<Word> = Vec::new();
        for synset in self.synsets(word, pos) {
            for lemma in synset.lemmas() {
                if let Some(first) = synset.lemma_antonyms(lemma.name()).first() {
                    push_unique(&mut out, first.name());
                }
            }
        }
        out
    }

    /// Every word of the opposite sense of any sense of `word` (lower case): the lemmas of its
    /// antonyms' synsets and, for an adjective, of their satellites, reached through the head
    /// of a satellite sense ("slow" → "fast", "rapid", "quick"; "rounded" → "angular", …).
    /// An opposite keeps a sentence fluent and the encoder's reading close, yet flips what it
    /// says: the indirect antonyms [`WordNet::antonyms`] does not list.
    pub fn opposites(&self, word: &str, pos: Pos) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |name: &str| {
            let name = name.replace('_', " ").to_lowercase();
            if !out.contains(&name) {
                out.push(name);
            }
        };
        for synset in self.synsets(word, pos) {
            let heads = if synset.is_satellite() {
                synset.similar_tos()
            } else {
                vec![synset]
            };
            for head in heads {
                for lemma in head.lemmas() {
                    for antonym in lemma.related(Relation::Antonym) {
                        let opposite = antonym.synset();
                        opposite.lemma_names().into_iter().for_each(&mut push);
                        if pos == Pos::Adj {
                            for satellite in opposite.similar_tos() {
                                satellite.lemma_names().into_iter().for_each(&mut push);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// MR2-1's synonym candidates for `word` (seed-000, `tool/MR2_1.py`): every lemma name of
    /// every synset of `wordnet.synsets(word, pos)`, in synset then lemma order, lowercased,
    /// except those equal to the word itself (compared after normalising it like
    /// [`WordNet::synsets`]). The authors emit one follow-up per occurrence; here repeated names
    /// are kept once, at their first occurrence.
    pub fn synonyms(&self, word: &str, pos: Pos) -> Vec<Word> {
        let own = normalize(word);
        let mut out: Vec<Word> = Vec::new();
        for synset in self.synsets(word, pos) {
            for lemma in synset.lemmas() {
                let name = lemma.name().to_lowercase();
                if name != own {
                    push_unique(&mut out, &name);
                }
            }
        }
        out
    }
}

fn push_unique(out: &mut Vec<Word>, raw: &str) {
    if !out.iter().any(|w| w.raw == raw) {
        out.push(Word::new(raw));
    }
}

/// Lowercases and turns spaces into underscores, the form the index files use.
pub fn normalize(lemma: &str) -> String {
    lemma.trim().to_lowercase().replace(' ', "_")
}

/// A word produced for substitution: WordNet's raw lemma name and its display form.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Word {
    /// As WordNet spells it, multiword names joined by underscores (`well_known`); this is what
    /// the MT4MRC code substitutes.
    pub raw: String,
    /// With underscores replaced by spaces (`well known`), for natural text.
    pub display: String,
}

impl Word {
    fn new(raw: &str) -> Word {
        Word {
            raw: raw.to_string(),
            display: raw.replace('_', " "),
        }
    }
}
