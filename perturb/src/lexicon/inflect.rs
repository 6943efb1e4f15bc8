//! English inflection and lemmatisation from the tables of lemminflect 0.2.3.
//!
//! The MT4MRC relations (seed-000) rewrite sentences: a tense change (MR1-2) needs the past
//! and the base form of a verb, a negation with a tag question (MR1-4) needs the base form
//! after `did`/`does`, the passive voice (MR2-3) needs the past participle and a form of `be`
//! that agrees with the new subject, and subject changes need plurals and third-person
//! singulars. The paper used Pattern's conjugation; this project reads lemminflect's lookup
//! tables instead, so that forms are those of a maintained, documented lexicon (SPECIALIST).
//!
//! # Design decisions
//! * **Same answers as lemminflect on its tables.** [`Inflections::inflect`] reproduces
//!   `getInflection(lemma, tag, inflect_oov=False)` and [`Inflections::lemma`] reproduces
//!   `getLemma(word, upos, lemmatize_oov=False)`, first spelling: the lemma is looked up in
//!   lower case (capitalised for `NNP`/`NNPS`/`PROPN`), the overrides files replace table
//!   forms tag by tag, the hard-coded modals and `be` replace their table entries entirely,
//!   `VBD`↔`VBN` and `JJ*`↔`RB*` are tried as alternates when a tag has no form, and the
//!   answer takes the capitalisation style of the input (all upper, first upper, lower).
//!   `tests/inflect.rs` checks this against real lemminflect output: a committed fixture of
//!   common verbs, nouns, adjectives and adverbs under every tag, and (ignored test, file
//!   from `scripts/lemminflect_golden.py --full`) every word of both tables under every tag
//!   and upos.
//! * **No neural OOV model.** lemminflect's pickled Keras models (`model_*.pkl.gz`) are not
//!   ported. For words the tables do not know, [`Inflections::inflect_or_rule`] applies this
//!   project's own regular-morphology rules (see [`rule_inflect`]) and marks the answer
//!   [`Source::Rule`], so a relation can refuse (or log) a guessed form;
//!   [`Inflections::lemma_or_rule`] does the same for lemmas with the inverse rules
//!   ([`rule_lemma`]).
//! * **Several spellings.** The tables list variants (`lay/lied`, `was/were`); `inflect`
//!   returns the first, as lemminflect's spaCy extension does, and
//!   [`Inflections::inflect_all`] returns all of them. For `be`, whose past and present forms
//!   depend on the subject, [`Inflections::be_form`] picks the spelling by person and number.
//! * **Compact storage.** Every string lives in one arena; each table is a vector of
//!   entries sorted by word (binary search), each pointing at a run of `(slot, spelling)`
//!   records (a spelling equal to its word reuses the word's bytes). Both tables together
//!   take about 5.4 MB of heap and load in about 0.2 s (release build).
//! * **Errors, not panics.** A malformed line is [`Error::Malformed`] naming the file and the
//!   line; lookups never panic and return `None` for anything they cannot answer.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use metamorph_data::Error;

/// The inflection table of lemminflect: `word,category,forms…`.
pub const INFL_LU: &str = "infl_lu.csv.gz";
/// lemminflect's corrections to the inflection table: `lemma,tag,form`.
pub const INFL_OVERRIDES: &str = "infl_overrides.csv";
/// The lemma table of lemminflect: `word,category,lemma/lemma…`.
pub const LEMMA_LU: &str = "lemma_lu.csv.gz";
/// lemminflect's corrections to the lemma table: `word,upos,lemma`.
pub const LEMMA_OVERRIDES: &str = "lemma_overrides.csv";

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// lemminflect's tables (or their override files): the lexicon's own form.
    Table,
    /// This project's regular-morphology rules ([`rule_inflect`]): a guess for a word the
    /// tables do not know, or a periphrastic `more X`/`most X` for an adjective the lexicon
    /// lists without comparison forms.
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
enum Tag {
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
    fn parse(tag: &str) -> Option<Tag> {
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
    fn alternates(self) -> &'static [Tag] {
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
    fn bases(self) -> &'static [Tag] {
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
enum Upos {
    Noun,
    Verb,
    Adj,
    Adv,
    Aux,
}

impl Upos {
    fn parse(upos: &str) -> Option<Upos> {
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
    fn from_category(category: &str) -> Option<Upos> {
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

/// A string in a [`Table`]'s arena.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
}

/// One spelling of one slot (a tag or a upos) of one word.
#[derive(Clone, Copy, Debug)]
struct Record {
    slot: u8,
    spelling: Span,
}

/// A word and its run of records.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: Span,
    first: u32,
    count: u32,
}

/// A word → slot → spellings map in compact form.
#[derive(Debug, Default)]
struct Table {
    text: String,
    entries: Vec<Entry>,
    records: Vec<Record>,
}

/// The slots of one word while loading, in the order first seen; a later value replaces an
/// earlier one for the same slot (Python's `dict.update`).
type Slots = Vec<(u8, Vec<String>)>;

fn set_slot(slots: &mut Slots, slot: u8, spellings: Vec<String>) {
    match slots.iter_mut().find(|(s, _)| *s == slot) {
        Some(existing) => existing.1 = spellings,
        None => slots.push((slot, spellings)),
    }
}

impl Table {
    fn build(words: BTreeMap<String, Slots>) -> Result<Table, String> {
        let mut table = Table::default();
        for (word, slots) in words {
            let key = table.push_str(&word)?;
            let first = u32::try_from(table.records.len()).map_err(|_| "table too large")?;
            for (slot, spellings) in slots {
                for spelling in spellings {
                    let spelling = if spelling == word {
                        key
                    } else {
                        table.push_str(&spelling)?
                    };
                    table.records.push(Record { slot, spelling });
                }
            }
            let count = u32::try_from(table.records.len()).map_err(|_| "table too large")? - first;
            table.entries.push(Entry { key, first, count });
        }
        table.text.shrink_to_fit();
        table.entries.shrink_to_fit();
        table.records.shrink_to_fit();
        Ok(table)
    }

    fn push_str(&mut self, s: &str) -> Result<Span, String> {
        let start = u32::try_from(self.text.len()).map_err(|_| "table too large")?;
        let len = u32::try_from(s.len()).map_err(|_| "string too long")?;
        self.text.push_str(s);
        Ok(Span { start, len })
    }

    fn str(&self, span: Span) -> &str {
        let start = span.start as usize;
        self.text
            .get(start..start + span.len as usize)
            .unwrap_or("")
    }

    fn entry(&self, word: &str) -> Option<&[Record]> {
        let i = self
            .entries
            .binary_search_by(|e| self.str(e.key).cmp(word))
            .ok()?;
        let e = self.entries.get(i)?;
        self.records
            .get(e.first as usize..(e.first + e.count) as usize)
    }

    /// The spellings of `slot` in `records`, in table order.
    fn spellings<'a>(&'a self, records: &'a [Record], slot: u8) -> Vec<&'a str> {
        records
            .iter()
            .filter(|r| r.slot == slot)
            .map(|r| self.str(r.spelling))
            .collect()
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.records.capacity() * std::mem::size_of::<Record>()
    }
}

/// lemminflect's inflection and lemma tables, loaded once and shared (`Send + Sync`).
#[derive(Debug)]
pub struct Inflections {
    infl: Table,
    lemmas: Table,
}

impl Inflections {
    /// Loads the four table files from `dir` (lemminflect's `resources` folder).
    ///
    /// # Errors
    /// [`Error::Io`] if a file cannot be opened or read (or is not valid gzip);
    /// [`Error::Malformed`] naming the file and the line for a line that does not parse.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let mut infl = BTreeMap::new();
        read_lines(&dir.join(INFL_LU), true, |path, n, line| {
            parse_infl_line(path, n, line, &mut infl)
        })?;
        hard_code_aux_modal(&mut infl);
        read_lines(&dir.join(INFL_OVERRIDES), false, |path, n, line| {
            parse_override(
                path,
                n,
                line,
                "tag",
                |s| Tag::parse(s).map(|t| t as u8),
                &mut infl,
            )
        })?;
        let mut lemmas = BTreeMap::new();
        read_lines(&dir.join(LEMMA_LU), true, |path, n, line| {
            parse_lemma_line(path, n, line, &mut lemmas)
        })?;
        read_lines(&dir.join(LEMMA_OVERRIDES), false, |path, n, line| {
            parse_override(
                path,
                n,
                line,
                "upos",
                |s| Upos::parse(s).map(|u| u as u8),
                &mut lemmas,
            )
        })?;
        let built = |words, file: &str| {
            Table::build(words).map_err(|message| malformed(&dir.join(file), "-", "-", message))
        };
        Ok(Inflections {
            infl: built(infl, INFL_LU)?,
            lemmas: built(lemmas, LEMMA_LU)?,
        })
    }

    /// Loads the tables of the `lemminflect` asset (fetched on first use by
    /// [`metamorph_data::assets::ensure`]).
    ///
    /// # Errors
    /// Those of [`metamorph_data::assets::ensure`] and [`Inflections::load`].
    pub fn from_assets() -> Result<Self, Error> {
        Self::load(&metamorph_data::assets::ensure("lemminflect")?)
    }

    /// Bytes of heap the tables take.
    pub fn heap_bytes(&self) -> usize {
        self.infl.heap_bytes() + self.lemmas.heap_bytes()
    }

    /// lemminflect's first form of `lemma` for the Penn `tag` (`VB`, `VBD`, `VBG`, `VBN`,
    /// `VBP`, `VBZ`, `NN`, `NNS`, `NNP`, `NNPS`, `JJ`, `JJR`, `JJS`, `RB`, `RBR`, `RBS`),
    /// from the tables only: `getInflection(lemma, tag, inflect_oov=False)[0]`.
    pub fn inflect(&self, lemma: &str, tag: &str) -> Option<String> {
        self.inflect_all(lemma, tag).into_iter().next()
    }

    /// Every spelling the tables give for `lemma` and `tag`, in lemminflect's order (empty
    /// when the tables have none): `getInflection(lemma, tag, inflect_oov=False)`.
    pub fn inflect_all(&self, lemma: &str, tag: &str) -> Vec<String> {
        let Some((tag, proper)) = parse_penn(tag) else {
            return Vec::new();
        };
        let style = caps_style(lemma);
        let Some(records) = self.infl.entry(&lookup_key(lemma, proper)) else {
            return Vec::new();
        };
        std::iter::once(tag)
            .chain(tag.alternates().iter().copied())
            .map(|t| self.infl.spellings(records, t as u8))
            .find(|s| !s.is_empty())
            .unwrap_or_default()
            .into_iter()
            .map(|s| apply_caps(s, style))
            .collect()
    }

    /// The table form of `lemma` for `tag` if there is one, else this project's rule guess
    /// ([`rule_inflect`]) marked [`Source::Rule`].
    ///
    /// The rules only stand in for words the tables do not know in that part of speech: a
    /// verb the lexicon lists without the asked form (the modals have no `VBZ`) gets `None`,
    /// and an adjective or adverb listed without comparison forms gets the periphrastic
    /// `more X`/`most X`.
    pub fn inflect_or_rule(&self, lemma: &str, tag: &str) -> Option<Inflected> {
        if let Some(form) = self.inflect(lemma, tag) {
            return Some(Inflected {
                form,
                source: Source::Table,
            });
        }
        let (parsed, proper) = parse_penn(tag)?;
        let style = caps_style(lemma);
        let known = self
            .infl
            .entry(&lookup_key(lemma, proper))
            .is_some_and(|records| {
                parsed
                    .bases()
                    .iter()
                    .any(|b| records.iter().any(|r| r.slot == *b as u8))
            });
        let lower = lemma.to_lowercase();
        let form = match (known, parsed) {
            (false, _) => rule_inflect(&lower, tag)?,
            (true, Tag::Jjr | Tag::Rbr) if !lower.is_empty() => format!("more {lower}"),
            (true, Tag::Jjs | Tag::Rbs) if !lower.is_empty() => format!("most {lower}"),
            (true, _) => return None,
        };
        Some(Inflected {
            form: apply_caps(&form, style),
            source: Source::Rule,
        })
    }

    /// lemminflect's first lemma of `word` as the universal POS `upos` (`NOUN`, `PROPN`,
    /// `VERB`, `ADJ`, `ADV`, `AUX`), from the tables only:
    /// `getLemma(word, upos, lemmatize_oov=False)[0]`.
    pub fn lemma(&self, word: &str, upos: &str) -> Option<String> {
        self.lemmas(word, upos).into_iter().next()
    }

    /// Every lemma the tables give for `word` as `upos`, in lemminflect's order (`better` as
    /// `ADJ` is `good`, `well`).
    pub fn lemmas(&self, word: &str, upos: &str) -> Vec<String> {
        let (upos, proper) = match upos {
            "PROPN" => (Upos::Noun, true),
            other => match Upos::parse(other) {
                Some(u) => (u, false),
                None => return Vec::new(),
            },
        };
        let style = caps_style(word);
        let Some(records) = self.lemmas.entry(&lookup_key(word, proper)) else {
            return Vec::new();
        };
        self.lemmas
            .spellings(records, upos as u8)
            .into_iter()
            .map(|s| apply_caps(s, style))
            .collect()
    }

    /// The lemma of a parsed `word` to look up or re-inflect: the parser's lemma
    /// `parser_lemma` when one of its inflections as `upos` is `word` itself, else
    /// lemminflect's table lemma, else the parser's lemma. spaCy (≥ 3.8.8, which the parse
    /// stage reproduces) breaks ties between rule outputs towards the later rule: "hopes" →
    /// hop, "riding" → rid, "premiered" → premier. None of hop's forms is "hopes", so the
    /// tables' "hope" is taken; a real tie ("axes": axis or axe) keeps the parser's choice.
    pub fn confirmed_lemma(&self, word: &str, parser_lemma: &str, upos: &str) -> String {
        let tags: &[&str] = match upos {
            "VERB" | "AUX" => &["VB", "VBD", "VBG", "VBN", "VBP", "VBZ"],
            "NOUN" | "PROPN" => &["NN", "NNS"],
            "ADJ" => &["JJ", "JJR", "JJS"],
            "ADV" => &["RB", "RBR", "RBS"],
            _ => return parser_lemma.to_string(),
        };
        let lower = word.to_lowercase();
        let parser = parser_lemma.to_lowercase();
        let is_form_of = |lemma: &str| {
            lemma == lower
                || tags.iter().any(|tag| {
                    self.inflect_all(lemma, tag)
                        .iter()
                        .any(|f| f.eq_ignore_ascii_case(&lower))
                })
        };
        if parser.is_empty() || is_form_of(&parser) {
            return parser_lemma.to_string();
        }
        self.lemmas(&lower, upos)
            .into_iter()
            .find(|l| is_form_of(l))
            .unwrap_or_else(|| parser_lemma.to_string())
    }

    /// The table lemma of `word` as `upos` if there is one, else this project's rule guess
    /// ([`rule_lemma`]) marked [`Source::Rule`] — only for words the lemma table does not
    /// list at all (a listed word keeps lemminflect's answer, even when it has none for
    /// `upos`).
    pub fn lemma_or_rule(&self, word: &str, upos: &str) -> Option<Inflected> {
        if let Some(form) = self.lemma(word, upos) {
            return Some(Inflected {
                form,
                source: Source::Table,
            });
        }
        let proper = upos == "PROPN";
        if self.lemmas.entry(&lookup_key(word, proper)).is_some() {
            return None;
        }
        let form = rule_lemma(&word.to_lowercase(), upos)?;
        Some(Inflected {
            form: apply_caps(&form, caps_style(word)),
            source: Source::Rule,
        })
    }

    /// The simple past (`VBD`): `walked`, `went`, `was` (see [`Inflections::be_form`] for
    /// `were`).
    pub fn past(&self, lemma: &str) -> Option<Inflected> {
        self.inflect_or_rule(lemma, "VBD")
    }

    /// The past participle (`VBN`): `walked`, `gone`, `been`.
    pub fn past_participle(&self, lemma: &str) -> Option<Inflected> {
        self.inflect_or_rule(lemma, "VBN")
    }

    /// The third-person singular present (`VBZ`): `walks`, `goes`, `is`.
    pub fn third_singular(&self, lemma: &str) -> Option<Inflected> {
        self.inflect_or_rule(lemma, "VBZ")
    }

    /// The gerund / present participle (`VBG`): `walking`, `stopping`, `being`.
    pub fn gerund(&self, lemma: &str) -> Option<Inflected> {
        self.inflect_or_rule(lemma, "VBG")
    }

    /// The plural of a noun (`NNS`): `cats`, `children`.
    pub fn plural(&self, noun: &str) -> Option<Inflected> {
        self.inflect_or_rule(noun, "NNS")
    }

    /// The comparative of an adjective (`JJR`, or the adverb's `RBR`): `bigger`, `better`,
    /// `more beautiful` (rule).
    pub fn comparative(&self, adjective: &str) -> Option<Inflected> {
        self.inflect_or_rule(adjective, "JJR")
    }

    /// Whether `lemma` can follow `previous` ("more", "most", "less", "least" take only an
    /// adjective or adverb without one-word comparison forms): "the most difficult part" takes
    /// no "hard", whose superlative is "hardest" ("the most hard part", review of seed
    /// 20261222). Any other `previous` takes any lemma.
    pub fn fits_after_degree_word(&self, previous: &str, lemma: &str) -> bool {
        let degree = ["more", "most", "less", "least"];
        if !degree.contains(&previous.to_lowercase().as_str()) {
            return true;
        }
        !matches!(
            self.comparative(lemma),
            Some(Inflected { form, source: Source::Table }) if !form.contains(' ')
        )
    }

    /// The superlative of an adjective (`JJS`, or the adverb's `RBS`): `biggest`, `best`.
    pub fn superlative(&self, adjective: &str) -> Option<Inflected> {
        self.inflect_or_rule(adjective, "JJS")
    }

    /// The form of `be` for `tag` that agrees with a subject of the given person and number.
    ///
    /// lemminflect lists both past forms under `VBD` (`was`, `were`) and both non-third
    /// present forms under `VBP` (`am`, `are`); `inflect("be", "VBD")` gives the first. This
    /// picks by agreement: `VBD` is `was` for a singular first or third person and `were`
    /// otherwise; `VBP`/`VBZ` (present) is `am` for `I`, `is` for a singular third person and
    /// `are` otherwise; other tags are `inflect("be", tag)`. Forms come from the tables.
    pub fn be_form(&self, tag: &str, person: Person, plural: bool) -> Option<String> {
        let singular_13 = !plural && person != Person::Second;
        match tag {
            "VBD" => {
                let forms = self.inflect_all("be", "VBD");
                forms.get(usize::from(!singular_13)).cloned()
            }
            "VBP" | "VBZ" => {
                if !plural && person == Person::Third {
                    self.inflect("be", "VBZ")
                } else {
                    let forms = self.inflect_all("be", "VBP");
                    let first_singular = !plural && person == Person::First;
                    forms.get(usize::from(!first_singular)).cloned()
                }
            }
            other => self.inflect("be", other),
        }
    }
}

/// `(tag, is proper noun)` for a Penn tag the tables can answer.
fn parse_penn(tag: &str) -> Option<(Tag, bool)> {
    match tag {
        "NNP" => Some((Tag::Nn, true)),
        "NNPS" => Some((Tag::Nns, true)),
        other => Tag::parse(other).map(|t| (t, false)),
    }
}

/// The table key of `word`: lower case, or capitalised for proper nouns (as lemminflect).
fn lookup_key(word: &str, proper: bool) -> String {
    let lower = word.to_lowercase();
    if proper {
        capitalize(&lower)
    } else {
        lower
    }
}

/// lemminflect's capitalisation styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Caps {
    AllUpper,
    FirstUpper,
    Lower,
}

/// lemminflect's `getCapsStyle` (Python's `str.isupper` and `str[0].isupper`).
fn caps_style(word: &str) -> Caps {
    let has_upper = word.chars().any(char::is_uppercase);
    let has_lower = word.chars().any(char::is_lowercase);
    if has_upper && !has_lower {
        Caps::AllUpper
    } else if word.chars().next().is_some_and(char::is_uppercase) {
        Caps::FirstUpper
    } else {
        Caps::Lower
    }
}

/// lemminflect's `applyCapsStyle` (Python's `upper`, `capitalize`, `lower`).
fn apply_caps(word: &str, style: Caps) -> String {
    match style {
        Caps::AllUpper => word.to_uppercase(),
        Caps::FirstUpper => capitalize(word),
        Caps::Lower => word.to_lowercase(),
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.as_str().to_lowercase().chars())
            .collect(),
        None => String::new(),
    }
}

fn malformed(path: &Path, location: &str, field: &str, message: impl Into<String>) -> Error {
    Error::Malformed {
        path: path.to_path_buf(),
        location: location.to_string(),
        field: field.to_string(),
        message: message.into(),
    }
}

fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Calls `f(path, line number, line)` for each line of `path` (gunzipped when `gzip`),
/// stripped of surrounding whitespace, skipping blank lines (and `#` comments unless
/// `gzip`, as lemminflect's overrides reader does).
fn read_lines(
    path: &Path,
    gzip: bool,
    mut f: impl FnMut(&Path, usize, &str) -> Result<(), Error>,
) -> Result<(), Error> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let reader: Box<dyn Read> = if gzip {
        Box::new(GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut reader = BufReader::new(reader);
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| io_error(path, e))?;
        if read == 0 {
            return Ok(());
        }
        n += 1;
        let line = std::str::from_utf8(&buf)
            .map_err(|e| malformed(path, &format!("line {n}"), "-", format!("not UTF-8: {e}")))?
            .trim();
        if line.is_empty() || (!gzip && line.starts_with('#')) {
            continue;
        }
        f(path, n, line)?;
    }
}

/// One line of `infl_lu.csv.gz`: `word,category,form1,form2,…`, each form a `/`-separated
/// list of spellings (lemminflect's `InflectionLUCodec.fromString`).
fn parse_infl_line(
    path: &Path,
    n: usize,
    line: &str,
    words: &mut BTreeMap<String, Slots>,
) -> Result<(), Error> {
    let mut parts = line.split(',');
    let word = parts.next().unwrap_or_default();
    let category = parts
        .next()
        .ok_or_else(|| malformed(path, &format!("line {n}"), "category", "missing"))?;
    let (tags, base): (&[Tag], &[Tag]) = match category {
        "noun" => (&[Tag::Nns], &[Tag::Nn]),
        "adj" => (&[Tag::Jjr, Tag::Jjs], &[Tag::Jj]),
        "adv" => (&[Tag::Rbr, Tag::Rbs], &[Tag::Rb]),
        "verb" => (
            &[Tag::Vbd, Tag::Vbn, Tag::Vbg, Tag::Vbz],
            &[Tag::Vb, Tag::Vbp],
        ),
        "aux" | "modal" => (&[], &[Tag::Vb]),
        other => {
            return Err(malformed(
                path,
                &format!("line {n}"),
                "category",
                format!("unknown category `{other}`"),
            ))
        }
    };
    if word.is_empty() {
        return Err(malformed(path, &format!("line {n}"), "word", "empty"));
    }
    let slots = words.entry(word.to_string()).or_default();
    for (tag, forms) in tags.iter().zip(parts) {
        let spellings: Vec<String> = forms.split('/').map(str::to_string).collect();
        if spellings.len() > 1 || !forms.is_empty() {
            set_slot(slots, *tag as u8, spellings);
        }
    }
    for tag in base {
        set_slot(slots, *tag as u8, vec![word.to_string()]);
    }
    Ok(())
}

/// lemminflect's `updateForAuxMod`: modals and `be` replace whatever the table says.
fn hard_code_aux_modal(words: &mut BTreeMap<String, Slots>) {
    let modals = [
        ("can", Some("could")),
        ("may", Some("might")),
        ("will", Some("would")),
        ("shall", Some("should")),
        ("must", Some("must")),
        ("ought", Some("ought")),
        ("dare", None),
    ];
    for (modal, past) in modals {
        let mut slots = vec![(Tag::Vb as u8, vec![modal.to_string()])];
        if let Some(past) = past {
            slots.push((Tag::Vbd as u8, vec![past.to_string()]));
        }
        words.insert(modal.to_string(), slots);
    }
    let be = |forms: &[&str]| forms.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    words.insert(
        "be".to_string(),
        vec![
            (Tag::Vb as u8, be(&["be"])),
            (Tag::Vbd as u8, be(&["was", "were"])),
            (Tag::Vbg as u8, be(&["being"])),
            (Tag::Vbn as u8, be(&["been"])),
            (Tag::Vbp as u8, be(&["am", "are"])),
            (Tag::Vbz as u8, be(&["is"])),
        ],
    );
}

/// One line of `lemma_lu.csv.gz`: `word,category,lemma1/lemma2` (lemminflect's
/// `LemmaLUCodec.fromString`: exactly three fields).
fn parse_lemma_line(
    path: &Path,
    n: usize,
    line: &str,
    words: &mut BTreeMap<String, Slots>,
) -> Result<(), Error> {
    let parts: Vec<&str> = line.split(',').collect();
    let [word, category, forms] = parts[..] else {
        return Err(malformed(
            path,
            &format!("line {n}"),
            "-",
            format!("expected 3 comma-separated fields, found {}", parts.len()),
        ));
    };
    let upos = Upos::from_category(category).ok_or_else(|| {
        malformed(
            path,
            &format!("line {n}"),
            "category",
            format!("unknown category `{category}`"),
        )
    })?;
    let spellings = forms.split('/').map(str::to_string).collect();
    set_slot(
        words.entry(word.to_string()).or_default(),
        upos as u8,
        spellings,
    );
    Ok(())
}

/// One line of an overrides file: `word,slot,form` (lemminflect's `OverridesCodec`).
fn parse_override(
    path: &Path,
    n: usize,
    line: &str,
    slot_name: &str,
    slot: impl Fn(&str) -> Option<u8>,
    words: &mut BTreeMap<String, Slots>,
) -> Result<(), Error> {
    let parts: Vec<&str> = line.split(',').collect();
    let [word, key, form] = parts[..] else {
        return Err(malformed(
            path,
            &format!("line {n}"),
            "-",
            format!("expected 3 comma-separated fields, found {}", parts.len()),
        ));
    };
    let slot = slot(key).ok_or_else(|| {
        malformed(
            path,
            &format!("line {n}"),
            slot_name,
            format!("unknown {slot_name} `{key}`"),
        )
    })?;
    set_slot(
        words.entry(word.to_string()).or_default(),
        slot,
        vec![form.to_string()],
    );
    Ok(())
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Whether the letter at `i` of `w` is a vowel: `aeiou`, `y` after a consonant, but not the
/// `u` of `qu`.
fn vowel_at(w: &[u8], i: usize) -> bool {
    let Some(&c) = w.get(i) else { return false };
    let prev = i.checked_sub(1).and_then(|j| w.get(j)).copied();
    match c {
        b'u' if prev == Some(b'q') => false,
        b'y' => prev.is_some_and(|p| !is_vowel(p)),
        c => is_vowel(c),
    }
}

/// Number of vowel groups, not counting a silent final `e` after a consonant: a rough
/// syllable count (`snube` 1, `simple` 1, `happy` 2).
fn syllables(w: &[u8]) -> usize {
    let groups = (0..w.len())
        .filter(|&i| vowel_at(w, i) && (i == 0 || !vowel_at(w, i - 1)))
        .count();
    let n = w.len();
    let silent_e = n >= 2 && w[n - 1] == b'e' && !vowel_at(w, n - 2);
    if silent_e && groups > 1 {
        groups - 1
    } else {
        groups
    }
}

/// A monosyllable ending consonant–single vowel–consonant whose last consonant is not
/// `w`, `x` or `y` (`stop`, `big`, `quit`): its final consonant doubles before `-ed`,
/// `-ing`, `-er`, `-est`.
fn doubles_final(w: &[u8]) -> bool {
    let n = w.len();
    if n < 3 || syllables(w) != 1 {
        return false;
    }
    let (c1, last) = (n - 3, n - 1);
    !vowel_at(w, last)
        && !matches!(w[last], b'w' | b'x' | b'y')
        && vowel_at(w, n - 2)
        && !vowel_at(w, c1)
}

/// Ends in a sibilant: `s`, `z`, `x`, `ch`, `sh` (takes `-es`).
fn sibilant(w: &str) -> bool {
    ["s", "z", "x", "ch", "sh"].iter().any(|s| w.ends_with(s))
}

/// Ends consonant + `y` (`carry`, `happy`): `y` becomes `i` before a suffix.
fn consonant_y(w: &[u8]) -> bool {
    w.len() >= 2 && w[w.len() - 1] == b'y' && !is_vowel(w[w.len() - 2])
}

/// This project's regular English morphology, for a lower-case `lemma` the tables do not
/// know, by Penn `tag`. These are not lemminflect's rules (its out-of-vocabulary path is a
/// neural model that chooses between a regular and a doubling style); they are the textbook
/// rules, applied to the letters alone:
/// * `-s`/`-es` (`VBZ`, `NNS`): `-es` after `s z x ch sh` (`fizzes`), consonant + `y` →
///   `-ies` (`carries`); verbs add `-es` after consonant + `o` (`goes`); otherwise `-s`.
/// * `-ed` (`VBD`, `VBN`): after `e` just `-d` (`baked`); consonant + `y` → `-ied`
///   (`carried`); a consonant–vowel–consonant monosyllable doubles its final consonant
///   (`stapped`), except after `w`, `x`, `y`; otherwise `-ed` (`blorped`).
/// * `-ing` (`VBG`): `-ie` → `-ying` (`lying`); a silent final `e` after a consonant drops
///   (`baking`, but `seeing`, `dyeing`); doubling as for `-ed`; otherwise `-ing`.
/// * `-er`/`-est` (`JJR`, `JJS`, `RBR`, `RBS`): words of one syllable and two-syllable
///   words in consonant + `y` are inflected (`e` + `-r`/`-st`, `-y` → `-ier`/`-iest`,
///   doubling as above); longer words, and adverbs in `-ly`, take `more`/`most`.
/// * Base tags (`VB`, `VBP`, `NN`, `JJ`, `RB`) return the lemma.
///
/// Returns `None` for an empty lemma, a lemma that is not ASCII lower-case letters (with
/// `-` or `'`), and tags other than those above.
pub fn rule_inflect(lemma: &str, tag: &str) -> Option<String> {
    let (tag, _) = parse_penn(tag)?;
    let w = lemma.as_bytes();
    if w.is_empty()
        || !w
            .iter()
            .all(|c| c.is_ascii_lowercase() || *c == b'-' || *c == b'\'')
    {
        return None;
    }
    let stem = &lemma[..lemma.len() - 1];
    let last = w[w.len() - 1];
    let double = |suffix: &str| format!("{lemma}{}{suffix}", last as char);
    Some(match tag {
        Tag::Vb | Tag::Vbp | Tag::Nn | Tag::Jj | Tag::Rb => lemma.to_string(),
        Tag::Vbz | Tag::Nns => {
            if sibilant(lemma) {
                format!("{lemma}es")
            } else if consonant_y(w) {
                format!("{stem}ies")
            } else if tag == Tag::Vbz && last == b'o' && w.len() >= 2 && !is_vowel(w[w.len() - 2]) {
                format!("{lemma}es")
            } else {
                format!("{lemma}s")
            }
        }
        Tag::Vbd | Tag::Vbn => {
            if last == b'e' {
                format!("{lemma}d")
            } else if consonant_y(w) {
                format!("{stem}ied")
            } else if doubles_final(w) {
                double("ed")
            } else {
                format!("{lemma}ed")
            }
        }
        Tag::Vbg => {
            if let Some(base) = lemma.strip_suffix("ie") {
                format!("{base}ying")
            } else if last == b'e'
                && w.len() >= 3
                && !matches!(w[w.len() - 2], b'e' | b'o' | b'y' | b'i')
            {
                format!("{stem}ing")
            } else if doubles_final(w) {
                double("ing")
            } else {
                format!("{lemma}ing")
            }
        }
        Tag::Jjr | Tag::Jjs | Tag::Rbr | Tag::Rbs => {
            let superlative = matches!(tag, Tag::Jjs | Tag::Rbs);
            let n = syllables(w);
            let adverb_ly = matches!(tag, Tag::Rbr | Tag::Rbs) && lemma.ends_with("ly");
            if adverb_ly || n > 2 || (n == 2 && !consonant_y(w)) {
                let more = if superlative { "most" } else { "more" };
                format!("{more} {lemma}")
            } else {
                let suffix = if superlative { "est" } else { "er" };
                if last == b'e' {
                    format!("{lemma}{}", &suffix[1..])
                } else if consonant_y(w) {
                    format!("{stem}i{suffix}")
                } else if doubles_final(w) {
                    double(suffix)
                } else {
                    format!("{lemma}{suffix}")
                }
            }
        }
    })
}

/// Undoes a suffix this module's rules add: `stem` is what is left after removing it, and
/// the lemma is the stem with a doubled final consonant undone (`stopp` → `stop`), a silent
/// `e` restored where the stem is a consonant–vowel–consonant monosyllable that would
/// otherwise have doubled (`snib` → `snibe`), or the stem itself (`blorp`).
fn undo_suffix(stem: &str) -> String {
    let w = stem.as_bytes();
    let n = w.len();
    if n >= 4 && w[n - 1] == w[n - 2] && !vowel_at(w, n - 1) {
        let single = &stem[..n - 1];
        if doubles_final(single.as_bytes()) {
            return single.to_string();
        }
    }
    if doubles_final(w) {
        return format!("{stem}e");
    }
    stem.to_string()
}

/// This project's rule lemmatiser for a lower-case `word` the tables do not list, the
/// inverse of [`rule_inflect`] (not lemminflect's neural model): by `upos`
/// * `VERB`/`AUX`: `-ies`/`-ied` → `-y`, `-ying` → `-ie` when the rest is one consonant
///   (`lying`), `-ed`/`-ing` removed, undoing a doubled final consonant (`stopped`) or
///   restoring a silent `e` where the stem would otherwise have doubled (`baked`), `-es` after a sibilant or consonant + `o` removed, `-s` (not `-ss`) removed;
/// * `NOUN`/`PROPN`: `-ies` → `-y`, `-es` after a sibilant removed, `-s` (not `-ss`, `-us`,
///   `-is`) removed;
/// * `ADJ`/`ADV`: `-ier`/`-iest` → `-y`, `-er`/`-est` removed the same way, and
///   `more X`/`most X` → `X`.
///
/// A word without any of those endings is its own lemma. Returns `None` for an empty word,
/// one that is not ASCII lower-case letters (with `-` or `'`), or another upos.
pub fn rule_lemma(word: &str, upos: &str) -> Option<String> {
    let ok = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|c| c.is_ascii_lowercase() || c == b'-' || c == b'\'')
    };
    let long = |stem: &str| stem.len() >= 2;
    match upos {
        "VERB" | "AUX" => {
            if !ok(word) {
                return None;
            }
            if let Some(stem) = word.strip_suffix("ies").or(word.strip_suffix("ied")) {
                if long(stem) {
                    return Some(format!("{stem}y"));
                }
            }
            if let Some(stem) = word.strip_suffix("ying") {
                if stem.len() == 1 && !vowel_at(stem.as_bytes(), 0) {
                    return Some(format!("{stem}ie"));
                }
            }
            for suffix in ["ing", "ed"] {
                if let Some(stem) = word.strip_suffix(suffix) {
                    if long(stem) && stem.bytes().any(|c| is_vowel(c) || c == b'y') {
                        if suffix == "ed" && stem.ends_with('e') {
                            return Some(stem.to_string());
                        }
                        return Some(undo_suffix(stem));
                    }
                }
            }
            if let Some(stem) = word.strip_suffix("es") {
                let w = stem.as_bytes();
                let o_after_consonant =
                    stem.ends_with('o') && w.len() >= 2 && !is_vowel(w[w.len() - 2]);
                if long(stem) && (sibilant(stem) || o_after_consonant) {
                    return Some(stem.to_string());
                }
            }
            match word.strip_suffix('s') {
                Some(stem) if long(stem) && !stem.ends_with('s') => Some(stem.to_string()),
                _ => Some(word.to_string()),
            }
        }
        "NOUN" | "PROPN" => {
            if !ok(word) {
                return None;
            }
            if let Some(stem) = word.strip_suffix("ies") {
                if long(stem) {
                    return Some(format!("{stem}y"));
                }
            }
            if let Some(stem) = word.strip_suffix("es") {
                if long(stem) && sibilant(stem) {
                    return Some(stem.to_string());
                }
            }
            match word.strip_suffix('s') {
                Some(stem) if long(stem) && !["s", "u", "i"].iter().any(|e| stem.ends_with(e)) => {
                    Some(stem.to_string())
                }
                _ => Some(word.to_string()),
            }
        }
        "ADJ" | "ADV" => {
            if let Some(rest) = word.strip_prefix("more ").or(word.strip_prefix("most ")) {
                return ok(rest).then(|| rest.to_string());
            }
            if !ok(word) {
                return None;
            }
            for suffix in ["iest", "ier"] {
                if let Some(stem) = word.strip_suffix(suffix) {
                    if long(stem) {
                        return Some(format!("{stem}y"));
                    }
                }
            }
            for suffix in ["est", "er"] {
                if let Some(stem) = word.strip_suffix(suffix) {
                    if long(stem) && stem.bytes().any(is_vowel) {
                        return Some(undo_suffix(stem));
                    }
                }
            }
            Some(word.to_string())
        }
        _ => None,
    }
}

/// The path of the `lemminflect` resources folder when the asset is already installed,
/// without fetching (for tools that must stay offline).
pub fn installed_dir() -> Option<PathBuf> {
    let spec = metamorph_data::assets::spec("lemminflect").ok()?;
    metamorph_data::assets::installed(&metamorph_data::assets::home(), spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_styles_follow_python() {
        assert_eq!(caps_style("WALK"), Caps::AllUpper);
        assert_eq!(caps_style("Walk"), Caps::FirstUpper);
        assert_eq!(caps_style("wALK"), Caps::Lower);
        assert_eq!(caps_style("I"), Caps::AllUpper);
        assert_eq!(caps_style(""), Caps::Lower);
        assert_eq!(apply_caps("walked", Caps::FirstUpper), "Walked");
        assert_eq!(capitalize("mcDONALD"), "Mcdonald");
    }

    #[test]
    fn doubling_needs_a_cvc_monosyllable() {
        for (w, d) in [
            ("stap", true),
            ("stop", true),
            ("quit", true),
            ("blorp", false),
            ("fix", false),
            ("snow", false),
            ("play", false),
            ("rain", false),
            ("visit", false),
            ("be", false),
        ] {
            assert_eq!(doubles_final(w.as_bytes()), d, "{w}");
        }
    }

    #[test]
    fn rules_reject_what_they_cannot_inflect() {
        assert_eq!(rule_inflect("", "VBD"), None);
        assert_eq!(rule_inflect("Blorp", "VBD"), None);
        assert_eq!(rule_inflect("blorp", "DT"), None);
        assert_eq!(rule_inflect("blorp", "VB").as_deref(), Some("blorp"));
    }
}
