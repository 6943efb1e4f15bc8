//! Pronouns whose referent could move with the subject.
//!
//! English readers resolve a third-person pronoun to the clause's subject first. When the voice
//! changes, the subject changes, and a pronoun elsewhere in the sentence that could refer to
//! either noun phrase may silently change its referent: "After Pleasant threatens *him*, Denton
//! probes Boyd" (him = Denton) → "After Pleasant threatens *him*, Boyd is probed by Denton"
//! (him = Boyd); "Liman disliked him and *he* had a quarrel with Faik" → "He was disliked by
//! Liman and *he* had a quarrel …" (both readers of the 2026-11-30 reading on other corpora
//! marked such rows invalid). A sentence is left alone when a pronoun outside the two moved
//! phrases agrees with both of them.

use std::ops::Range;

use super::boundaries::Lower;
use super::grammar::agreement;
use super::relation::VoiceChange;
use crate::lexicon::gender::Gender;
use crate::lexicon::wordnet::{lexfile, Pos};
use crate::syntax::Tree;

/// The referent class a third-person pronoun asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Referent {
    Masculine,
    Feminine,
    Neuter,
    Plural,
}

impl Referent {
    fn of_pronoun(word: &str) -> Option<Referent> {
        Some(match word {
            "he" | "him" | "his" | "himself" => Referent::Masculine,
            "she" | "her" | "hers" | "herself" => Referent::Feminine,
            "it" | "its" | "itself" => Referent::Neuter,
            "they" | "them" | "their" | "theirs" | "themselves" => Referent::Plural,
            _ => return None,
        })
    }
}

impl VoiceChange {
    /// Whether the noun phrase headed by `head` could be what `referent` refers to: a pronoun
    /// of the same class, or a noun of the right number. For *he* and *she* the noun must be
    /// able to name a living being (a person's name, an unnamed proper noun, or a common noun
    /// one of whose WordNet senses is a person or an animal) of a gender that does not
    /// exclude the pronoun's (a gendered noun, title or given name); for *it*, anything but a
    /// person's name.
    fn could_be(&self, tree: &Tree<'_>, head: usize, referent: Referent) -> bool {
        let token = tree.token(head);
        if token.tag == "PRP" {
            return Referent::of_pronoun(&token.lower()) == Some(referent);
        }
        let Some(agreement) = agreement(tree, head) else {
            // Unknown number: either reading is possible.
            return true;
        };
        let entity = token.ent_type.as_str();
        let gender = match referent {
            Referent::Plural => return agreement.plural,
            Referent::Neuter => return !agreement.plural && entity != "PERSON",
            Referent::Masculine => Gender::Male,
            Referent::Feminine => Gender::Female,
        };
        if agreement.plural {
            return false;
        }
        let known_gender = match token.pos.as_str() {
            "PROPN" if entity == "PERSON" => {
                let name = tree.text(self.name_span(tree, head));
                self.first_names.person_gender(&name)
            }
            "PROPN" if entity.is_empty() => None,
            "PROPN" => return false,
            _ => {
                if !self.names_living_being(&token.lemma.to_lowercase(), false) {
                    return false;
                }
                crate::lexicon::gender::gender(&token.text)
            }
        };
        known_gender.is_none_or(|g| g == gender)
    }

    /// The head's name: its compound and title modifiers and the head ("Dr. Walter Freeman").
    fn name_span(&self, tree: &Tree<'_>, head: usize) -> Range<usize> {
        let mut start = head;
        while start > 0 && tree.head(start - 1) == head && tree.token(start - 1).dep == "compound" {
            start -= 1;
        }
        start..head + 1
    }

    /// Whether some WordNet sense of the noun `lemma` (only its first, commonest sense with
    /// `first_sense_only`) is a person or an animal; an unknown noun may be anything, so it
    /// counts as one when all senses are asked about and not otherwise.
    pub(super) fn names_living_being(&self, lemma: &str, first_sense_only: bool) -> bool {
        let senses = self.wordnet.synsets(lemma, Pos::Noun);
        if senses.is_empty() {
            return !first_sense_only;
        }
        self.senses_are_a(senses, first_sense_only, &["person.n.01", "animal.n.01"])
    }

    /// Whether the noun `lemma`'s first sense is an abstraction no hand acts on: an act, an
    /// event, a time, a state, an attribute, a feeling, a process or a relation (WordNet's
    /// lexicographer files; "victory", "duty", "dry spell", "course").
    pub(super) fn names_an_abstraction(&self, lemma: &str) -> bool {
        self.first_noun_lexfile(lemma).is_some_and(|file| {
            [
                lexfile::NOUN_ACT,
                lexfile::NOUN_EVENT,
                lexfile::NOUN_TIME,
                lexfile::NOUN_STATE,
                lexfile::NOUN_ATTRIBUTE,
                lexfile::NOUN_FEELING,
                lexfile::NOUN_PROCESS,
                lexfile::NOUN_RELATION,
            ]
            .contains(&file)
        })
    }

    /// The lexicographer file of the noun `lemma`'s first sense ([`lexfile`]), or `None` for
    /// a word WordNet has no noun for.
    pub(super) fn first_noun_lexfile(&self, lemma: &str) -> Option<u8> {
        self.wordnet
            .synsets(lemma, Pos::Noun)
            .first()
            .map(|sense| sense.lex_filenum())
    }

    /// Whether the noun `lemma`'s first sense is a disease, disorder or symptom (WordNet's
    /// `ill_health.n.01`, `symptom.n.01`, `syndrome.n.01` and below).
    pub(super) fn names_a_disorder(&self, lemma: &str) -> bool {
        self.noun_is_a(
            lemma,
            true,
            &["ill_health.n.01", "symptom.n.01", "syndrome.n.01"],
        )
    }

    /// Whether the noun `lemma`'s first sense is a made thing, a work or an idea (WordNet's
    /// `artifact.n.01`, `creation.n.02`, `communication.n.02`, `cognition.n.01` and below): what
    /// a person develops by making it ("developed a vaccine", "developed a theory").
    pub(super) fn names_a_made_thing_or_idea(&self, lemma: &str) -> bool {
        self.noun_is_a(
            lemma,
            true,
            &[
                "artifact.n.01",
                "creation.n.02",
                "communication.n.02",
                "cognition.n.01",
            ],
        )
    }

    /// Whether a sense of the noun `lemma` (its first only, or any) is one of the synsets
    /// named `roots` or lies below one in WordNet's hypernym graph.
    fn noun_is_a(&self, lemma: &str, first_sense_only: bool, roots: &[&str]) -> bool {
        self.senses_are_a(
            self.wordnet.synsets(lemma, Pos::Noun),
            first_sense_only,
            roots,
        )
    }

    /// [`VoiceChange::noun_is_a`] over senses already looked up.
    fn senses_are_a(
        &self,
        mut senses: Vec<crate::lexicon::wordnet::Synset<'_>>,
        first_sense_only: bool,
        roots: &[&str],
    ) -> bool {
        if first_sense_only {
            senses.truncate(1);
        }
        let roots: Vec<_> = roots
            .iter()
            .filter_map(|name| self.wordnet.synset_by_name(name).map(|s| s.id()))
            .collect();
        senses.into_iter().any(|sense| {
            let mut frontier = vec![sense];
            let mut seen = std::collections::HashSet::new();
            while let Some(s) = frontier.pop() {
                if roots.contains(&s.id()) {
                    return true;
                }
                if seen.insert(s.id()) {
                    frontier.extend(self.wordnet.hypernyms(s));
                }
            }
            false
        })
    }

    /// Whether a possessive pronoun inside the subject (`subject`) could refer to the object
    /// headed by `object`: "Their manners had sophisticated the young girls" leaves open whose
    /// manners they are, but in "The young girls had been sophisticated by their manners" the
    /// pronoun follows the girls and reads as theirs. A pronoun object is the same referent
    /// either way ("Her stint exhausted her").
    pub(super) fn possessive_may_bind_to_object(
        &self,
        tree: &Tree<'_>,
        subject: &Range<usize>,
        object: usize,
    ) -> bool {
        let head = tree.token(object);
        if head.tag == "PRP" {
            return false;
        }
        // A person, animal or group in the noun's commonest sense: "the game" (whose rarer
        // sense is hunted animals) is not one that "his" refers to.
        let living = head.ent_type == "PERSON"
            || head.ent_type == "NORP"
            || (head.pos != "PROPN" && self.names_living_being(&head.lemma.to_lowercase(), true));
        subject.clone().any(|i| {
            let token = tree.token(i);
            token.tag == "PRP$"
                && Referent::of_pronoun(&token.lower()).is_some_and(|referent| {
                    self.could_be(tree, object, referent)
                        && (referent == Referent::Neuter) != living
                })
        })
    }

    /// Whether a third-person pronoun of `sentence` outside the two moving noun phrases
    /// (`first`, `second`, headed by `first_head` and `second_head`) could refer to either of
    /// them, so that its referent may change with the subject.
    pub(super) fn pronoun_may_shift(
        &self,
        tree: &Tree<'_>,
        sentence: &Range<usize>,
        (first, first_head): (&Range<usize>, usize),
        (second, second_head): (&Range<usize>, usize),
    ) -> bool {
        sentence.clone().any(|i| {
            if first.contains(&i) || second.contains(&i) {
                return false;
            }
            let token = tree.token(i);
            // The expletive or weather *it* ("it rains", "it is said that") refers to nothing.
            if !matches!(token.tag.as_str(), "PRP" | "PRP$") || token.dep == "expl" {
                return false;
            }
            Referent::of_pronoun(&token.lower()).is_some_and(|referent| {
                self.could_be(tree, first_head, referent)
                    && self.could_be(tree, second_head, referent)
            })
        })
    }
}
