//! The grammar a voice change must keep: tense, the auxiliary chain, subject agreement, pronoun
//! case, and the [`Words`] builder of a rebuilt clause.

use super::boundaries::{is_quote, Lower};
use super::word_lists::PARTITIVES;
use crate::lexicon::inflect::Person;
use crate::syntax::Tree;

/// Person and number of a subject, for agreement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Agreement {
    pub(super) person: Person,
    pub(super) plural: bool,
}

impl Agreement {
    pub(super) const SINGULAR: Agreement = Agreement {
        person: Person::Third,
        plural: false,
    };
    pub(super) const PLURAL: Agreement = Agreement {
        person: Person::Third,
        plural: true,
    };

    /// Third person singular (takes `-s`, `has`, `is`).
    pub(super) fn third_singular(self) -> bool {
        self.person == Person::Third && !self.plural
    }
}

/// Present or past, from the tag of a finite verb or auxiliary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tense {
    Present,
    Past,
}

impl Tense {
    pub(super) fn of(tag: &str) -> Option<Tense> {
        match tag {
            "VBZ" | "VBP" => Some(Tense::Present),
            "VBD" => Some(Tense::Past),
            _ => None,
        }
    }
}

/// The auxiliary chain of a clause (adverbs and negation left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Chain {
    /// `uses`, `used` / `is used`, `was used`.
    Simple(Tense),
    /// `does use` (active only).
    Do(Tense),
    /// `can use` / `can be used`.
    Modal,
    /// `has used` / `has been used`.
    Perfect(Tense),
    /// `could have used` / `could have been used`.
    ModalPerfect,
    /// `is using` / `is being used`.
    Progressive(Tense),
}

/// One word of a rebuilt clause, glued to the previous one when it was in the source (`n't`).
pub(super) struct Words(pub(super) String);

impl Words {
    pub(super) fn push(&mut self, word: &str, glued: bool) {
        if !self.0.is_empty() && !glued {
            self.0.push(' ');
        }
        self.0.push_str(word);
    }
}

/// Which way a noun phrase moves: to the subject position (front) or the object / agent one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// It becomes the subject: accusative pronouns turn nominative.
    Subject,
    /// It becomes the object or the agent: nominative pronouns turn accusative.
    Object,
}

/// Nominative → accusative: `he` → `him`.
pub(super) fn accusative(word: &str) -> Option<&'static str> {
    Some(match word.to_lowercase().as_str() {
        "i" => "me",
        "he" => "him",
        "she" => "her",
        "we" => "us",
        "they" => "them",
        "it" => "it",
        "you" => "you",
        _ => return None,
    })
}

/// Accusative → nominative: `him` → `he`.
pub(super) fn nominative(word: &str) -> Option<&'static str> {
    Some(match word.to_lowercase().as_str() {
        "me" => "I",
        "him" => "he",
        "her" => "she",
        "us" => "we",
        "them" => "they",
        "it" => "it",
        "you" => "you",
        _ => return None,
    })
}

/// The auxiliary chain of `root` from the tokens between its subject and it; each must be an
/// auxiliary, `not` or a plain adverb attached to the root. `passive` reads the passive chains.
pub(super) fn chain_of(
    tree: &Tree<'_>,
    root: usize,
    middle: &[usize],
    passive: bool,
) -> Option<Chain> {
    let mut auxes = Vec::new();
    for &i in middle {
        let token = tree.token(i);
        if tree.head(i) != root || token.text.starts_with('\'') || is_quote(&token.text) {
            return None;
        }
        match token.dep.as_str() {
            "aux" | "auxpass" => auxes.push(i),
            "neg" => {}
            "advmod" if token.tag == "RB" => {}
            _ => return None,
        }
    }
    let lemmas: Vec<String> = auxes
        .iter()
        .map(|&i| {
            let t = tree.token(i);
            if t.tag == "MD" {
                "MD".to_string()
            } else {
                t.lemma.to_lowercase()
            }
        })
        .collect();
    let lemmas: Vec<&str> = lemmas.iter().map(String::as_str).collect();
    let tense = |k: usize| Tense::of(&tree.token(auxes[k]).tag);
    let verb_tag = tree.token(root).tag.as_str();
    let chain = if passive {
        // The last auxiliary must be the passive `be` (`auxpass`); the verb is a participle.
        if tree.token(*auxes.last()?).dep != "auxpass" {
            return None;
        }
        match lemmas[..] {
            ["be"] => Chain::Simple(tense(0)?),
            ["MD", "be"] if tree.token(auxes[1]).tag == "VB" => Chain::Modal,
            ["have", "be"] if tree.token(auxes[1]).tag == "VBN" => Chain::Perfect(tense(0)?),
            ["MD", "have", "be"] if tree.token(auxes[2]).tag == "VBN" => Chain::ModalPerfect,
            ["be", "be"] if tree.token(auxes[1]).tag == "VBG" => Chain::Progressive(tense(0)?),
            _ => return None,
        }
    } else {
        match (&lemmas[..], verb_tag) {
            ([], "VBZ" | "VBP" | "VBD") => Chain::Simple(Tense::of(verb_tag)?),
            (["do"], "VB") => Chain::Do(tense(0)?),
            (["MD"], "VB") => Chain::Modal,
            (["have"], "VBN") => Chain::Perfect(tense(0)?),
            (["MD", "have"], "VBN") if tree.token(auxes[1]).tag == "VB" => Chain::ModalPerfect,
            (["be"], "VBG") => Chain::Progressive(tense(0)?),
            _ => return None,
        }
    };
    // `had` stays `had`; the chains that rebuild an auxiliary need a finite one.
    if let Chain::Perfect(Tense::Past) = chain {
        if tree.token(auxes[0]).lower() != "had" {
            return None;
        }
    }
    Some(chain)
}

/// `head` and the words coordinated with it (`A, B and C`: `A` → `B` → `C`).
pub(super) fn conjuncts(tree: &Tree<'_>, head: usize) -> Vec<usize> {
    let mut heads = vec![head];
    let mut k = 0;
    while k < heads.len() {
        let h = heads[k];
        heads.extend(tree.children(h).filter(|&c| tree.token(c).dep == "conj"));
        k += 1;
    }
    heads
}

/// Person and number of the noun phrase headed by `head`, when they are clear.
pub(super) fn agreement(tree: &Tree<'_>, head: usize) -> Option<Agreement> {
    let token = tree.token(head);
    let conjuncts = conjuncts(tree, head);
    if conjuncts.len() > 1 {
        // `the Walter and May Reuther Family Education Center`: a determiner on a first name
        // whose last conjunct is a name of several words is one name sharing its head (one
        // centre), or two ("the Thames and Severn Canal"); the parse does not tell (Re-DocRED's
        // Wikipedia leads, 2026-12-01).
        let last = *conjuncts.last().expect("a conjunct");
        if token.tag == "NNP"
            && tree.child_with_dep(head, &["det"]).is_some()
            && tree.token(last).tag == "NNP"
            && tree.child_with_dep(last, &["det"]).is_none()
            && tree
                .children(last)
                .any(|c| c < last && tree.token(c).dep == "compound")
        {
            return None;
        }
        // spaCy hangs the `and` of `A, B and C` on B: look along the whole chain.
        let and = conjuncts.iter().any(|&c| {
            tree.children(c)
                .any(|k| tree.token(k).dep == "cc" && tree.token(k).lower() == "and")
        });
        return and.then_some(Agreement::PLURAL);
    }
    // "75th Avenue and Van Wyck Boulevard" parsed as one name modified by a coordinated name:
    // two places (plural) or one ("Procter and Gamble"), which the parse does not tell (BoolQ's unread passages, 2026-12-01: "75th Avenue and Van Wyck
    // Boulevard was now skipped").
    // "Vicha and Yamen Glaciers" (two, with a plural name read as one place) too.
    let coordinated_modifier = matches!(token.tag.as_str(), "NNP" | "NNPS")
        && tree.children(head).filter(|&c| c < head).any(|c| {
            tree.token(c).tag == "NNP"
                && tree
                    .children(c)
                    .any(|k| tree.token(k).dep == "cc" && tree.token(k).lower() == "and")
        });
    if coordinated_modifier {
        return None;
    }
    let lemma = token.lemma.to_lowercase();
    if PARTITIVES.contains(&lemma.as_str())
        && tree
            .children(head)
            .any(|c| tree.token(c).dep == "prep" && tree.token(c).lower() == "of")
    {
        return None;
    }
    match token.tag.as_str() {
        "PRP" => match token.lower().as_str() {
            "i" | "me" => Some(Agreement {
                person: Person::First,
                plural: false,
            }),
            "we" | "us" => Some(Agreement {
                person: Person::First,
                plural: true,
            }),
            "you" => Some(Agreement {
                person: Person::Second,
                plural: true,
            }),
            "he" | "him" | "she" | "her" | "it" => Some(Agreement::SINGULAR),
            "they" | "them" => Some(Agreement::PLURAL),
            _ => None,
        },
        // A team name tagged as singular (`Cincinnati Bengals`) is plural.
        "NNP"
            if token.text.ends_with('s')
                && !token.text.ends_with("ss")
                && token.ent_type == "ORG" =>
        {
            None
        }
        // `several audits` tagged NN: a determiner that only counts plurals shows the number
        // the tag missed (KBP37's sentences, 2026-12-01: "Several audits … has been
        // conducted"); a word it cannot be the plural of leaves the number unclear.
        "NN" if tree
            .children(head)
            .any(|c| c < head && PLURAL_DETERMINERS.contains(&tree.token(c).lower().as_str())) =>
        {
            let text = token.lower();
            (text.ends_with('s') && !text.ends_with("ss")).then_some(Agreement::PLURAL)
        }
        "NN" | "NNP" => Some(Agreement::SINGULAR),
        "NNS" => Some(Agreement::PLURAL),
        // `the United States`, `the Netherlands`: one country, singular verb.
        "NNPS" if token.ent_type == "GPE" => Some(Agreement::SINGULAR),
        // `the Astros` are plural, a title like `Game Shakers` is not.
        "NNPS" if tree.child_with_dep(head, &["det"]).is_some() => Some(Agreement::PLURAL),
        _ => None,
    }
}

/// Determiners and quantifiers that go only with a plural noun (see [`agreement`]).
const PLURAL_DETERMINERS: &[&str] = &[
    "several", "many", "few", "both", "these", "those", "various", "numerous",
];

/// Words whose scope the voice change moves: a quantifier or indefinite under negation ("did
/// not play a single game" → "a single game was not played"; "all algorithms do not find" →
/// "are not found by all algorithms"), found by the second reading on other corpora.
const SCOPE_TAKERS: &[&str] = &[
    "a", "an", "any", "single", "one", "all", "every", "each", "many", "much", "some", "both",
    "several", "either", "most", "more", "few",
];

/// Whether a negated clause's noun phrase `range` holds a quantifier or an indefinite, whose
/// scope against `not` changes when the phrase moves across it.
pub(super) fn scope_changes_under_negation(tree: &Tree<'_>, range: std::ops::Range<usize>) -> bool {
    range.into_iter().any(|i| {
        let token = tree.token(i);
        token.tag == "CD" || SCOPE_TAKERS.contains(&token.lower().as_str())
    })
}

/// Focus particles whose scope is the phrase that follows or the subject: "members can
/// only use the title" ≠ "the title can only be used by members"; "Especially this group
/// showed deteriorated performance" ≠ "Especially deteriorated performance was shown by this
/// group" (PubMedQA's abstracts, 2026-12-01).
pub(super) fn is_focus_particle(word: &str) -> bool {
    matches!(
        word,
        "only"
            | "even"
            | "just"
            | "merely"
            | "solely"
            | "simply"
            | "exclusively"
            | "alone"
            | "especially"
            | "particularly"
    )
}
