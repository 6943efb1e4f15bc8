//! The small value types of the WordNet API: part of speech ([`Pos`]), pointer relation
//! ([`Relation`]) and synset id ([`SynsetId`]). A leaf every other WordNet module uses.

use std::fmt;

/// A part of speech as WordNet files it. Adjective satellites (`s`) belong to [`Pos::Adj`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pos {
    /// `n`
    Noun,
    /// `v`
    Verb,
    /// `a` and satellites `s`
    Adj,
    /// `r`
    Adv,
}

impl Pos {
    /// All four, in NLTK's `POS_LIST` order.
    pub const ALL: [Pos; 4] = [Pos::Noun, Pos::Verb, Pos::Adj, Pos::Adv];

    /// The POS for a WordNet/NLTK tag: `n`, `v`, `a`, `s` (satellite → [`Pos::Adj`]) or `r`.
    pub fn from_tag(tag: &str) -> Option<Pos> {
        match tag {
            "n" => Some(Pos::Noun),
            "v" => Some(Pos::Verb),
            "a" | "s" => Some(Pos::Adj),
            "r" => Some(Pos::Adv),
            _ => None,
        }
    }

    /// The Universal POS it stands for (`NOUN`, `VERB`, `ADJ`, `ADV`).
    pub fn upos(self) -> &'static str {
        match self {
            Pos::Noun => "NOUN",
            Pos::Verb => "VERB",
            Pos::Adj => "ADJ",
            Pos::Adv => "ADV",
        }
    }

    /// The tag NLTK uses for it (`n`, `v`, `a`, `r`).
    pub fn tag(self) -> char {
        match self {
            Pos::Noun => 'n',
            Pos::Verb => 'v',
            Pos::Adj => 'a',
            Pos::Adv => 'r',
        }
    }

    /// The suffix of its `index.*` and `data.*` files.
    pub fn file_suffix(self) -> &'static str {
        match self {
            Pos::Noun => "noun",
            Pos::Verb => "verb",
            Pos::Adj => "adj",
            Pos::Adv => "adv",
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }

    /// NLTK's detachment rules (`MORPHOLOGICAL_SUBSTITUTIONS`) for this POS, in NLTK's order.
    pub(super) fn substitutions(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Pos::Noun => &[
                ("s", ""),
                ("ses", "s"),
                ("ves", "f"),
                ("xes", "x"),
                ("zes", "z"),
                ("ches", "ch"),
                ("shes", "sh"),
                ("men", "man"),
                ("ies", "y"),
            ],
            Pos::Verb => &[
                ("s", ""),
                ("ies", "y"),
                ("es", "e"),
                ("es", ""),
                ("ed", "e"),
                ("ed", ""),
                ("ing", "e"),
                ("ing", ""),
            ],
            Pos::Adj => &[("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
            Pos::Adv => &[],
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tag())
    }
}

/// The relation a pointer encodes, named after WordNet's pointer symbols (`wninput(5)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// `!` (lexical)
    Antonym,
    /// `@`
    Hypernym,
    /// `@i`
    InstanceHypernym,
    /// `~`
    Hyponym,
    /// `~i`
    InstanceHyponym,
    /// `#m`
    MemberHolonym,
    /// `#s`
    SubstanceHolonym,
    /// `#p`
    PartHolonym,
    /// `%m`
    MemberMeronym,
    /// `%s`
    SubstanceMeronym,
    /// `%p`
    PartMeronym,
    /// `=`
    Attribute,
    /// `+` (lexical)
    DerivationallyRelated,
    /// `;c`
    DomainTopic,
    /// `-c`
    MemberOfDomainTopic,
    /// `;r`
    DomainRegion,
    /// `-r`
    MemberOfDomainRegion,
    /// `;u`
    DomainUsage,
    /// `-u`
    MemberOfDomainUsage,
    /// `*`
    Entailment,
    /// `>`
    Cause,
    /// `^`
    AlsoSee,
    /// `$`
    VerbGroup,
    /// `&`
    SimilarTo,
    /// `<`
    ParticipleOf,
    /// `\`: pertainym (adjectives, nouns) or "derived from adjective" (adverbs); NLTK calls
    /// both `pertainyms()`.
    Pertainym,
}

impl Relation {
    pub(super) const SYMBOLS: [(&'static str, Relation); 26] = [
        ("!", Relation::Antonym),
        ("@", Relation::Hypernym),
        ("@i", Relation::InstanceHypernym),
        ("~", Relation::Hyponym),
        ("~i", Relation::InstanceHyponym),
        ("#m", Relation::MemberHolonym),
        ("#s", Relation::SubstanceHolonym),
        ("#p", Relation::PartHolonym),
        ("%m", Relation::MemberMeronym),
        ("%s", Relation::SubstanceMeronym),
        ("%p", Relation::PartMeronym),
        ("=", Relation::Attribute),
        ("+", Relation::DerivationallyRelated),
        (";c", Relation::DomainTopic),
        ("-c", Relation::MemberOfDomainTopic),
        (";r", Relation::DomainRegion),
        ("-r", Relation::MemberOfDomainRegion),
        (";u", Relation::DomainUsage),
        ("-u", Relation::MemberOfDomainUsage),
        ("*", Relation::Entailment),
        (">", Relation::Cause),
        ("^", Relation::AlsoSee),
        ("$", Relation::VerbGroup),
        ("&", Relation::SimilarTo),
        ("<", Relation::ParticipleOf),
        ("\\", Relation::Pertainym),
    ];

    /// The relation of a pointer symbol (`@`, `!`, …).
    pub fn from_symbol(symbol: &str) -> Option<Relation> {
        Self::SYMBOLS
            .iter()
            .find(|(s, _)| *s == symbol)
            .map(|(_, r)| *r)
    }

    /// Its pointer symbol.
    pub fn symbol(self) -> &'static str {
        Self::SYMBOLS
            .iter()
            .find(|(_, r)| *r == self)
            .map_or("?", |(s, _)| s)
    }
}

/// A synset's handle: its position in the loaded [`WordNet`](super::WordNet) (not a file offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SynsetId(pub(super) u32);
