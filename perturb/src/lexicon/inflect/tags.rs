//! The vocabulary of inflection: Penn tags ([`Tag`]), universal parts of speech ([`Upos`]),
//! person, and what an answer is ([`Inflected`], [`Source`]). A leaf the other modules use.

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// lemminflect's tables (or their override files): the lexicon's own form.
    Table,
    /// This project's regular-morphology rules ([`rule_inflect`](super::rule_inflect)): a guess
    /// for a word the tables do not know, or a periphrastic `more X`/`most X` for an adjective
    /// the lexicon lists without comparison forms.
    Rule,
}

/// An inflected form and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inflected {
    /// The form, in the capitalisation style of the lemma asked for.
    pub form: String,
    /// Whether the tables or the rules produced it.
    pub source: Source,
}

/// Grammatical person of a subject, for choosing the form of `be`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Person {
    /// `I`, `we`.
    First,
    /// `you`.
    Second,
    /// `he`, `she`, `it`, `they`, any noun phrase.
    Third,
}

/// Penn tags the tables hold (`MD`, `NNP` and `NNPS` are mapped onto these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(super) enum Tag {
    Vb,
    Vbd,
    Vbg,
    Vbn,
    Vbp,
    Vbz,
    Nn,
    Nns,
    Jj,
    Jjr,
    Jjs,
    Rb,
    Rbr,
    Rbs,
}

impl Tag {
    pub(super) fn parse(tag: &str) -> Option<Tag> {
        Some(match tag {
            "VB" => Tag::Vb,
            "VBD" => Tag::Vbd,
            "VBG" => Tag::Vbg,
            "VBN" => Tag::Vbn,
            "VBP" => Tag::Vbp,
            "VBZ" => Tag::Vbz,
            "NN" => Tag::Nn,
            "NNS" => Tag::Nns,
            "JJ" => Tag::Jj,
            "JJR" => Tag::Jjr,
            "JJS" => Tag::Jjs,
            "RB" => Tag::Rb,
            "RBR" => Tag::Rbr,
            "RBS" => Tag::Rbs,
            _ => return None,
        })
    }

    /// lemminflect's `pennTagAlts`: tags tried when `self` has no form.
    pub(super) fn alternates(self) -> &'static [Tag] {
        match self {
            Tag::Vbd => &[Tag::Vbn],
            Tag::Vbn => &[Tag::Vbd],
            Tag::Jj => &[Tag::Rb],
            Tag::Jjr => &[Tag::Rbr],
            Tag::Jjs => &[Tag::Rbs],
            Tag::Rb => &[Tag::Jj],
            Tag::Rbr => &[Tag::Jjr],
            Tag::Rbs => &[Tag::Jjs],
            _ => &[],
        }
    }

    /// The base-form tags whose presence says the lexicon knows the word in this tag's
    /// part of speech.
    pub(super) fn bases(self) -> &'static [Tag] {
        match self {
            Tag::Vb | Tag::Vbd | Tag::Vbg | Tag::Vbn | Tag::Vbp | Tag::Vbz => &[Tag::Vb],
            Tag::Nn | Tag::Nns => &[Tag::Nn],
            _ => &[Tag::Jj, Tag::Rb],
        }
    }
}

/// Universal POS tags the lemma table is keyed by (`PROPN` is looked up as `NOUN`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Upos {
    Noun,
    Verb,
    Adj,
    Adv,
    Aux,
}

impl Upos {
    pub(super) fn parse(upos: &str) -> Option<Upos> {
        Some(match upos {
            "NOUN" => Upos::Noun,
            "VERB" => Upos::Verb,
            "ADJ" => Upos::Adj,
            "ADV" => Upos::Adv,
            "AUX" => Upos::Aux,
            _ => return None,
        })
    }

    /// lemminflect's `categoryToUPos` on a table category (`modal` is `AUX`).
    pub(super) fn from_category(category: &str) -> Option<Upos> {
        Some(match category {
            "noun" => Upos::Noun,
            "verb" => Upos::Verb,
            "adj" => Upos::Adj,
            "adv" => Upos::Adv,
            "aux" | "modal" => Upos::Aux,
            _ => return None,
        })
    }
}

/// `(tag, is proper noun)` for a Penn tag the tables can answer.
pub(super) fn parse_penn(tag: &str) -> Option<(Tag, bool)> {
    match tag {
        "NNP" => Some((Tag::Nn, true)),
        "NNPS" => Some((Tag::Nns, true)),
        other => Tag::parse(other).map(|t| (t, false)),
    }
}
