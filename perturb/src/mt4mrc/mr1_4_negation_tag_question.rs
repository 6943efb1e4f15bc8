//! MT4MRC MR1-4, "Inversion with Negation and Tag Question": rewrite the yes/no question as a
//! negative declarative sentence and append a tag question; the answer must flip.
//! No precondition: the paper applies it whatever the source output.
//!
//! # What the paper says
//! "is there such thing as a black card" → "there is not such thing as a black card, is it
//! right"; "are social studies and social science the same" → "social studies and social
//! science are not the same, is it right". The tag keeps the follow-up a question without
//! ambiguity.
//!
//! # What we do, and where the authors' code (`tool/MR1_4.py`) differs
//! * **Word order.** The fronted auxiliary or copula moves behind the subject subtree and is
//!   negated there; everything else stays in place: copular *be* ("is the sky blue" → "the
//!   sky is not blue"), *be* + participle or gerund ("is X based on Y" → "X is not based on
//!   Y"), do-support ("does X have Y" → "X does not have Y"), perfect *have* ("has X won" → "X
//!   has not won") and modals ("can you V" → "you cannot V"). Adverbs between the subject and
//!   the verb stay after the negation ("does X really V" → "X does not really V", "X does not
//!   always V", the correct scope). The code drops the first token and inserts a negated
//!   auxiliary before the ROOT verb, which fails for copulas whose ROOT is the auxiliary itself.
//! * **"cannot".** The code writes "can not"; we write the standard "cannot" (the other modals
//!   take "not": "will not", "must not", …).
//! * **The tag** is ", is that right", not the paper's and the code's literal ", is it right":
//!   in the 2026-11-26 review (`docs/validity/calibration/labelled.tsv`) readers judged 13 of 20
//!   follow-ups unnatural, 12 of them for the tag alone, each naming "is that right" as what a
//!   native speaker writes. The tag does the same work (it asks whether the statement holds,
//!   the demonstrative pointing at the statement), so the expected answer is unchanged. A
//!   question mark that ended the source ends the follow-up ("…, is that right?").
//! * **Existentials and "still"** (the 2026-11-26 second review, seed 20261210): "is there a
//!   limit" becomes "there is no limit", not "there is not a limit" (and "there is no such
//!   thing", "there is no silver"); "is X still alive" becomes "X is no longer alive", keeping
//!   the presupposition; "still" anywhere else yields no case.
//! * **Positive-polarity words** after the negation make it ungrammatical ("there is not
//!   something at the end", found in the same review), and before it they scope over it
//!   ("did someone win" → "someone did not win" is no negation of the question): a question
//!   holding "some", "something", "someone", "somebody" or "somewhere" yields no case.
//! * **Universal quantifiers.** The code skips any question containing the substrings "all "
//!   or "every ", which also skips "small …" and "football …". Negating a universal is only
//!   ambiguous when the quantifier precedes the negation ("all X are not Y" = none? not all?);
//!   after it the scope is the intended one ("X did not win all the games" = not all). We skip
//!   a question when its subject holds a whole-word universal: all, every, each, both,
//!   everyone, everybody, everything — or the focus particle "only", whose scope goes wrong the
//!   same way ("only the winner does not get money").
//! * **Polarity items.** A subject starting with "any"/"anyone"/"anybody"/"anything" would be
//!   ungrammatical before "not" ("anyone has not won"); we negate it instead: "has anyone won
//!   X" → "no one has won X", "are any X Y" → "no X are Y", and with do-support the auxiliary
//!   goes and the verb carries the tense ("did anyone survive" → "no one survived"); "any of"
//!   becomes "none of".
//! * **Agreement.** The source's auxiliary is kept, except that "is X and Y the same" becomes
//!   "X and Y are not the same" (two things compared; the colloquial singular reads badly once
//!   declarative). A finite verb after "do" (the source's slip, "did X wrote") becomes the
//!   base form.
//! * **Parse robustness.** en_core_web_sm misparses many lower-case BoolQ questions, above all
//!   copular ones; `copular_subject` documents how the subject is delimited, and a follow-up
//!   is dropped when the split looks wrong (a subject ending in a function word or holding a
//!   noun-less adjective, a predicate starting with a bare noun or number after a noun, with
//!   "to", a wh-word or adverbs only).
//! * **Frequency and "at least"** (CommonsenseQA 2.0's test questions, 2026-12-01): a question
//!   with "sometimes", "occasionally", "almost" or "nearly" yields no case ("does not
//!   sometimes contain" denies nothing a reader says; "do not almost always extend" is no
//!   English), nor one whose subject holds a frequency adverb or "at least"/"at most", which
//!   would stand before the negation ("disks always are not floppy disks", "at least one team
//!   does not play in each game").
//! * **Already negative questions** (not, n't, never, no, none, nobody, nothing, neither, nor)
//!   yield no case: the negation would double.
//! * **Casing.** The question's own casing is kept (BoolQ is lower case); only when the source
//!   starts with a capital does the new first word get one.
//!
//! * **Requests and "any" nouns** (the 2026-11-30 reading of 60 unread questions from other
//!   corpora, `docs/validity/mr1-other-questions/`): "could you" and "would you" questions
//!   are polite requests, and yield no case; "is there anything / anyone / anybody …"
//!   becomes "there is nothing / no one / nobody …", not "there is no anything".
//!
//! Not handled (no case): questions that do not start with an auxiliary, modal or *be*;
//! questions with brackets or quotes; *have*/*do* as main verbs ("has X a Y"); questions of
//! several sentences; questions whose subject the parser does not delimit (no subject, or
//! nothing left after it).

use std::sync::Arc;

use metamorph_data::{Case, Expectation, Result, Task, Token};

use super::{edited_case, FAMILY};
use crate::edit::{capitalize, match_case, Replacement};
use crate::lexicon::inflect::Inflections;
use crate::syntax::Tree;
use crate::{MetamorphicRelation, Resources, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR1-4";

/// The tag question (the paper's ", is it right" in idiomatic English; see the module docs).
const TAG: &str = ", is that right";

/// Positive-polarity words that cannot follow the negation ("there is not something").
const POSITIVE_POLARITY: &[&str] = &["some", "something", "someone", "somebody", "somewhere"];

/// MT4MRC MR1-4 (see the module docs).
#[derive(Clone, Debug)]
pub struct NegationTagQuestion {
    inflections: Arc<Inflections>,
}

impl NegationTagQuestion {
    /// The relation over the lemminflect tables of `resources`.
    ///
    /// # Errors
    /// When the inflection tables cannot be loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(NegationTagQuestion {
            inflections: resources.inflections()?,
        })
    }
}

impl MetamorphicRelation for NegationTagQuestion {
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
        // A question that asks to choose has no yes/no answer to flip; a second clause with a
        // subject of its own ("is X a band and This Mortal Coil was …") would keep its
        // polarity.
        let second_clause = (0..tree.len()).any(|i| {
            let token = tree.token(i);
            token.dep == "conj"
                && matches!(token.tag.as_str(), "VBD" | "VBZ" | "VBP" | "MD")
                && tree.child_with_dep(i, &["nsubj", "nsubjpass"]).is_some()
        });
        if super::asks_to_choose(&tree) || second_clause || is_request(&tree) {
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
            false,
        )
        .into_iter()
        .collect())
    }
}

/// Whether the question is a polite request ("Could you see about lunch?", "Would you open
/// the door?"): its denial ("You could not see about lunch, is that right?") states an
/// inability, not the answer the request did not get (two of 60 unread questions in the
/// 2026-11-30 reading, `docs/validity/mr1-other-questions/`; on the rows read before, it
/// also drops one good case, "Could you clarify these remarks?"). "Can you …" and "Will you
/// …" stay: readers took "Can you shrink this image?" and "Will you be my valentine?" as
/// questions with an answer to flip.
fn is_request(tree: &Tree<'_>) -> bool {
    tree.len() > 2 && matches!(tree.lower(0).as_str(), "could" | "would") && tree.lower(1) == "you"
}

/// Words that make a question negative already.
const NEGATORS: &[&str] = &[
    "not", "n't", "never", "no", "none", "nobody", "nothing", "neither", "nor",
];

/// Universal quantifiers whose scope under a following negation is ambiguous, and the focus
/// particle "only" ("only the winner does not get money" is not the negation of "only the
/// winner gets money").
const UNIVERSALS: &[&str] = &[
    "only",
    "all",
    "every",
    "each",
    "both",
    "everyone",
    "everybody",
    "everything",
];

const SUBJECT_DEPS: &[&str] = &["nsubj", "nsubjpass", "csubj", "csubjpass", "expl"];

/// The kind of fronted word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fronted {
    Be,
    Do,
    Have,
    Modal,
}

impl NegationTagQuestion {
    /// The replacements that turn the question in `tree` into a negative statement with the
    /// tag, or `None` when no rule applies.
    fn rewrite(&self, tree: &Tree<'_>) -> Option<Vec<Replacement>> {
        if tree.len() < 3 {
            return None;
        }
        let tokens = tree.tokens();
        if (0..tree.len())
            .any(|i| NEGATORS.contains(&tree.lower(i).as_str()) || tokens[i].dep == "neg")
        {
            return None;
        }
        // "does a pack sometimes contain more than 52 cards" → "does not sometimes contain"
        // (the denial is "never"), "do legs almost always extend" → "do not almost always
        // extend": a frequency word of some of the time or an "almost" leaves the negation
        // wrong (CommonsenseQA 2.0's test questions, 2026-12-01).
        if (0..tree.len()).any(|i| {
            matches!(
                tree.lower(i).as_str(),
                "sometimes" | "occasionally" | "almost" | "nearly"
            )
        }) {
            return None;
        }
        // Brackets and quotes hold material the parse cannot place ("does fitness(as used in
        // biology) and survival …").
        if tokens
            .iter()
            .any(|t| t.text.chars().any(|c| "()[]{}\"“”".contains(c)))
        {
            return None;
        }
        let sentence = tree.sentence_of(0);
        if sentence.end != tree.len() && tokens[sentence.end..].iter().any(|t| t.pos != "PUNCT") {
            // Several sentences: the tag would not attach to the negated one.
            return None;
        }
        let aux = &tokens[0];
        let lower = tree.lower(0);
        let fronted = match lower.as_str() {
            "is" | "are" | "am" | "was" | "were" => Fronted::Be,
            "do" | "does" | "did" => Fronted::Do,
            "has" | "have" | "had" => Fronted::Have,
            "can" | "could" | "will" | "would" | "shall" | "should" | "may" | "might" | "must" => {
                Fronted::Modal
            }
            _ => return None,
        };
        // The subject span (tokens) and the first token of what follows the negation.
        let (subject, rest) = match aux.dep.as_str() {
            "ROOT" if fronted == Fronted::Be => copular_subject(tree)?,
            "aux" | "auxpass" => {
                let head = tree.head(0);
                let subject = tree.child_with_dep(head, SUBJECT_DEPS)?;
                let span = tree.subtree(subject);
                let first_verb = tree
                    .children(head)
                    .filter(|&c| c > 0 && matches!(tokens[c].dep.as_str(), "aux" | "auxpass"))
                    .chain(std::iter::once(head))
                    .min()?;
                if span.start != 1 || span.end > first_verb {
                    return None;
                }
                // Only adverbs may stand between the subject and the verb.
                if (span.end..first_verb).any(|i| !matches!(tokens[i].dep.as_str(), "advmod")) {
                    return None;
                }
                // The verb form the fronted word selects: be + participle or gerund ("is X
                // based on", a base form after "is" is a misparse: "is the family medical leave
                // act a federal law"), do and modals + base form, have + participle.
                let verb = &tokens[first_verb];
                // A passive participle takes no direct object: "is halo combat evolved the
                // first halo game" is a title, not a passive.
                let passive_object =
                    verb.tag != "VBG" && tree.child_with_dep(first_verb, &["dobj"]).is_some();
                let fits = match fronted {
                    Fronted::Be => verb.tag == "VBG" || self.is_participle(verb) && !passive_object,
                    Fronted::Do => first_verb == head && is_verb(verb) && verb.tag != "VBG",
                    Fronted::Modal => matches!(verb.tag.as_str(), "VB" | "VBP"),
                    Fronted::Have => self.is_participle(verb),
                };
                if !fits {
                    return None;
                }
                let rest = span.end;
                (span, rest)
            }
            _ => return None,
        };
        if subject.is_empty() || subject.start != 1 || rest >= content_end(tree) {
            return None;
        }
        // A subject cut short by the parser: the coordination goes on after it ("are t rex and
        // tyrannosaurus rex the same"), or a noun of it was taken for a verb ("is the ogallala
        // aquifer the largest").
        let copula = aux.dep == "ROOT";
        let (subject, rest) = if copula && tokens[rest].dep == "cc" {
            extend_coordination(tree, subject, rest)?
        } else {
            (subject, rest)
        };
        if rest >= content_end(tree) {
            return None;
        }
        // "are disks always floppy disks" → "disks always are not …", "does at least one AFC
        // team play in each Super Bowl" → "at least one AFC team does not play …" (some team
        // misses some game): a frequency adverb or an "at least"/"at most" in what stands
        // before the negation takes it in its scope (CommonsenseQA 2.0's test questions).
        if subject.clone().any(|i| {
            matches!(
                tree.lower(i).as_str(),
                "always" | "usually" | "often" | "generally" | "typically" | "normally"
            ) || matches!(tree.lower(i).as_str(), "least" | "most")
                && i > 0
                && tree.lower(i - 1) == "at"
        }) {
            return None;
        }
        let next = &tokens[rest];
        // A bare noun right after a noun is most likely the rest of a compound the parser
        // split ("is a boston terrier a small breed dog"), except the common bare "part (of)".
        // Likewise a number ("call of duty modern warfare | 2 multiplayer").
        let split_compound = (next.tag.starts_with("NN") || next.tag == "CD")
            && tree.lower(rest) != "part"
            && tokens[rest - 1].tag.starts_with("NN");
        // A predicate of adverbs only is a piece of the subject's phrase ("the blue whale the
        // largest animal | ever").
        let adverbs_only = (rest..content_end(tree)).all(|i| tokens[i].pos == "ADV");
        // "night of the living | dead a true story", "alex from 13 reasons | why in nerve",
        // "god of war sequel | to god of war 3": not how a predicate starts.
        let odd_start = next.pos == "ADJ"
            && rest + 1 < tree.len()
            && tokens[rest + 1].tag == "DT"
            && !matches!(tree.lower(rest).as_str(), "such" | "worth")
            || next.pos == "ADJ" && rest + 1 < tree.len() && tree.lower(rest + 1) == "same"
            || matches!(next.tag.as_str(), "WRB" | "WP" | "WDT")
            || matches!(tree.lower(rest).as_str(), "to" | "vs" | "v" | "versus");
        if copula
            && (adverbs_only
                || odd_start
                || next.dep == "cc"
                || next.pos == "CCONJ"
                || split_compound
                || matches!(next.tag.as_str(), "VB" | "VBP" | "VBZ" | "VBD"))
        {
            return None;
        }
        if subject
            .clone()
            .any(|i| UNIVERSALS.contains(&tree.lower(i).as_str()))
            || (1..tree.len()).any(|i| POSITIVE_POLARITY.contains(&tree.lower(i).as_str()))
            // "still" right after a fronted *be* becomes "no longer"; elsewhere "not … still"
            // reads badly ("does X still V" → "X does not still V").
            || (1..tree.len()).any(|i| tree.lower(i) == "still" && !(fronted == Fronted::Be && i == rest))
        {
            return None;
        }
        // An adjective with no noun after it in the subject is a predicate the parser put
        // there ("a king snake immune | to rattlesnake venom").
        // A subject the parser did not label, headed by a word that is also an adjective or a
        // gerund, is most likely subject plus predicate ("actin and myosin present | in smooth
        // muscle", "russell brand singing | in …").
        if copula {
            let head = subject
                .clone()
                .find(|&i| !subject.contains(&tree.head(i)) || tree.head(i) == i);
            if let Some(head) = head.filter(|&h| tokens[h].dep == "attr") {
                let word = tree.lower(head);
                let adjective = !self.inflections.lemmas(&word, "ADJ").is_empty();
                let gerund = self
                    .inflections
                    .lemmas(&word, "VERB")
                    .iter()
                    .any(|l| self.inflections.inflect_all(l, "VBG").contains(&word));
                if adjective || gerund {
                    return None;
                }
            }
        }
        // Before an auxiliary's verb the subject ends where the verb starts, so only copular
        // subjects are checked.
        if copula
            && subject.clone().any(|i| {
                tokens[i].pos == "ADJ"
                    && tokens[i].dep == "amod"
                    && !(i + 1..subject.end).any(|k| tokens[k].tag.starts_with("NN"))
            })
        {
            return None;
        }
        // A subject ending in a function word was cut inside a phrase ("the wizard of | oz a
        // disney production").
        let last = &tokens[subject.end - 1];
        if matches!(
            last.pos.as_str(),
            "ADP" | "DET" | "CCONJ" | "SCONJ" | "PART"
        ) && last.tag != "POS"
        {
            return None;
        }

        let mut out = Vec::new();
        // The fronted word goes, with the whitespace after it.
        out.push(Replacement::new(
            aux.start as usize,
            tokens[1].start as usize,
            "",
        ));
        let first = &tokens[1];
        let capital = aux.text.chars().next().is_some_and(char::is_uppercase);
        let npi = polarity_subject(&tree.lower(1), tree.len() > 2 && tree.lower(2) == "of");
        let verb_form = self.verb_form(tree, fronted, npi.is_some(), subject.clone())?;
        match npi {
            Some(negative) => {
                let word = if capital {
                    capitalize(negative)
                } else {
                    match_case(&first.text, negative)
                };
                out.push(Replacement::new(
                    first.start as usize,
                    first.end as usize,
                    word,
                ));
            }
            None if capital && !first.tag.starts_with("NNP") && first.text != "I" => {
                out.push(Replacement::new(
                    first.start as usize,
                    first.end as usize,
                    capitalize(&first.text),
                ));
            }
            None => {}
        }
        let mut aux_word = if capital {
            lower.clone()
        } else {
            aux.text.clone()
        };
        // "is a cape and a cloak the same" → "a cape and a cloak are not the same": two things
        // compared take the plural (the source's colloquial "is" reads badly once declarative).
        let same = if tree.lower(rest) == "the" {
            rest + 1
        } else {
            rest
        };
        let compared = same < tree.len()
            && tree.lower(same) == "same"
            && !(same + 1 < tree.len() && tree.lower(same + 1) == "as");
        let coordinated = subject.clone().any(|i| tree.lower(i) == "and");
        if fronted == Fronted::Be && compared && coordinated {
            let plural = match aux_word.to_lowercase().as_str() {
                "is" => Some("are"),
                "was" => Some("were"),
                _ => None,
            };
            if let Some(plural) = plural {
                aux_word = match_case(&aux_word, plural);
            }
        }
        let subject_end = tokens[subject.end - 1].end as usize;
        match (npi.is_some(), verb_form) {
            // "no one did survive" → "no one survived": the verb takes the tense.
            (true, Some((verb, form))) if fronted == Fronted::Do => {
                out.push(Replacement::new(
                    tokens[verb].start as usize,
                    tokens[verb].end as usize,
                    form,
                ));
            }
            (true, _) => {
                out.push(Replacement::new(
                    subject_end,
                    subject_end,
                    format!(" {aux_word}"),
                ));
            }
            (false, verb_form) => {
                let next_word = tree.lower(rest);
                let expletive = tokens[1].dep == "expl" && tree.lower(1) == "there";
                // "is there a limit" → "there is no limit", "is there such a thing" → "there
                // is no such thing", "is there silver" → "there is no silver": an existential
                // is negated on its noun ("there is not a limit" reads as a correction).
                let existential_no = fronted == Fronted::Be
                    && expletive
                    && (matches!(next_word.as_str(), "a" | "an" | "such")
                        || tokens[rest].tag.starts_with("NN")
                        || tokens[rest].pos == "ADJ");
                // "is there anything better" → "there is nothing better" (not "no anything").
                let any_word = (existential_no && next_word != "any")
                    .then(|| polarity_subject(&next_word, false))
                    .flatten();
                let negated = if any_word.is_some() {
                    aux_word.clone()
                } else if existential_no {
                    format!("{aux_word} no")
                } else if fronted == Fronted::Be && next_word == "still" {
                    // "is X still alive" → "X is no longer alive" (the presupposition kept).
                    format!("{aux_word} no longer")
                } else if aux_word.eq_ignore_ascii_case("can") {
                    format!("{aux_word}not")
                } else {
                    format!("{aux_word} not")
                };
                out.push(Replacement::new(
                    subject_end,
                    subject_end,
                    format!(" {negated}"),
                ));
                if let Some(negative) = any_word {
                    out.push(Replacement::new(
                        tokens[rest].start as usize,
                        tokens[rest].end as usize,
                        match_case(&tokens[rest].text, negative),
                    ));
                }
                let drop_next = existential_no && matches!(next_word.as_str(), "a" | "an")
                    || fronted == Fronted::Be && next_word == "still";
                if drop_next && rest + 1 < tree.len() {
                    out.push(Replacement::new(
                        tokens[rest].start as usize,
                        tokens[rest + 1].start as usize,
                        "",
                    ));
                }
                // "is there such a thing" → "there is no such thing" (not "no such a thing").
                if existential_no
                    && next_word == "such"
                    && rest + 2 < tree.len()
                    && matches!(tree.lower(rest + 1).as_str(), "a" | "an")
                {
                    out.push(Replacement::new(
                        tokens[rest + 1].start as usize,
                        tokens[rest + 2].start as usize,
                        "",
                    ));
                }
                if let Some((verb, form)) = verb_form {
                    out.push(Replacement::new(
                        tokens[verb].start as usize,
                        tokens[verb].end as usize,
                        form,
                    ));
                }
            }
        }
        // The tag replaces a final question mark (kept after the tag) or follows the text.
        let last = &tokens[tree.len() - 1];
        if last.text == "?" && tree.len() > 1 {
            let before = &tokens[tree.len() - 2];
            out.push(Replacement::new(
                before.end as usize,
                last.end as usize,
                format!("{TAG}?"),
            ));
        } else {
            out.push(Replacement::new(last.end as usize, last.end as usize, TAG));
        }
        Some(out)
    }

    /// Whether `token` is a past participle: tagged VBN, or a form the tables list as the
    /// participle of its lemma (the tagger calls "hit", "come" VB, "fought" VBD, "qualified"
    /// JJ).
    fn is_participle(&self, token: &Token) -> bool {
        if token.tag == "VBN" {
            return true;
        }
        if !matches!(token.tag.as_str(), "VB" | "VBP" | "VBD" | "JJ") {
            return false;
        }
        let word = token.text.to_lowercase();
        let mut lemmas = self.inflections.lemmas(&word, "VERB");
        lemmas.push(token.lemma.to_lowercase());
        lemmas
            .iter()
            .any(|l| self.inflections.inflect_all(l, "VBN").contains(&word))
    }

    /// The verb to rewrite after a fronted *do*, and its new form: the base form when the
    /// source has a finite form after *do* ("does X has" → "X does not have"), or the tensed
    /// form when *do* disappears before a negative subject ("did anyone survive" → "no one
    /// survived"). `Some(None)` when nothing changes; `None` when a needed form is unknown.
    #[allow(clippy::option_option)]
    fn verb_form(
        &self,
        tree: &Tree<'_>,
        fronted: Fronted,
        npi: bool,
        subject: std::ops::Range<usize>,
    ) -> Option<Option<(usize, String)>> {
        if fronted != Fronted::Do {
            return Some(None);
        }
        let verb = tree.head(0);
        let token = tree.token(verb);
        let word = token.text.to_lowercase();
        let lemma = if token.tag == "VB" {
            word.clone()
        } else {
            // spaCy's lemma (unless the tables show it cannot have made this word) when the
            // tables know it as a verb, else the tables' own lemma.
            let spacy = self
                .inflections
                .confirmed_lemma(&word, &token.lemma, "VERB")
                .to_lowercase();
            if self.inflections.inflect(&spacy, "VBD").is_some() {
                spacy
            } else {
                self.inflections.lemma(&word, "VERB")?
            }
        };
        // A finite form after "do" is either the source's slip ("did X wrote") or a misparse
        // that took a word of the subject for the verb ("does the host of americas got talent
        // get …"): repair only when no base-form verb follows.
        if lemma != word && (verb + 1..tree.len()).any(|i| tree.token(i).tag == "VB") {
            return None;
        }
        if !npi {
            return Some((lemma != word).then(|| (verb, match_case(&token.text, &lemma))));
        }
        let form = match tree.lower(0).as_str() {
            "did" => self.inflections.past(&lemma)?.form,
            "does" => self.inflections.third_singular(&lemma)?.form,
            _ => {
                // "do any X V" → "no X V" (plural) — unless the subject is singular.
                let plural = subject
                    .clone()
                    .any(|i| matches!(tree.token(i).tag.as_str(), "NNS" | "NNPS"));
                if plural {
                    lemma
                } else {
                    self.inflections.third_singular(&lemma)?.form
                }
            }
        };
        Some(Some((verb, match_case(&token.text, &form))))
    }
}

/// The negative counterpart of a polarity-item subject's first word.
/// `partitive`: the word is followed by "of" ("any of the members" → "none of the members").
fn polarity_subject(word: &str, partitive: bool) -> Option<&'static str> {
    match word {
        "any" if partitive => Some("none"),
        "any" => Some("no"),
        "anyone" => Some("no one"),
        "anybody" => Some("nobody"),
        "anything" => Some("nothing"),
        _ => None,
    }
}

/// Whether a token is a verb.
fn is_verb(token: &Token) -> bool {
    token.pos == "VERB" || token.pos == "AUX" || token.tag.starts_with("VB")
}

/// One past the last non-punctuation token.
fn content_end(tree: &Tree<'_>) -> usize {
    let mut end = tree.len();
    while end > 0 && tree.token(end - 1).pos == "PUNCT" {
        end -= 1;
    }
    end
}

/// The subject span of a question whose ROOT is the fronted copula, and the first token of the
/// predicate. spaCy's small model often mislabels these lower-case questions, so:
/// * the subject is the subject-labelled dependent of the copula, or else its first right
///   dependent when that is nominal ("are social studies and social science the same" has
///   the subject as `attr` and "the same" as `npadvmod`);
/// * when the subject's subtree swallows the whole question, the predicate is split off as
///   the subject's suffix dependent — first a participle ("is the rampage movie based on the
///   game"), then a preposition ("is the army under the department of defense"), then an
///   apposition ("is st augustine the oldest city in florida") — provided what stays is a
///   plain noun phrase (only prepositional phrases with a nominal object after the head: no
///   "health care free | in the united states");
/// * a plain noun phrase (determiners, adjectives, nouns) before an adjectival predicate head
///   that the parser hung it under is the subject ("is a tablespoon bigger than a dessert
///   spoon").
fn copular_subject(tree: &Tree<'_>) -> Option<(std::ops::Range<usize>, usize)> {
    let tokens = tree.tokens();
    let end = content_end(tree);
    // "is the liver part of the excretory system": the parser makes "part" the head of the
    // subject ("the liver part") or hangs it inside it ("the isle of man part"); BoolQ asks
    // "is X (a) part of Y" so often that the bare "part of" marks the predicate.
    // Likewise "is X the same as Y".
    let marker = (2..end.saturating_sub(1)).find_map(|k| {
        if tree.lower(k) == "part" && tree.lower(k + 1) == "of" {
            Some(if matches!(tree.lower(k - 1).as_str(), "a" | "an") {
                k - 1
            } else {
                k
            })
        } else if tree.lower(k) == "the" && tree.lower(k + 1) == "same"
            || tree.lower(k) == "same" && tree.lower(k + 1) == "as" && tree.lower(k - 1) != "the"
        {
            Some(k)
        } else {
            None
        }
    });
    if let Some(cut) = marker {
        let before = &tokens[cut - 1];
        // (A base-form "verb" there is a noun the tagger missed: "is pyruvic acid and
        // pyruvate the same thing".)
        let no_verb = (1..cut).all(|i| {
            !matches!(tokens[i].pos.as_str(), "VERB" | "AUX")
                || matches!(tokens[i].tag.as_str(), "VB" | "VBP")
        });
        if cut > 1
            && no_verb
            && (before.tag.starts_with("NN") || matches!(before.tag.as_str(), "CD" | "VB"))
        {
            return Some((1..cut, cut));
        }
    }
    let right: Vec<usize> = tree
        .children(0)
        .filter(|&c| tokens[c].pos != "PUNCT")
        .collect();
    let first = *right.first()?;
    let (subject, labelled) = match tree.child_with_dep(0, SUBJECT_DEPS) {
        Some(s) => (s, true),
        None => (first, false),
    };
    let nominal = |i: usize| matches!(tokens[i].pos.as_str(), "NOUN" | "PROPN" | "PRON" | "NUM");
    let span = tree.subtree(subject);
    if labelled || nominal(subject) {
        if span.end < end {
            // "is i 80 in indiana a toll road": prepositional phrases between the subject and
            // a nominal or adjectival predicate modify the subject.
            let predicate = tree
                .children(0)
                .find(|&c| c > span.end && matches!(tokens[c].dep.as_str(), "attr" | "acomp"));
            if let Some(p) = predicate.filter(|_| tokens[subject].dep != "expl") {
                let start = tree.subtree(p).start;
                let mut at = span.end;
                while at < start && tokens[at].dep == "prep" && tree.head(at) == 0 {
                    at = tree.subtree(at).end;
                }
                if at == start && start > span.end {
                    return Some((span.start..start, start));
                }
            }
            let predicate_follows = labelled || right.iter().any(|&c| c >= span.end);
            return predicate_follows.then(|| (span.clone(), span.end));
        }
        // The subject took the predicate along: split off its suffix dependent.
        let suffix = |i: usize, appositions: bool| {
            let sub = tree.subtree(i);
            i != subject
                && tree.is_descendant(i, subject)
                && sub.start > subject
                && sub.end >= end
                && noun_phrase(tree, subject, span.start..sub.start, appositions)
        };
        // (kind of suffix, whether the subject may keep an apposition: "the book the
        // outsiders | based on …" but not "st augustine the oldest city | in florida").
        let kinds: [(&dyn Fn(usize) -> bool, bool); 3] = [
            (
                &|i| tokens[i].dep == "acl" && matches!(tokens[i].tag.as_str(), "VBN" | "VBG"),
                true,
            ),
            (&|i| tokens[i].dep == "prep" && tree.lower(i) != "of", false),
            (&|i| tokens[i].dep == "appos", false),
        ];
        let cut = kinds.iter().find_map(|(kind, appositions)| {
            (subject + 1..end)
                .filter(|&i| kind(i) && suffix(i, *appositions))
                .map(|i| tree.subtree(i).start)
                .min()
        })?;
        return Some((span.start..cut, cut));
    }
    // A noun phrase hung under an adjectival predicate head: "a tablespoon" under "bigger".
    let plain = (1..first).all(|i| {
        matches!(
            tokens[i].tag.as_str(),
            "DT" | "JJ" | "NN" | "NNS" | "NNP" | "NNPS" | "POS" | "CD" | "PRP$"
        )
    });
    let noun_before = first > 1 && tokens[first - 1].tag.starts_with("NN");
    (tokens[first].pos == "ADJ"
        && tokens[first].dep == "acomp"
        && plain
        && noun_before
        && tree.subtree(first).start == 1)
        .then_some((1..first, first))
}

/// Whether tokens `range` (containing the head `head`) are a plain noun phrase: every
/// adjective has a noun after it, and after the head come only prepositional phrases whose
/// object is nominal (and appositions, when `appositions`): "the state of texas bigger" and
/// "health care free" are not noun phrases.
fn noun_phrase(
    tree: &Tree<'_>,
    head: usize,
    range: std::ops::Range<usize>,
    appositions: bool,
) -> bool {
    let tokens = tree.tokens();
    let adjectives_ok = range.clone().all(|j| {
        tokens[j].pos != "ADJ" || (j + 1..range.end).any(|k| tokens[k].tag.starts_with("NN"))
    });
    adjectives_ok
        && (head + 1..range.end).all(|j| {
            // The child of `head` that `j` hangs from.
            let mut top = j;
            for _ in 0..tree.len() {
                let h = tree.head(top);
                if h == head || h == top {
                    break;
                }
                top = h;
            }
            if tree.head(top) != head {
                return false;
            }
            (appositions && tokens[top].dep == "appos")
                || tokens[top].dep == "prep"
                    && tree.children(top).any(|o| {
                        tokens[o].dep == "pobj"
                            && matches!(tokens[o].pos.as_str(), "NOUN" | "PROPN" | "PRON" | "NUM")
                    })
        })
}

/// A copular subject the parser cut at a coordination ("is dragon fruit and pitaya the same
/// thing" parses "dragon fruit" as the subject and "pitaya" as a verb): the subject goes on
/// through the conjunction to the first token that must start the predicate — a determiner
/// other than the conjunct's own ("the same thing", "a us territory"), "same", or a participle
/// ("was the king and i based on …"). `None` when no such token follows.
fn extend_coordination(
    tree: &Tree<'_>,
    subject: std::ops::Range<usize>,
    cc: usize,
) -> Option<(std::ops::Range<usize>, usize)> {
    let end = content_end(tree);
    let stop = (cc + 2..end).find(|&i| {
        let t = tree.token(i);
        t.tag == "DT" || tree.lower(i) == "same" || matches!(t.tag.as_str(), "VBN" | "VBG")
    })?;
    Some((subject.start..stop, stop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    fn cases(question: &str) -> Vec<Case> {
        let (example, parses) = testing::boolq(question, "Some passage.");
        let relation = NegationTagQuestion::new(testing::resources()).unwrap();
        let cases = relation
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        for case in &cases {
            case.validate().unwrap();
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

    #[test]
    fn papers_examples() {
        check(&[
            (
                "is there such thing as a black card",
                "there is no such thing as a black card, is that right",
            ),
            // The subject is parsed as `attr`, "the same" as `npadvmod`.
            (
                "are social studies and social science the same",
                "social studies and social science are not the same, is that right",
            ),
        ]);
    }

    /// CommonsenseQA 2.0's test questions (2026-12-01).
    #[test]
    fn frequency_words_and_at_least_before_the_negation_give_no_case() {
        for question in [
            "Does a pack of playing cards sometimes contain more than fifty two cards?",
            "do legs almost always extend at least 90 degrees?",
            "Are disks always floppy disks?",
            "Does at least one AFC team play in each Super Bowl?",
        ] {
            assert_eq!(followup(question), None, "{question}");
        }
        // After the negation the scope is the intended one.
        assert_eq!(
            followup("is there always a full moon on summer solstice").as_deref(),
            Some("there is not always a full moon on summer solstice, is that right")
        );
    }

    #[test]
    fn copular_be() {
        check(&[
            ("is the sky blue", "the sky is not blue, is that right"),
            (
                "is a tablespoon bigger than a dessert spoon",
                "a tablespoon is not bigger than a dessert spoon, is that right",
            ),
            // The parser swallows the predicate into the subject.
            (
                "is the army under the department of defense",
                "the army is not under the department of defense, is that right",
            ),
            (
                "is st augustine the oldest city in florida",
                "st augustine is not the oldest city in florida, is that right",
            ),
            (
                "is the liver part of the excretory system",
                "the liver is not part of the excretory system, is that right",
            ),
            (
                "is i 80 in indiana a toll road",
                "i 80 in indiana is not a toll road, is that right",
            ),
            // A coordination cut by the parser; two things compared take "are".
            (
                "is dragon fruit and pitaya the same thing",
                "dragon fruit and pitaya are not the same thing, is that right",
            ),
            (
                "is a cape and a cloak the same",
                "a cape and a cloak are not the same, is that right",
            ),
            (
                "is pyruvic acid and pyruvate the same thing",
                "pyruvic acid and pyruvate are not the same thing, is that right",
            ),
        ]);
    }

    #[test]
    fn be_with_participles_and_gerunds() {
        check(&[
            (
                "is the rampage movie based on the game",
                "the rampage movie is not based on the game, is that right",
            ),
            (
                "was the king and i based on a true story",
                "the king and i was not based on a true story, is that right",
            ),
            (
                "are £2 coins going out of circulation",
                "£2 coins are not going out of circulation, is that right",
            ),
        ]);
    }

    #[test]
    fn auxiliaries_and_modals() {
        check(&[
            (
                "does magnesium citrate have citric acid in it",
                "magnesium citrate does not have citric acid in it, is that right",
            ),
            (
                "did the american health care act pass the senate",
                "the american health care act did not pass the senate, is that right",
            ),
            // The source's slip after "did" is repaired.
            (
                "did mariah carey wrote all i want for christmas is you",
                "mariah carey did not write all i want for christmas is you, is that right",
            ),
            (
                "has saudi arabia signed the universal declaration of human rights",
                "saudi arabia has not signed the universal declaration of human rights, is that right",
            ),
            (
                "can you turn right on a red in quebec",
                "you cannot turn right on a red in quebec, is that right",
            ),
            (
                "will private eyes be renewed for season 3",
                "private eyes will not be renewed for season 3, is that right",
            ),
            // Adverbs stay after the negation, which keeps the scope right.
            (
                "does the same genotype always result in the same phenotype",
                "the same genotype does not always result in the same phenotype, is that right",
            ),
        ]);
    }

    #[test]
    fn polarity_item_subjects_are_negated() {
        check(&[
            (
                "has anyone hit a hole in one on a par 5",
                "no one has hit a hole in one on a par 5, is that right",
            ),
            (
                "does anyone die in the movie forever my girl",
                "no one dies in the movie forever my girl, is that right",
            ),
            (
                "were any bodies found from the edmund fitzgerald",
                "no bodies were found from the edmund fitzgerald, is that right",
            ),
            (
                "are any of the original members of lynyrd skynyrd alive",
                "none of the original members of lynyrd skynyrd are alive, is that right",
            ),
        ]);
    }

    #[test]
    fn universals_only_block_the_relation_in_the_subject() {
        assert_eq!(
            followup("do all triangles have at least two acute angles"),
            None
        );
        assert_eq!(followup("is every state in the union"), None);
        assert_eq!(
            followup("does only the winner get money on tipping point"),
            None
        );
        // After the negation the scope is the intended one; substrings do not count.
        check(&[
            (
                "do you have to be an all star to participate in the home run derby",
                "you do not have to be an all star to participate in the home run derby, is that right",
            ),
            (
                "can you play soccer on a football field",
                "you cannot play soccer on a football field, is that right",
            ),
        ]);
    }

    #[test]
    fn no_rule_no_case() {
        for question in [
            // Already negative.
            "is the sky not blue",
            "isn't the sky blue",
            "has the team never won the cup",
            // A positive-polarity word after the negation ("there is not something").
            "is there something at the end of infinity war",
            "did someone win the lottery last week",
            // Not a fronted auxiliary.
            "how tall is the eiffel tower",
            "in canada can you turn left on red",
            // Misparses that would come out broken.
            "is a boston terrier a small breed dog",
            "is halo combat evolved the first halo game",
            "is the wizard of oz a disney production",
            "is the blue whale the largest animal ever",
            "is call of duty modern warfare 2 multiplayer",
            "is a king snake immune to rattlesnake venom",
            "is actin and myosin present in smooth muscle",
            "is russell brand singing in get him to the greek",
            "is night of the living dead a true story",
            "is the walking dead same as fear the walking dead",
            "is the ksi vs logan paul fight pay per view",
            "is god of war sequel to god of war 3",
            // A misparse the slip repair after "do" must not hide.
            "does the host of americas got talent get a golden buzzer",
            "does fitness(as used in biology) and survival have the same meaning",
        ] {
            assert_eq!(followup(question), None, "{question}");
        }
    }

    #[test]
    fn existentials_are_negated_on_their_noun_and_still_becomes_no_longer() {
        check(&[
            (
                "is there a storage limit on google drive",
                "there is no storage limit on google drive, is that right",
            ),
            (
                "is there such a thing as a black card",
                "there is no such thing as a black card, is that right",
            ),
            (
                "is there silver in the ocean",
                "there is no silver in the ocean, is that right",
            ),
            (
                "is the dog from little rascals still alive",
                "the dog from little rascals is no longer alive, is that right",
            ),
            (
                "is the new york post still in business",
                "the new york post is no longer in business, is that right",
            ),
        ]);
        assert_eq!(
            followup("does the queen still live in buckingham palace"),
            None
        );
        check(&[
            (
                "Is there anything better than a root beer float?",
                "There is nothing better than a root beer float, is that right?",
            ),
            (
                "is there anyone in the house",
                "there is no one in the house, is that right",
            ),
        ]);
    }

    #[test]
    fn requests_are_left_alone_but_questions_of_ability_are_not() {
        for question in [
            "Could you see about lunch?",
            "Would you convert my dollars into pounds?",
        ] {
            assert_eq!(followup(question), None, "{question}");
        }
        check(&[
            (
                "Can you shrink this image?",
                "You cannot shrink this image, is that right?",
            ),
            (
                "Will you be my valentine?",
                "You will not be my valentine, is that right?",
            ),
        ]);
    }

    #[test]
    fn question_mark_and_capitals() {
        check(&[("Is the sky blue?", "The sky is not blue, is that right?")]);
    }

    #[test]
    fn choices_and_second_clauses_are_left_alone() {
        for question in [
            "Are there more Burmese or Cambodian immigrants in Bangkok?",
            "Was either Craig Melville or Grover Jones born in Indiana?",
            "Are you married or single?",
            "Is Awolnation a rock band and This Mortal Coil was a music collective?",
        ] {
            assert_eq!(followup(question), None, "{question}");
        }
    }

    #[test]
    fn case_fields() {
        let case = cases("is the sky blue").remove(0);
        assert_eq!(case.case_id, "q1:MR1-4:0");
        assert_eq!(case.expectation().unwrap(), Expectation::Inverted);
        assert_eq!(case.precondition().unwrap(), None);
        assert_eq!(case.followup.label, None);
        let edits: Vec<(u32, &str, &str)> = case
            .edits
            .iter()
            .map(|e| (e.start, e.before.as_str(), e.after.as_str()))
            .collect();
        assert_eq!(
            edits,
            vec![
                (0, "is ", ""),
                (10, "", " is not"),
                (15, "", ", is that right")
            ]
        );
    }
}
