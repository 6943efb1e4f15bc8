//! The lookup API on loaded [`Inflections`]: inflecting a lemma, lemmatising a word, and the named
//! forms (past, plural, comparative, forms of *be*), with the rules as fallback.

use super::caps::{apply_caps, caps_style, lookup_key};
use super::rules::{rule_inflect, rule_lemma};
use super::table::Inflections;
use super::tags::{parse_penn, Inflected, Person, Source, Tag, Upos};

impl Inflections {
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
