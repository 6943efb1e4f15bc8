//! MT4MRC MR1-2, "Inversion with Tense Change": move a past, present-perfect or future
//! question to the other side of "now"; the answer must flip. Precondition: the model answered
//! the source with Yes (the paper's eligibility rule).
//!
//! # What the paper says
//! Eligible questions are past (`did X …`), present perfect (`have/has X done …`) and future
//! (`will X …`, `is X going to …`). Past and present perfect become future; future becomes
//! present perfect: "will there be a fifth season of mom" → "has there ever been a fifth
//! season of mom". Other patterns ("was X …") are excluded on purpose as ambiguous.
//!
//! # Where the authors' code (`tool/MR1_2.py`) differs, and what we chose
//! * **Target future form.** The code picks "will" or "is/are going to" with an unseeded
//!   `random.randint`, so its cases cannot be reproduced. We always write **"will"**: one
//!   deterministic case per source (no seed to record), and no "is/are" agreement to get wrong.
//! * **Sources.** The code also accepts `had …` and `would …` and ignores `is/are X going to …`.
//!   We follow **the paper**: `did`, `has`/`have`, `will`, `is`/`are`/`am X going to V`; past
//!   perfect and conditionals are neither past nor future questions in the paper's sense.
//! * **Verb forms.** The code swaps only the auxiliary ("has X won" → "will X won"). We rewrite
//!   the first verb of the chain: to the base form for the future ("has X won" → "will X win",
//!   "has X been made" → "will X be made", and a source's own slip "did X wrote" → "will X
//!   write"), to the past participle (lemminflect tables, irregulars included) for the present
//!   perfect ("will X win" → "has X ever won", "will X be made" → "has X ever been made").
//!   Verbs coordinated with the main verb follow it ("has anyone escaped and lived" → "will
//!   anyone escape and live"). "has X been to Y" (= visited) becomes "will X go to Y".
//! * **has/have** agrees with the subject: plural for NNS/NNPS heads, plural pronouns and
//!   coordinations with "and"; for "there" the noun after *be* decides ("has there ever been a
//!   season 8", "have there ever been any more movies"); from "is/are X going to", the source's
//!   own "is"/"are" decides when the parse gives no better evidence.
//! * **Parse robustness.** en_core_web_sm often misparses lower-case questions ("has croatia
//!   ever won" with "has" as ROOT). The verb is the parse's head of the fronted auxiliary when
//!   that is plausible, else the first clause verb of the question; either way, the words
//!   before it must hold a nominal and no other finite verb, and the verb must be one the
//!   inflection tables know ("will all xbox 360 games work", with "xbox" tagged VB, is skipped).
//! * **Subordinate past.** A past-tense verb after the main one that is not coordinated with it
//!   ("did the beatles break up before john lennon died") would contradict the future; no case.
//! * **Dated events.** A question with a year after the verb ("did england host the world cup
//!   in 1966") cannot move to the future; it yields no case.
//! * **"ever".** Like the code, "ever" is dropped on the way to the future ("has X ever won" →
//!   "will X win"); like the paper's example, it is added on the way to the present perfect
//!   ("will there be" → "has there ever been"), unless the question is negated or already has
//!   one. A final adverb "before" ("has X been in the final before") is dropped for the future,
//!   where it no longer makes sense.
//!
//! # When the inversion holds (a narrowing of the paper, measured)
//! The paper's relation is that a Yes about one side of "now" becomes a No about the other. A
//! review of 25 follow-ups found only 32% valid: the future of a recurring or open event is not
//! "No" ("has there ever been a tornado in canada" → "will there be a tornado in canada"), a
//! passage often already reports the "future" event the question asks about (BoolQ's questions
//! were asked before their passages were last edited), and the plot of a story has no "now".
//! So a case is made only when a competent reader would give the opposite answer
//! ([`inversion_holds`]):
//! * **Past → future** only for events that happen at most once to their subject (a verb of
//!   [`ONCE_ONLY_VERBS`]: "did the titanic sink" → "will the titanic sink"), never for "ever"
//!   questions or "there"-existentials, which ask whether any occurrence exists.
//! * **Future → present perfect** never for instalments (season, series, episode, sequel,
//!   part, …): whether the passage reports or announces them cannot be told from the question;
//!   nor for "ever" questions ("will the us ever get high speed rail" may already have).
//!   Nor **past → future** for a question that names one ("did glenn die in the walking dead
//!   season 6"): its plot is fixed, so the future can be yes too (review of seed 20261216).
//! * Neither direction when the passage is about a work of fiction (its first sentence calls
//!   it a film, novel, series, …): plot events are not ordered against the present.
//!
//! Not handled (no case): contracted negation ("didn't"), "did X used to" (no future), future
//! perfect ("will X have done"), `did`/`has` as main verbs ("has X a car"), and any verb whose
//! form cannot be found.

use std::sync::Arc;

use metamorph_data::{Case, Expectation, Result, Task, Token};

use super::{edited_case, FAMILY};
use crate::edit::{match_case, Replacement};
use crate::lexicon::inflect::Inflections;
use crate::syntax::Tree;
use crate::{MetamorphicRelation, Resources, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR1-2";

/// MT4MRC MR1-2 (see the module docs).
#[derive(Clone, Debug)]
pub struct TenseChange {
    inflections: Arc<Inflections>,
    /// Whether [`inversion_holds`] gates the cases (off only in the tests of the rewriting).
    check_inversion: bool,
}

impl TenseChange {
    /// The relation over the lemminflect tables of `resources`.
    ///
    /// # Errors
    /// When the inflection tables cannot be loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(TenseChange {
            inflections: resources.inflections()?,
            check_inversion: true,
        })
    }
}

impl MetamorphicRelation for TenseChange {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::BoolQ]
    }

    fn parsed_fields(&self) -> &'static [&'static str] {
        &["question"]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let Some(parsed) = source.parse("question") else {
            return Ok(Vec::new());
        };
        let tree = Tree::new(parsed);
        if super::asks_to_choose(&tree) || personal_or_aspectual(&tree) {
            return Ok(Vec::new());
        }
        let Some(clause) = self.clause(&tree) else {
            return Ok(Vec::new());
        };
        if self.check_inversion && !inversion_holds(&tree, &clause, example.context.as_deref()) {
            return Ok(Vec::new());
        }
        let Some(replacements) = self.rewrite(&tree) else {
            return Ok(Vec::new());
        };
        Ok(edited_case(
            example,
            NAME,
            0,
            "question",
            replacements,
            &Expectation::Inverted,
            true,
        )
        .into_iter()
        .collect())
    }
}

/// Verbs whose event happens at most once to its subject, so that a past Yes makes the future
/// a No (lemmas).
pub const ONCE_ONLY_VERBS: [&str; 30] = [
    "die",
    "bear",
    "found",
    "establish",
    "invent",
    "discover",
    "sink",
    "assassinate",
    "kill",
    "murder",
    "execute",
    "retire",
    "resign",
    "abdicate",
    "collapse",
    "dissolve",
    "disband",
    "destroy",
    "demolish",
    "extinct",
    "originate",
    "create",
    "build",
    "construct",
    "invade",
    "annex",
    "sign",
    "declare",
    "inaugurate",
    "independence",
];

/// Nouns of instalments and works of fiction (see the module docs).
const INSTALMENTS: [&str; 10] = [
    "season", "series", "episode", "sequel", "prequel", "part", "chapter", "volume", "movie",
    "film",
];
const FICTION: [&str; 17] = [
    "film", "movie", "novel", "series", "sitcom", "episode", "show", "play", "musical", "opera",
    "comic", "manga", "anime", "game", "book", "story", "fiction",
];

/// Whether a competent reader would give the opposite answer to the follow-up (see the module
/// docs, "When the inversion holds").
fn inversion_holds(tree: &Tree<'_>, clause: &Clause, passage: Option<&str>) -> bool {
    let words: Vec<String> = (0..tree.len()).map(|i| tree.lower(i)).collect();
    if let Some(passage) = passage {
        let first_sentence = passage.split(". ").next().unwrap_or(passage).to_lowercase();
        let calls_fiction = first_sentence
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| FICTION.contains(&w));
        if calls_fiction {
            return false;
        }
    }
    // StrategyQA's "Will Chick-fil-A hypothetically refuse …" and a condition ("will the
    // shadows change if I roll them") ask about a supposed world, not a time: no side of
    // "now" to move to (2026-12-01).
    if super::asks_hypothetically(tree)
        || (0..tree.len()).any(|i| {
            tree.token(i).dep == "mark" && matches!(words[i].as_str(), "if" | "unless" | "when")
        })
    {
        return false;
    }
    // "Did a gladiator kill his opponent …", "Have rhinoceroses been killed …": an indefinite
    // or bare plural subject is any member of a kind, to which the event can happen again.
    let subject = clause.subject;
    let generic_subject = super::is_kind_level(tree, subject);
    let once_only = !generic_subject
        && ONCE_ONLY_VERBS.contains(&tree.token(clause.main).lemma.to_lowercase().as_str());
    // The word or its regular plural ("seasons"; "series" is its own plural).
    let instalment = words.iter().any(|w| {
        INSTALMENTS.contains(&w.as_str()) || INSTALMENTS.contains(&w.trim_end_matches('s'))
    });
    match clause.tense {
        Tense::Past | Tense::PresentPerfect => {
            once_only
                && !words.iter().any(|w| w == "ever")
                && tree.lower(clause.subject) != "there"
                // "did glenn die in the walking dead season 6" → "will glenn die …": an
                // instalment's plot is fixed, so the future can be yes too (review of seed
                // 20261216).
                && !instalment
        }
        // "will the us ever get high speed rail" → "has the us ever gotten …": "ever" asks
        // about any occurrence, and one may have happened already (review of seed 20261219).
        // "Will The Exorcist stimulate the limbic system?" → "Has The Exorcist ever
        // stimulated …": a generic or repeatable event may have happened and happen again
        // (StrategyQA's questions, 2026-12-01); only an event that happens at most once to
        // its subject is No on the other side of "now".
        Tense::Future | Tense::GoingTo { .. } => {
            once_only && !instalment && !words.iter().any(|w| w == "ever")
        }
    }
}

/// The tense of an eligible question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tense {
    /// `did X V …`
    Past,
    /// `has/have X V-en …`
    PresentPerfect,
    /// `will X V …`
    Future,
    /// `is/are X going to V …`: `going` and `to` are the tokens to drop.
    GoingTo { going: usize, to: usize },
}

/// The verb chain of an eligible question.
#[derive(Debug)]
struct Clause {
    tense: Tense,
    /// The lexical head of the clause (the verb whose subject and auxiliaries we read).
    main: usize,
    /// The first verb after the subject: `main` or its first auxiliary after the fronted one
    /// ("been" in "has X been made", "be" in "will X be renewed").
    first_verb: usize,
    /// The subject.
    subject: usize,
}

const SUBJECT_DEPS: &[&str] = &["nsubj", "nsubjpass", "csubj", "csubjpass", "expl"];

impl TenseChange {
    /// The replacements that change the tense of the question in `tree`, or `None` when it is
    /// not eligible or a form cannot be found.
    fn rewrite(&self, tree: &Tree<'_>) -> Option<Vec<Replacement>> {
        let clause = self.clause(tree)?;
        let tokens = tree.tokens();
        let first = &tokens[0];
        let mut out = Vec::new();
        match clause.tense {
            Tense::Past | Tense::PresentPerfect => {
                // A past verb in a subordinate clause would contradict the future ("did the
                // beatles break up before john lennon died" → "will … before john lennon died").
                let coordinated = coordinated_verbs(tree, clause.main);
                if (clause.main + 1..tree.len())
                    .any(|i| tokens[i].tag == "VBD" && !coordinated.contains(&i))
                {
                    return None;
                }
                out.push(replace(first, &match_case(&first.text, "will")));
                // "ever" belongs to the present perfect / past question, not to the future one.
                out.extend(
                    (1..clause.main)
                        .filter(|&i| tree.lower(i) == "ever" && tokens[i].dep == "advmod")
                        .map(|i| delete(tree, i)),
                );
                let first_verb = &tokens[clause.first_verb];
                let base = if self.is_been_to(tree, &clause) {
                    "go".to_string()
                } else {
                    self.base_form(first_verb)?
                };
                if base != first_verb.text {
                    out.push(replace(first_verb, &match_case(&first_verb.text, &base)));
                }
                for c in coordinated_verbs(tree, clause.main) {
                    let tag = tokens[c].tag.as_str();
                    if matches!(tag, "VBD" | "VBN" | "VBZ") || self.is_participle(&tokens[c]) {
                        let base = self.base_form(&tokens[c])?;
                        out.push(replace(&tokens[c], &match_case(&tokens[c].text, &base)));
                    }
                }
                if let Some(before) = final_before(tree, &clause) {
                    let token = &tokens[before];
                    out.push(Replacement::new(
                        tokens[before - 1].end as usize,
                        token.end as usize,
                        "",
                    ));
                }
            }
            Tense::Future | Tense::GoingTo { .. } => {
                // "is/are X going to": the source's own agreement tells the number.
                // (except for "there", which colloquially takes "is" before a plural).
                let plural = match (
                    clause.tense,
                    subject_is_plural(tree, clause.subject, clause.main),
                ) {
                    (_, Some(plural)) if tree.lower(clause.subject) == "there" => plural,
                    (Tense::GoingTo { .. }, _) => tree.lower(0) != "is",
                    (_, plural) => plural.unwrap_or(false),
                };
                let have = if plural { "have" } else { "has" };
                out.push(replace(first, &match_case(&first.text, have)));
                if let Tense::GoingTo { going, to } = clause.tense {
                    out.push(delete(tree, going));
                    out.push(delete(tree, to));
                }
                let first_verb = &tokens[clause.first_verb];
                let lemma = self.base_form(first_verb)?;
                let participle = self.inflections.inflect(&lemma, "VBN")?;
                let negated = tokens.iter().any(|t| {
                    t.dep == "neg" || matches!(t.text.to_lowercase().as_str(), "not" | "never")
                });
                let has_ever = (0..tree.len()).any(|i| tree.lower(i) == "ever");
                let after = if negated || has_ever {
                    participle
                } else {
                    format!("ever {participle}")
                };
                out.push(replace(first_verb, &match_case(&first_verb.text, &after)));
                for c in coordinated_verbs(tree, clause.main) {
                    if tokens[c].tag == "VB" {
                        let lemma = self.base_form(&tokens[c])?;
                        let participle = self.inflections.inflect(&lemma, "VBN")?;
                        out.push(replace(
                            &tokens[c],
                            &match_case(&tokens[c].text, &participle),
                        ));
                    }
                }
            }
        }
        Some(out)
    }

    /// The eligible clause of the question, if any.
    ///
    /// The small English model often misparses BoolQ's lower-case questions ("has croatia ever
    /// won …" with "has" as ROOT and "won" as its `ccomp`; "did star trek discovery get …" with
    /// "did" attached to "star"), so the verb is taken from the parse when the parse is
    /// plausible and otherwise found by scanning for the first finite-clause verb; either way,
    /// the words between the fronted auxiliary and the verb (the subject) must hold a nominal
    /// and no other verb.
    fn clause(&self, tree: &Tree<'_>) -> Option<Clause> {
        if tree.len() < 3 {
            return None;
        }
        let tokens = tree.tokens();
        // Contracted negation ("didn't", "won't") would need the contraction rewritten too.
        if tokens.iter().any(|t| t.text.to_lowercase() == "n't") {
            return None;
        }
        if !matches!(tokens[0].dep.as_str(), "aux" | "ROOT") {
            return None;
        }
        let tense = match tree.lower(0).as_str() {
            "did" => Tense::Past,
            "has" | "have" => Tense::PresentPerfect,
            "will" => Tense::Future,
            "is" | "are" | "am" => {
                let going = (2..tree.len().saturating_sub(2))
                    .find(|&g| tree.lower(g) == "going" && tree.lower(g + 1) == "to")?;
                Tense::GoingTo {
                    going,
                    to: going + 1,
                }
            }
            _ => return None,
        };
        let (main, first_verb) = match tense {
            Tense::GoingTo { going, to } => {
                let verb = to + 1;
                if !self.is_base_verb(&tokens[verb]) || !subject_region(tree, going) {
                    return None;
                }
                (chain_head(tree, verb), verb)
            }
            _ => {
                // The parse's verb first, then the first clause verb of the question.
                let parsed = (tokens[0].dep == "aux" && tree.head(0) > 0).then(|| {
                    let head = tree.head(0);
                    let first = tree
                        .children(head)
                        .filter(|&c| c > 0 && matches!(tokens[c].dep.as_str(), "aux" | "auxpass"))
                        .chain(std::iter::once(head))
                        .min()
                        .unwrap_or(head);
                    (head, first)
                });
                let scanned = (1..tree.len())
                    .find(|&i| is_clause_verb(&tokens[i]))
                    .map(|i| (chain_head(tree, i), i));
                [parsed, scanned]
                    .into_iter()
                    .flatten()
                    .find(|&(main, first)| {
                        main >= first
                            && subject_region(tree, first)
                            && self.verb_fits(tree, tense, first, main)
                    })?
            }
        };
        // A dated event cannot move in time: "did england host the world cup in 1966".
        if (first_verb..tree.len()).any(|i| is_year(&tokens[i])) {
            return None;
        }
        let subject_end = match tense {
            Tense::GoingTo { going, .. } => going,
            _ => first_verb,
        };
        let subject = subject_of(tree, subject_end, [main, first_verb, 0])?;
        Some(Clause {
            tense,
            main,
            first_verb,
            subject,
        })
    }

    /// Whether `first` (the first verb after the subject) fits the tense: a base form after
    /// "did" and "will" (a source's own slip after "did", "did X wrote", is repaired), any form
    /// of a known verb after "has/have" (participles the tagger calls VB, VBD or JJ, and
    /// slips like "have X ever win").
    fn verb_fits(&self, tree: &Tree<'_>, tense: Tense, first: usize, main: usize) -> bool {
        let token = tree.token(first);
        let lower = token.text.to_lowercase();
        if !is_verbal(token) && !self.is_participle(token) {
            return false;
        }
        match tense {
            Tense::Past => {
                // "did X used to be": there is no future "used to".
                let used_to = tree.token(main).lemma == "use"
                    && main + 1 < tree.len()
                    && tree.lower(main + 1) == "to";
                !used_to
                    && lower != "be"
                    && (self.is_base_verb(token)
                        || matches!(token.tag.as_str(), "VBD" | "VBN")
                            && tree.head(0) == first
                            && self.base_form(token).is_some())
            }
            Tense::PresentPerfect => {
                matches!(token.tag.as_str(), "VB" | "VBP" | "VBD" | "VBN" | "JJ")
                    && self.base_form(token).is_some()
            }
            // Future perfect ("will X have won") has no present-perfect counterpart.
            Tense::Future => self.is_base_verb(token) && !(lower == "have" && first != main),
            Tense::GoingTo { .. } => false,
        }
    }

    /// Whether `token` is the base form of a verb the tables know ("xbox" is not one).
    fn is_base_verb(&self, token: &Token) -> bool {
        let word = token.text.to_lowercase();
        matches!(token.tag.as_str(), "VB" | "VBP")
            && word != "are"
            && word != "am"
            && self.inflections.inflect(&word, "VBD").is_some()
    }

    /// Whether `token` is a past participle the tagger took for an adjective ("have panama
    /// qualified for …" tags "qualified" JJ).
    fn is_participle(&self, token: &Token) -> bool {
        let word = token.text.to_lowercase();
        token.tag == "JJ"
            && self
                .inflections
                .lemmas(&word, "VERB")
                .iter()
                .any(|l| self.inflections.inflect(l, "VBN").as_deref() == Some(word.as_str()))
    }

    /// The base form of a verb token: spaCy's lemma when the tables confirm it, else the
    /// tables' lemma.
    fn base_form(&self, token: &Token) -> Option<String> {
        let word = token.text.to_lowercase();
        if self.is_base_verb(token) {
            return Some(word);
        }
        let spacy = token.lemma.to_lowercase();
        let confirms = |lemma: &str| {
            ["VBD", "VBN", "VBZ", "VBP", "VBG", "VB"].iter().any(|tag| {
                self.inflections
                    .inflect_all(lemma, tag)
                    .iter()
                    .any(|f| f.eq_ignore_ascii_case(&word))
            })
        };
        if !spacy.is_empty() && spacy != word && confirms(&spacy) {
            return Some(spacy);
        }
        let upos = if token.pos == "AUX" { "AUX" } else { "VERB" };
        self.inflections
            .lemma(&word, upos)
            .or_else(|| self.inflections.lemma(&word, "VERB"))
            .filter(|l| confirms(l))
            .or_else(|| (spacy == word && confirms(&word)).then(|| word.clone()))
    }

    /// Whether the clause is "has X been to Y" (= visited), whose future is "will X go to Y".
    fn is_been_to(&self, tree: &Tree<'_>, clause: &Clause) -> bool {
        let main = clause.main;
        clause.tense == Tense::PresentPerfect
            && clause.first_verb == main
            && tree.lower(main) == "been"
            && main + 1 < tree.len()
            && tree.lower(main + 1) == "to"
            && tree.head(main + 1) == main
            && tree.tokens()[main + 1].dep == "prep"
            && tree
                .child_with_dep(main, &["attr", "acomp", "dobj"])
                .is_none()
    }
}

/// Whether a token is tagged as a verb.
fn is_verbal(token: &Token) -> bool {
    matches!(token.pos.as_str(), "VERB" | "AUX") || token.tag.starts_with("VB")
}

/// Whether a token can be the verb of the question's clause (not a participle or gerund
/// modifying a noun: "the lost world", "a school shooting").
fn is_clause_verb(token: &Token) -> bool {
    is_verbal(token) && !matches!(token.dep.as_str(), "amod" | "compound" | "acl" | "relcl")
}

/// The verb an auxiliary belongs to ("made" for "been" in "has X been made").
fn chain_head(tree: &Tree<'_>, verb: usize) -> usize {
    let head = tree.head(verb);
    if matches!(tree.token(verb).dep.as_str(), "aux" | "auxpass") && head > verb {
        head
    } else {
        verb
    }
}

/// Whether tokens `1..end` can be the subject: they hold a nominal (or "there") and no finite
/// verb.
fn subject_region(tree: &Tree<'_>, end: usize) -> bool {
    end > 1
        && (1..end).any(|i| {
            matches!(
                tree.token(i).pos.as_str(),
                "NOUN" | "PROPN" | "PRON" | "NUM"
            ) || tree.lower(i) == "there"
        })
        && !(1..end).any(|i| {
            let t = tree.token(i);
            matches!(t.tag.as_str(), "VB" | "VBD" | "VBZ" | "VBP" | "MD") && is_clause_verb(t)
        })
}

/// The subject in tokens `1..end`: a subject-labelled dependent of one of `heads` there, else
/// the first token whose head lies outside the span (the span's own head, whatever the parser
/// labelled it).
fn subject_of(tree: &Tree<'_>, end: usize, heads: [usize; 3]) -> Option<usize> {
    heads
        .iter()
        .find_map(|&h| {
            tree.children(h).find(|&c| {
                (1..end).contains(&c) && SUBJECT_DEPS.contains(&tree.token(c).dep.as_str())
            })
        })
        .or_else(|| (1..end).find(|&i| !(1..end).contains(&tree.head(i))))
}

/// Whether a token is a year (four digits from 1000 to 2099).
fn is_year(token: &Token) -> bool {
    token.text.len() == 4
        && token.text.bytes().all(|b| b.is_ascii_digit())
        && (1000..2100).contains(&token.text.parse::<u32>().unwrap_or(0))
}

/// Verbs coordinated with `main` that share its subject and auxiliary (no subject or
/// auxiliary of their own), transitively: "escaped … and lived".
fn coordinated_verbs(tree: &Tree<'_>, main: usize) -> Vec<usize> {
    let tokens = tree.tokens();
    let mut out = Vec::new();
    let mut stack = vec![main];
    while let Some(v) = stack.pop() {
        for c in tree.children(v) {
            let own_args = tree.children(c).any(|g| {
                SUBJECT_DEPS.contains(&tokens[g].dep.as_str())
                    || matches!(tokens[g].dep.as_str(), "aux" | "auxpass")
            });
            if tokens[c].dep == "conj" && is_verbal(&tokens[c]) && !own_args {
                out.push(c);
                stack.push(c);
            }
        }
    }
    out.sort_unstable();
    out
}

/// A question-final adverb "before" ("… in the world cup before"), which only makes sense
/// in a past or perfect question.
fn final_before(tree: &Tree<'_>, clause: &Clause) -> Option<usize> {
    let mut last = tree.len() - 1;
    while last > 0 && tree.token(last).pos == "PUNCT" {
        last -= 1;
    }
    let token = tree.token(last);
    (last > clause.main
        && tree.lower(last) == "before"
        && tree.children(last).next().is_none()
        && matches!(token.dep.as_str(), "advmod" | "prep"))
    .then_some(last)
}

/// Whether the subject `subject` of `verb` is plural ("have" rather than "has"); `None` for an
/// existential "there" whose noun the parse does not show.
fn subject_is_plural(tree: &Tree<'_>, subject: usize, verb: usize) -> Option<bool> {
    if tree.lower(subject) == "there" {
        // Existential "there": the noun after "be" agrees.
        return tree
            .children(verb)
            .find(|&c| c > subject && matches!(tree.token(c).dep.as_str(), "attr" | "nsubj"))
            .map(|n| noun_is_plural(tree, n));
    }
    Some(noun_is_plural(tree, subject))
}

/// Whether a nominal head is plural: plural tag, plural pronoun, or coordination with "and".
fn noun_is_plural(tree: &Tree<'_>, n: usize) -> bool {
    let token = tree.token(n);
    if matches!(token.tag.as_str(), "NNS" | "NNPS") {
        return true;
    }
    if matches!(
        tree.lower(n).as_str(),
        "i" | "we" | "you" | "they" | "these" | "those" | "both" | "many" | "few" | "several"
    ) {
        return true;
    }
    tree.children(n).any(|c| tree.token(c).dep == "conj")
        && tree
            .children(n)
            .any(|c| tree.token(c).dep == "cc" && tree.lower(c) == "and")
}

/// Replaces token `token` by `text`.
fn replace(token: &Token, text: &str) -> Replacement {
    Replacement::new(token.start as usize, token.end as usize, text)
}

/// Deletes token `i` with the whitespace that follows it (or, for the last token, the
/// whitespace before it).
fn delete(tree: &Tree<'_>, i: usize) -> Replacement {
    let token = tree.token(i);
    if i + 1 < tree.len() {
        Replacement::new(token.start as usize, tree.token(i + 1).start as usize, "")
    } else if i > 0 {
        Replacement::new(tree.token(i - 1).end as usize, token.end as usize, "")
    } else {
        Replacement::new(token.start as usize, token.end as usize, "")
    }
}

/// Whether the question is about a person it addresses ([`about_a_person_addressed`])
/// or carries an aspectual adverb: there the future and the past are not exclusive, and the
/// flip fails ("will he vouch for me" → "has he ever vouched for me", "will you be my
/// valentine", "will they never find a cure", "have you signed your contract yet" → "will you
/// sign … yet"). A reading of WordNet's and BREAK's questions (2026-11-30) found 10 of 14 such
/// rewrites invalid; the paper's own kind of question ("will there be a fifth season of mom",
/// "did the girl in the lost world die") names a one-off event of a named thing.
fn personal_or_aspectual(tree: &Tree<'_>) -> bool {
    about_a_person_addressed(tree)
        || (0..tree.len()).any(|i| {
            matches!(
                tree.lower(i).as_str(),
                "still" | "yet" | "already" | "never" | "anymore" | "again"
            )
        })
}

/// Whether the question is about a person it addresses or names by a personal pronoun, as the
/// subject or object of its main clause ("will he vouch for me", "will you be my valentine";
/// not the generic "we" of "will we see the bottom of the mariana trench", nor a pronoun inside
/// a title, "all i want for christmas is you"). What a person does may happen again, in the
/// past and in the future, so MR1-2's tense change does not flip the answer: a reading of other
/// questions (2026-11-30) found such rewrites invalid. (MR1-3's before/after swap fails on a
/// person's states, "were you hurting after the accident", but not on their single events,
/// "did he leave after dinner", which a pronoun does not tell apart.)
fn about_a_person_addressed(tree: &Tree<'_>) -> bool {
    let root = tree.root(0..tree.len());
    let of_main_clause = |i: usize| {
        let head = tree.head(i);
        Some(head) == root || (tree.token(i).dep == "pobj" && Some(tree.head(head)) == root)
    };
    (0..tree.len()).any(|i| {
        matches!(
            tree.lower(i).as_str(),
            "i" | "you" | "he" | "she" | "me" | "him" | "her"
        ) && of_main_clause(i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use metamorph_data::Precondition;

    /// The rewriting alone (the validity gate has tests of its own).
    fn cases(question: &str) -> Vec<Case> {
        let (example, parses) = testing::boolq(question, "Some passage.");
        let mut relation = TenseChange::new(testing::resources()).unwrap();
        relation.check_inversion = false;
        let cases = relation
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        for case in &cases {
            case.validate().unwrap();
            // Every edit is exact: `before` is the source's text at its offsets.
            let chars: Vec<char> = question.chars().collect();
            for edit in &case.edits {
                let before: String = chars[edit.start as usize..edit.end as usize]
                    .iter()
                    .collect();
                assert_eq!(before, edit.before, "{question}");
            }
        }
        cases
    }

    fn followup(question: &str) -> Option<String> {
        let cases = cases(question);
        assert!(cases.len() <= 1);
        cases
            .into_iter()
            .next()
            .map(|c| c.followup.question.unwrap())
    }

    fn check(pairs: &[(&str, &str)]) {
        for (source, expected) in pairs {
            assert_eq!(followup(source).as_deref(), Some(*expected), "{source}");
        }
    }

    fn gated(question: &str, passage: &str) -> bool {
        let (example, parses) = testing::boolq(question, passage);
        let relation = TenseChange::new(testing::resources()).unwrap();
        !relation
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .is_empty()
    }

    #[test]
    fn only_questions_whose_answer_really_flips_are_kept() {
        let plain = "The ship left port in April.";
        // Once-only events flip; recurring or open ones do not.
        assert!(gated("did abraham lincoln die in office", plain));
        // An instalment's plot is fixed, in either direction.
        assert!(!gated("did glenn die in the walking dead season 6", plain));
        assert!(!gated("will there be a season 3 of the crown", plain));
        assert!(!gated(
            "will there be a series 5 of brokenwood mysteries",
            plain
        ));
        assert!(!gated("did germany win the world cup", plain));
        assert!(!gated("has there ever been a tornado in canada", plain));
        assert!(!gated("has lincoln ever died in office", plain));
        // Instalments and stories are left alone.
        assert!(!gated("will there be a fifth season of mom", plain));
        // The future of a repeatable event may already have happened (StrategyQA's "Will
        // The Exorcist stimulate the limbic system?"); of a once-only one, not.
        assert!(gated("will the company build a new factory", plain));
        assert!(!gated(
            "will the exorcist stimulate the limbic system",
            plain
        ));
        // "ever" asks for any occurrence, and one may be past already.
        assert!(!gated("will the company ever build a new factory", plain));
        // A kind's members, a supposed world, a condition (StrategyQA, 2026-12-01).
        assert!(!gated(
            "did a gladiator kill his opponent with a shotgun",
            plain
        ));
        assert!(!gated(
            "have rhinoceroses been killed to improve sex lives",
            plain
        ));
        assert!(!gated(
            "will the company hypothetically build a new factory",
            plain
        ));
        assert!(!gated(
            "will the company build a new factory if the tax falls",
            plain
        ));
        assert!(!gated(
            "did simba die",
            "The Lion King is a 1994 animated film. Its hero is Simba."
        ));
    }

    #[test]
    fn papers_example() {
        check(&[(
            "will there be a fifth season of mom",
            "has there ever been a fifth season of mom",
        )]);
    }

    #[test]
    fn past_and_present_perfect_become_future_with_the_base_form() {
        check(&[
            (
                "did the brewers make it to the world series",
                "will the brewers make it to the world series",
            ),
            // "has" parsed as ROOT with "won" as its ccomp; "ever" goes.
            (
                "has croatia ever won the soccer world cup",
                "will croatia win the soccer world cup",
            ),
            (
                "have we seen the bottom of the mariana trench",
                "will we see the bottom of the mariana trench",
            ),
            // Participles tagged VB.
            (
                "has anyone hit a hole in one on a par 5",
                "will anyone hit a hole in one on a par 5",
            ),
            // The source's own slips are repaired by the base form.
            (
                "did mariah carey wrote all i want for christmas is you",
                "will mariah carey write all i want for christmas is you",
            ),
            (
                "has anyone ever came back from 3-0 in nba",
                "will anyone come back from 3-0 in nba",
            ),
        ]);
    }

    #[test]
    fn passives_copulas_and_coordinated_verbs() {
        check(&[
            (
                "has a t rex skull ever been found",
                "will a t rex skull be found",
            ),
            (
                "has the world cup been won on penalties",
                "will the world cup be won on penalties",
            ),
            (
                "has wisconsin ever been in the little league world series",
                "will wisconsin be in the little league world series",
            ),
            (
                "has anyone ever escaped from alcatraz and lived",
                "will anyone escape from alcatraz and live",
            ),
            // "been to" = visited.
            (
                "has carmelo ever been to the western conference finals",
                "will carmelo go to the western conference finals",
            ),
            // A final "before" only makes sense in the past.
            (
                "have panama qualified for the world cup before",
                "will panama qualify for the world cup",
            ),
        ]);
    }

    #[test]
    fn future_becomes_present_perfect_with_participle_agreement_and_ever() {
        check(&[
            // Irregular participle.
            (
                "will the next step have a season 6",
                "has the next step ever had a season 6",
            ),
            // Passive: "be" → "been"; plural subject → "have".
            (
                "will private eyes be renewed for season 3",
                "have private eyes ever been renewed for season 3",
            ),
            // "ever" is not doubled.
            (
                "will the us ever get high speed rail",
                "has the us ever gotten high speed rail",
            ),
            // Copula.
            (
                "will the new game be free to play",
                "has the new game ever been free to play",
            ),
            // Coordinated subject.
            (
                "will france and england meet in the final",
                "have france and england ever met in the final",
            ),
            // Existential "there" agrees with the noun after "be".
            (
                "will there be any more tinker bell movies",
                "have there ever been any more tinker bell movies",
            ),
        ]);
    }

    #[test]
    fn going_to_future() {
        check(&[
            (
                "is there going to be a jack reacher 2",
                "has there ever been a jack reacher 2",
            ),
            (
                "are there going to be more tinkerbell movies",
                "have there ever been more tinkerbell movies",
            ),
            (
                "is orphan x going to be a movie",
                "has orphan x ever been a movie",
            ),
        ]);
        // "going" as a gerund subject is not the future.
        assert_eq!(followup("is going to school mandatory in the us"), None);
    }

    #[test]
    fn negation_is_kept_and_blocks_ever() {
        check(&[
            (
                "did the team not win the cup",
                "will the team not win the cup",
            ),
            (
                "will the team not win the cup",
                "has the team not won the cup",
            ),
        ]);
    }

    #[test]
    fn ineligible_questions_yield_no_case() {
        for question in [
            // Excluded by the paper as ambiguous.
            "was the dog black",
            "is the sky blue",
            // Not in the paper's patterns (the authors' code takes them).
            "would there be a sequel to the movie",
            "had the team won the cup before",
            // No future counterpart / no perfect counterpart.
            "did the astros used to be in the national league",
            "will the team have won the cup",
            // A dated event.
            "did england host the world cup in 1966",
            // A past verb in a subordinate clause.
            "did the beatles break up before john lennon died",
            // "xbox" tagged VB is not a verb the tables know.
            "will all xbox 360 games work on xbox one",
            // Contracted negation.
            "didn't the team win the cup",
            // Main-verb "did"/"has".
            "has the house a garden",
        ] {
            assert_eq!(followup(question), None, "{question}");
        }
    }

    #[test]
    fn personal_aspectual_and_alternative_questions_are_left_alone() {
        for question in [
            "Will he vouch for me?",
            "Will you be my valentine?",
            "Will they never find a cure for the common cold?",
            "Have the doctors signed the contract yet?",
            "Will you pay cash or charge the purchase?",
        ] {
            assert_eq!(followup(question), None, "{question}");
        }
    }

    #[test]
    fn case_fields() {
        let case = cases("has croatia ever won the soccer world cup").remove(0);
        assert_eq!(case.case_id, "q1:MR1-2:0");
        assert_eq!(case.followup.id, case.case_id);
        assert_eq!(case.expectation().unwrap(), Expectation::Inverted);
        assert_eq!(
            case.precondition().unwrap(),
            Some(Precondition::SourceLabelIs {
                source: 0,
                label: "yes".into()
            })
        );
        assert_eq!(case.followup.label, None);
        assert_eq!(case.followup.context, case.sources[0].context);
        let edits: Vec<(&str, &str)> = case
            .edits
            .iter()
            .map(|e| (e.before.as_str(), e.after.as_str()))
            .collect();
        assert_eq!(edits, vec![("has", "will"), ("ever ", ""), ("won", "win")]);
        // A source without a parse yields nothing.
        let (example, _) = testing::boolq("did the team win", "p");
        let relation = TenseChange::new(testing::resources()).unwrap();
        assert!(relation
            .follow_ups(&Source::unparsed(&example))
            .unwrap()
            .is_empty());
    }
}
