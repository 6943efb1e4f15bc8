//! MT4MRC MR2-3, "Consistence with Active/Passive Voice Change": change the voice of the
//! passage's sentences (active → passive, passive → active); the question is unchanged and the
//! answer must stay the same (`Equal`, no precondition). This is the only MT4MRC relation that
//! edits the passage (`context`).
//!
//! **Paper vs. the authors' code.** The paper changes *all* modifiable sentences of the passage.
//! The authors' script (`tool/MR2_3.py`) tries passive → active first (a `VBN` root with
//! `auxpass`, `agent` and `nsubjpass`), else active → passive (a `VB*` root with `nsubj` and
//! `dobj`, no `auxpass`/`agent`), but rebuilds the passage from the original inside its loop, so
//! only the *last* convertible sentence ends up changed. We follow **the paper**: one follow-up
//! per source in which every convertible sentence has changed voice, with one `Edit` per
//! changed sentence (covering the span from the first to the last moved word).
//!
//! **What is converted.** A sentence qualifies when its root is a main verb and:
//! * active → passive: exactly one `nsubj` before the verb and one `dobj` right after it (noun or
//!   personal pronoun heads), and an auxiliary chain of one of the forms *V-s/V-ed*, *do V*,
//!   *modal V*, *have V-en*, *modal have V-en*, *be V-ing* (adverbs and `not` kept in place). The
//!   result keeps tense and aspect: *uses* → *is used*, *used* → *was used*, *does not use* →
//!   *is not used*, *can use* → *can be used*, *has used* → *has been used*, *is using* → *is
//!   being used*, with the new auxiliary agreeing with the new subject (the old object);
//! * passive → active: one `nsubjpass`, a *be* `auxpass` and a `by`-agent (passives without an
//!   agent cannot be turned active), auxiliary chains *be V-en*, *modal be V-en*, *have been
//!   V-en*, *modal have been V-en*, *be being V-en*, converted back by the inverse rules (a
//!   negated *is not used* becomes *does not use*).
//!
//! Pronoun case flips (*he* ↔ *him*, *she* ↔ *her*, *they* ↔ *them*, *we* ↔ *us*, *I* ↔ *me*);
//! a sentence-initial old subject is lower-cased when its capital is only positional (a
//! function word, or a known common word outside any name), kept for proper nouns, *I*,
//! acronyms and words with digits or inner capitals, and the sentence is skipped when that is
//! unclear (*Queen*, *Officer Smith*, an unknown word); the new first word is capitalised. A
//! non-restrictive clause that closes a noun phrase moved to the front gets its closing comma.
//! Plain adverbs keep their place in the auxiliary chain (*now uses* → *is now used*), and an
//! adverb after a passive participle moves before the active verb (*was directed primarily by
//! X* → *X primarily directed it*).
//!
//! **Eligibility is conservative** (no case is better than a broken one). Skipped: questions;
//! sentences whose subject or object is a clause, a reflexive or reciprocal, a relative or
//! interrogative pronoun, an expletive (`expl`, or *it* with an extraposed clause) or a
//! quantity whose agreement is unclear (*a number of*, *some of*); roots with a particle,
//! a second object (`dative`), a complement (`xcomp`, `ccomp`, `oprd`, `attr`, `acomp`), an
//! unlabelled `dep`, a coordinated verb sharing the subject, or a subject-less participle clause
//! that would dangle after the change; verbs that do not passivise well (*have*, *get*, *let*,
//! *become*, *lack*, *resemble*, *cost*, *contain*, *receive*, …) and light-verb idioms (*take place*,
//! *make sense*); punctuation between subject and verb; roots inside quotes or brackets;
//! contracted auxiliaries other than *n't*; agents that are bare singular nouns (*by hand*,
//! *by car*); negative subjects and objects (*no man has ever …*, *claim no religion*: a
//! negative fronted takes the whole clause in its scope; not a title's *No* nor *a few*, *a
//! little*); from PubMedQA's abstracts (2026-12-01): a finding observed in a living, counted
//! or study-group subject (*the subgroup showed an increase*, *15% presented
//! undernourishment*), *witness* with a subject that cannot
//! see, a focus adverb before the subject (*Especially this group showed …*), a sentence adverb
//! the parser put in the subject (*Overall 145 participants …*) and, to the active, a
//! preposition with no object of its own (*were cared for by*) or a means (*by means of*);
//! pronoun subjects (*was won by her*)
//! and objects holding a pronoun that would precede its antecedent (*Its authority … has been
//! used by FIFA*), both found awkward by the 2026-11-26 review; a new subject (the object or
//! agent moved to the front) of more than eight tokens, or holding a comma or a verb (*an act
//! providing that …, was passed by Congress*; heavy phrases go last in English, and the review
//! of seed 20261208 found such passives unnatural); complements that pair with the object
//! (*added a new format to the auditions*; dative, `to`/`into`/`from`/`with`/`as`/`by`
//! phrases), moved phrases headed by a focus particle (*by only an ordained priest*), dates as
//! agents (*sold by November 2005*) and pronouns inside a fronted phrase (*her fiancé Liam
//! leaves Josie*), from the review of seed 20261213; `to`-infinitives whose understood
//! subject would switch (*Aldi overtook Waitrose to become …*); elided verb phrases and gapped
//! lists (*…, while Paraguay does*; *…, Kentucky to the southwest*); fragments the sentence
//! segmenter cut off (no final punctuation on the sentence or its predecessor); and several
//! signs of a misparse (a stray noun or particle after the moved object, a finite verb form read
//! as a noun after *and*, a common-noun head inside a person's name).
//!
//! From the reading on corpora the rules had not seen (GAP, SQuAD, DynaSent; 2026-11-30,
//! `docs/validity/mr2-3-other-corpora/`), also skipped: a third-person pronoun outside the
//! moved phrases that could refer to both of them, whose referent would follow the new subject
//! (*After Pleasant threatens him, Boyd is probed by Denton*; see `referents`: gender from
//! gendered nouns and given names, animacy from WordNet); subject-controlled modifiers anywhere
//! in a prepositional phrase or verbless clause (*In addition to performing*, *in order to
//! graduate*, *Though relatively small*); a second object or quantity after a pronoun object
//! (*earned her as much as $4,000*); phrases that add to the object (*along with*,
//! *including*, *instead of*, …); a `by` inside the future agent (two `by` phrases); a past
//! spelt like the base with a subject that does not show the tense (*Dutch and Eph
//! broadcast*); verbs read almost only in the passive (*is evidenced by*, *is deemed*); and a
//! bare role noun as object (*played backup point guard*).
//!
//! A second reading, on FewRel, PAWS and DROP text, added: quantifiers and indefinites under
//! negation and focus particles (*did not play a single game*, *can only use*), a comma in a
//! moved phrase, a person's name with a place phrase (*Dennis Wallace in Fox Grove Park*), a
//! `that` clause coordinated with the object, a manner adverb after the object, sports,
//! positions and opponents (*played club football*, *fought Kell Brook*) and *suffer*.
//!
//! On the first 1000 BoolQ validation passages 65 sources qualify (72 before the rules of
//! 2026-11-30; 171 before the pronoun rules of 2026-11-26). On WordNet's usage examples, text
//! no rule was written against, 1,162 of 23,491 sentences did, read 83% natural and 91% valid
//! (120 rows in two draws; inanimate agents of figurative verbs and idioms fail most).
//!
//! Three more draws there, each read before the rules written against it, added: verb and
//! object that WordNet lists as one verb (*strike a chord*, *take the veil*: an idiom, left
//! alone); a complement completing the verb (*out of bed*, *of energy*) and a place phrase that
//! would seem the agent's (*seized on the counter by the sales clerk*) placed before the agent;
//! a pronoun object after a noun possessor in the subject, a possessive in the subject that
//! would follow a noun it could refer to, a bare infinitive read as a compound noun (*made the
//! vessel heel*), *undergo*, a noun-less phrase after the object (*at large*), an adjective
//! before a determiner in the object, an object ending in an abbreviation's period and a
//! singular noun tagged plural, refused; a particle after a passive participle kept after the
//! active verb's object (*Lashings held the boats together*); a `with`/`at` phrase after an
//! object naming an act or message, a negative-polarity object (*doesn't see anybody*), an
//! adverb inside the object and a bare agent with a phrase (*by word of mouth*), refused.
//! Those draws and two more read 91% natural and 94% valid (300 rows).
//!
//! Two more rounds: a `with` phrase after a thing, or a path phrase (*across*, *toward*, …)
//! after a thing or person, that the parser hung on the object may be the verb's and is
//! refused; a preposition WordNet lists with the verb as a phrasal verb (*see through*) stays
//! before the agent; *make* as serve-as (*makes a satisfactory seat*), an indefinite agent of a
//! generic plural and a second `by` phrase after the agent are refused. Two draws of 60
//! unread cases under these rules read 93% / 97% and 87% / 95% natural / valid. A last round
//! refuses a comparative's `than` in the object, a sentence opening with a quotation mark and
//! one cut at an abbreviation's period; 1,097 sentences now qualify.
//!
//! From biomedical abstracts (GENIA's, BC5CDR's; 2026-12-01), also refused: to the active, a
//! method named without a determiner, or "the use of", as the agent of anything but a verb of
//! showing (*was sequenced by standard methods*: the method is the means); to the passive,
//! *have* with a participle of a change in level, or one after a manner adverb, before an
//! undetermined object (*have elevated cortisol levels*: an adjective), *develop* / *contract*
//! / *acquire* of a disorder or with a living subject and no made thing or idea as object;
//! and either way a subject the parser split from a coordination. (Verbs of needing with an
//! act as object and measures as objects were tried and dropped: over every judged row they
//! removed as many natural rows as unnatural.) What these texts still get wrong is a
//! prepositional phrase hung on the verb that belongs to a moved noun; research prose reads
//! 75–80% natural (docs/validity/mr2-3-other-corpora/).
//!
//! From Wikipedia's lead paragraphs (Re-DocRED's documents, 2026-12-01; each reading before
//! the rules it led to), also refused: *see* with a subject that cannot see (*the ships saw
//! action*: figurative; the phrasal *see through* excepted), an adverbial read as the object
//! (*performs a cappella*, *blow parallel to*), names sharing a head whose number the parse
//! does not tell (*the Walter and May Reuther … Center*, *Vicha and Yamen Glaciers*), a
//! sentence cut at an abbreviation before a number (*ca.*), an apposition without a comma after
//! the object (*elected Rajoelina the president*: what the object was made), a free relative
//! coordinated with the object, a relative clause right after the agent (*interrupted by World
//! War II during which he served*), a phrase after the object that would follow an agent
//! ending in a phrase of its own, a count of times as the object (*won nine times*), a fronted
//! partitive (*Of these, nine individuals achieved …*) and an agent ending in an
//! abbreviation's period (*by Canada Dry Motts Inc.*); from WebNLG's texts, "A" opening a name
//! (*A Storrs discovered …* ↛ *… by a Storrs*) and a sentence with "@"; from the rest of both,
//! *begin* (its passive read unnatural in six judged rows of six), an abbreviation before a
//! name (*Ave.*, *Dr.*) as a sentence's end, where the agent is from (*by Peter Laird, from the
//! US*) and a subject split from its name's bracket; from SciERC's abstracts, an `as` phrase
//! hung on the object (*uses X as the document representation*). Each was measured over every
//! judged row (`scripts/judged_rows_audit.py`): together they remove 42 judged rows, 6 of them
//! natural.
//! A next sentence opening with a pronoun (whose referent the change may move) was tried and
//! dropped: it removed 24 natural judged rows of 26. Read blind on rows no rule had been
//! written against, Wikipedia passages read 82%, 85%, 87% and 82% natural (90–95% valid) as the
//! rounds went on, WebNLG's texts 87% / 88%.
//!
//! From GAP's, HotpotQA's and SQuAD's paragraphs and FewRel's Wikipedia and NYT sentences
//! (2026-12-01), also refused: a measure of the subject as the object of *cover* (an area) or
//! *sell* (copies, units), narrower than the measures tried before; *concern*, *flee* and
//! *escape*; *take*, *see* and *hit* with an abstract object (*took victory*, *saw duty*:
//! WordNet's first sense an act, event, time, state, …); a phrase fronted before the subject
//! that says something of it (a noun phrase, a participle clause, an age: *One Ukrainian
//! volunteer, …*);
//! a comparison by auxiliary (*…, as did Sigmund Freud*); and a rewrite whose span opens a
//! quotation it does not close. Together they remove 19 judged rows, 3 of them natural; a
//! fronted pronoun, a bare object and *carry* were tried and dropped on the same measure. Read
//! blind under the code of each reading's time, those corpora gave 88%, 80% and 89% natural;
//! under the final code, PAWS's Wikipedia sentences 25 of 25 and SemEval's web sentences 87%.
//!
//! **Where a phrase after the object goes, chosen by an LM** (`[perturb.mt4mrc] lm`, off by
//! default; `voice_lm_margin`, default 3.0; issue 39's "choose, don't just filter"). A phrase
//! the parser hung on the verb right after the object stays after the agent, which is right for
//! the verb's own phrases ("was used by the company throughout the UK") and wrong for the
//! object's ("The University of Texas was attended by Elliot See at Austin"). With an LM, the
//! rewrite that takes the phrase into the new subject ("The University of Texas at Austin was
//! attended by Elliot See") is emitted instead when the LM finds that sentence at least the
//! margin likelier, scored from the sentence's start (`VoiceChange::placed`); a rewrite refused
//! because the phrase would read as the agent's is emitted with the phrase moved when the LM
//! prefers it. A phrase of time never moves (`TIME_PREPOSITIONS`, `TIME_NOUNS`, a date). With
//! Gemma 3 270M the margin was set on every judged row that had the choice (2026-12-01): of 129
//! such cases on sixteen corpora, those Gemma preferred by 3 nats or more read right by the
//! author's eye, those between 1 and 3 mostly did not. On those sixteen corpora (2,595 cases)
//! it changes 4 cases and adds 2; read blind (reading 29), 5 of the 6 were natural and all
//! valid, where the 2 of the 4 replaced rewrites read before had both been unnatural. Few cases
//! have the choice because the new subject must stay short (eight tokens, no comma).
//!
//! From KBP37's news and web sentences (2026-12-01, reading 29: 80% natural, 89% valid on 46
//! rows read before these rules), also: a plural-only determiner (*several*, *many*, *these*,
//! …) shows the number of a noun the tagger read as singular (*Several audits … have been
//! conducted*), and *would rather*, *had better* are left alone (the preference is the
//! subject's). Neither changes a case on the sixteen corpora.
//!
//! From IMDb's movie reviews (reading 30, under the code above: 67% natural, 81% valid on 27
//! rows; CoNLL04's news 17 of 19), also refused: *deserve* (stilted), a name with an indefinite
//! article after *make* (a part played: *makes an appropriately decorative Frank Churchill*),
//! *prove* with an indefinite object (a copula), a bare adjective after the object's head (the
//! verb's complement: *made a movie quite unique*) and *defy words*. Over every judged row they
//! remove 6, all unnatural; elsewhere 2 of WordNet's 1,069 cases.
//!
//! From ROPES's, Quoref's and the English Web Treebank's sentences (reading 31, 2026-12-02,
//! code before these rules: 88% natural, 93% valid on 67 rows), also refused: a coordinated
//! verb whose "subject" the parser found after it (its object misread: *Nicolas tutored
//! children …, and in 1806 married Tekla …*, whose passive made the children marry), and a
//! passive with *as well as* after its agent (a second agent the active would make an
//! object). Over every judged row 1 more removed, unnatural. The validity step reads each
//! rewritten sentence whole: its `lm` check has a stricter limit for MR2-3 than for the other
//! rewrites (`metamorph_validate::config::builtin_thresholds`).
//!
//! From MSRP's news sentences (reading 32, under the code above: 92% natural, 96% valid on 74
//! of 123 passing cases), also refused: a number of percent, points or cents as the object of
//! a verb of rising or falling (a measure: *The Nasdaq eased 0.15 percent*), an aspectual
//! verb's bare -ing object (an activity: *ceased trading*) and *tell* with only its hearer (*A
//! crowd was told by Powell* reads cut short; *the truth was told* does not). Over every judged row none removed. From Yelp's reviews (reading 33): a
//! comparative right after the object compares the object, and after the agent it would
//! compare the agent (*… can be made by any grandmother better than this one*).

mod boundaries;
mod grammar;
mod noun_phrase;
mod referents;
mod relation;
mod to_active;
mod to_passive;
mod word_lists;

pub use relation::VoiceChange;

use std::ops::Range;

use metamorph_data::readers::char_slice;
use metamorph_data::{Case, Expectation, Result, Task};

use crate::edit::Replacement;
use crate::mt4mrc::{edited_case, FAMILY};
use crate::syntax::Tree;
use crate::{MetamorphicRelation, Source};
use boundaries::{ends_sentence, unshared_conj, Lower};
use to_passive::Passive;
use word_lists::FORBIDDEN_DEPS;

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR2-3";

impl MetamorphicRelation for VoiceChange {
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
        &["context"]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let Some(parsed) = source.parse("context") else {
            return Ok(Vec::new());
        };
        let example = source.example;
        let tree = Tree::new(parsed);
        let text = example.field("context").unwrap_or_default();
        let mut replacements = Vec::new();
        for sentence in tree.sentences() {
            let Some(passive) = self.convert(&tree, sentence.clone()) else {
                continue;
            };
            let (sentence_start, sentence_end) = tree.char_span(sentence);
            replacements.extend(self.placed(text, sentence_start..sentence_end, passive)?);
        }
        if replacements.is_empty() {
            return Ok(Vec::new());
        }
        Ok(edited_case(
            example,
            NAME,
            0,
            "context",
            replacements,
            &Expectation::Equal,
            false,
        )
        .into_iter()
        .collect())
    }
}

impl VoiceChange {
    /// Of a rewrite and its alternative that takes the phrase after the object into the
    /// subject (see [`Passive`]), the one to emit: the alternative only when the LM of
    /// `[perturb.mt4mrc] lm` finds its sentence (`sentence`: character offsets in `text`) at
    /// least `voice_lm_margin` nats likelier; otherwise the rewrite, unless it strands the
    /// phrase (`Passive::stranded`), when there is none.
    ///
    /// # Errors
    /// Tokenizer or model errors.
    fn placed(
        &self,
        text: &str,
        sentence: Range<usize>,
        passive: Passive,
    ) -> Result<Option<Replacement>> {
        let Passive {
            replacement: rewrite,
            stranded,
            phrase_in_subject,
        } = passive;
        let otherwise = (!stranded).then_some(rewrite.clone());
        let (Some(chooser), Some(alternative)) = (&self.chooser, phrase_in_subject) else {
            return Ok(otherwise);
        };
        // Offsets count characters, not bytes.
        let (Some(prefix), Some(rest), Some(alternative_rest)) = (
            char_slice(text, sentence.start, rewrite.start),
            char_slice(text, rewrite.end, sentence.end),
            char_slice(text, alternative.end, sentence.end),
        ) else {
            return Ok(otherwise);
        };
        let costs = chooser.costs(
            prefix,
            &format!("{}{rest}", rewrite.after),
            &[&format!("{}{alternative_rest}", alternative.after)],
        )?;
        // `costs` is the rewrite's log-probability minus the alternative's.
        Ok(if -costs[0] >= self.placement_margin {
            Some(alternative)
        } else {
            otherwise
        })
    }

    /// The rewritten span of `sentence`, when it can change voice.
    fn convert(&self, tree: &Tree<'_>, sentence: Range<usize>) -> Option<Passive> {
        let root = tree.root(sentence.clone())?;
        // Whole declarative sentences only: a question, or a fragment of a sentence the
        // segmenter split (it or its predecessor lacks final punctuation), is left alone.
        if tree.token(sentence.end - 1).text == "?"
            || !ends_sentence(tree, sentence.clone())
            || (sentence.start > 0
                && tree.token(sentence.start - 1).text != "--"
                && !ends_sentence(tree, tree.sentence_of(sentence.start - 1)))
        {
            return None;
        }
        // `It is shown by the drawing in Fig. 7.`: a next sentence that opens with a number is
        // the rest of this one, cut at an abbreviation's period.
        if sentence.end < tree.len() && tree.token(sentence.end).tag == "CD" {
            return None;
        }
        // `the American @ Peter Laird`: a symbol no English sentence has (WebNLG's texts,
        // 2026-12-01); what it joins cannot be told.
        if sentence.clone().any(|i| tree.token(i).text == "@") {
            return None;
        }
        // `` `The boy threw the ball' uses the active voice ``: a sentence that opens with a
        // quotation mark quotes its words as they stand.
        if matches!(tree.token(sentence.start).tag.as_str(), "``" | "''")
            || matches!(tree.token(sentence.start).text.as_str(), "`" | "'" | "\"")
        {
            return None;
        }
        // The passage's `Title -- text` heading sits in its first sentence: nothing before the
        // dash may move.
        let heading_dash = (sentence.start == 0)
            .then(|| sentence.clone().find(|&i| tree.token(i).text == "--"))
            .flatten();
        let verb = tree.token(root);
        if verb.pos != "VERB" {
            return None;
        }
        let children: Vec<usize> = tree.children(root).collect();
        for &c in &children {
            let dep = tree.token(c).dep.as_str();
            if FORBIDDEN_DEPS.contains(&dep) || self.dangles(tree, c) || unshared_conj(tree, c) {
                return None;
            }
        }
        if self.hidden_coordinated_verb(tree, &sentence) || self.elliptical(tree, &sentence) {
            return None;
        }
        let has = |dep: &str| children.iter().any(|&c| tree.token(c).dep == dep);
        let rewrite = if verb.tag == "VBN" && has("auxpass") {
            self.passive_to_active(tree, sentence, root, &children)
                .map(|replacement| Passive {
                    replacement,
                    stranded: false,
                    phrase_in_subject: None,
                })
        } else if !has("auxpass") && !has("agent") && !has("nsubjpass") {
            self.active_to_passive(tree, sentence, root, &children)
        } else {
            None
        }?;
        match heading_dash {
            Some(dash) if tree.token(dash).start as usize >= rewrite.replacement.start => None,
            _ => Some(rewrite),
        }
    }

    /// Whether the sentence has an elided verb phrase (`…, while Paraguay does.`, `as did
    /// his brother`) or a gapped list (`bordered by Virginia to the southeast, Kentucky to the
    /// southwest`) that refers back to the clause whose voice would change.
    fn elliptical(&self, tree: &Tree<'_>, sentence: &Range<usize>) -> bool {
        sentence.clone().any(|i| {
            let token = tree.token(i);
            let elided_do = token.lemma.eq_ignore_ascii_case("do")
                && token.dep != "aux"
                && !tree.children(i).any(|k| {
                    matches!(
                        tree.token(k).dep.as_str(),
                        "dobj" | "ccomp" | "xcomp" | "attr" | "acomp" | "prep"
                    )
                });
            // `…, Kentucky to the southwest`: a name read as a modifier of the verb.
            let gapped = (token.dep == "conj"
                && tree.token(tree.head(i)).dep == "pobj"
                && tree.children(i).any(|k| tree.token(k).dep == "prep"))
                || (token.dep == "npadvmod" && token.pos == "PROPN");
            elided_do || gapped
        })
    }

    /// Whether the sentence has a second predicate the parser read as a noun: `…, and stars
    /// Mike Myers` (a finite verb form right after `and`, followed by an object-like word),
    /// which would silently take the new subject.
    fn hidden_coordinated_verb(&self, tree: &Tree<'_>, sentence: &Range<usize>) -> bool {
        (sentence.start + 1..sentence.end.saturating_sub(1)).any(|i| {
            let token = tree.token(i);
            let next = tree.token(i + 1);
            tree.token(i - 1).lower() == "and"
                && matches!(token.tag.as_str(), "NN" | "NNS")
                && matches!(next.tag.as_str(), "DT" | "NNP" | "NNPS" | "PRP$" | "CD")
                && self
                    .inflections
                    .lemma(&token.lower(), "VERB")
                    .is_some_and(|lemma| {
                        ["VBZ", "VBD"].iter().any(|tag| {
                            self.inflections
                                .inflect(&lemma, tag)
                                .is_some_and(|f| f.eq_ignore_ascii_case(&token.text))
                        })
                    })
        })
    }

    /// Whether root child `c` holds a modifier whose understood subject is the clause's
    /// subject, so that it would dangle, or take the new subject, once the voice changes:
    /// a subject-less participle clause (`After buying X, he …`, `…, making it …`, `In
    /// addition to performing, …`), a `to`-infinitive (`Aldi overtook Waitrose to become …`,
    /// `… began a course in order to graduate`) or a verbless clause (`Though relatively small,
    /// the store offers …`).
    fn dangles(&self, tree: &Tree<'_>, c: usize) -> bool {
        let subjectless = |v: usize| tree.child_with_dep(v, &["nsubj", "nsubjpass"]).is_none();
        let nonfinite_without_subject =
            |v: usize| matches!(tree.token(v).tag.as_str(), "VBG" | "VBN") && subjectless(v);
        let controlled_infinitive = |v: usize| {
            tree.token(v).tag == "VB"
                && subjectless(v)
                && tree
                    .children(v)
                    .any(|k| tree.token(k).dep == "aux" && tree.token(k).tag == "TO")
        };
        let token = tree.token(c);
        match token.dep.as_str() {
            "advcl" => {
                nonfinite_without_subject(c)
                    || controlled_infinitive(c)
                    || (subjectless(c)
                        && (token.pos == "ADJ"
                            || (matches!(token.pos.as_str(), "NOUN" | "ADV")
                                && tree.child_with_dep(c, &["mark"]).is_some())))
            }
            // A participle the parser read as a preposition, before the verb (`Based on a
            // Gloria Naylor novel, the story traces …`; not `given`, which needs no
            // controller; after the verb it is as often a noun's, `a film based on the
            // crisis`, FewRel and NYT sentences, 2026-12-01); and anywhere inside a
            // prepositional phrase, except a participle that modifies a noun (`at a party
            // hosted by X`) and anything inside a clause with a subject of its own (`for a
            // season which is set to premiere`): those have their own controller.
            "prep" if token.tag == "VBN" && token.lower() != "given" && c < tree.head(c) => true,
            "prep" => tree.subtree(c).any(|v| {
                let controlled = controlled_infinitive(v)
                    || (nonfinite_without_subject(v)
                        && matches!(tree.token(v).dep.as_str(), "pcomp" | "advcl" | "xcomp"));
                controlled && {
                    let mut up = tree.head(v);
                    let mut own_clause = false;
                    while up != c {
                        let t = tree.token(up);
                        if t.dep == "relcl"
                            || (matches!(t.pos.as_str(), "VERB" | "AUX") && !subjectless(up))
                        {
                            own_clause = true;
                            break;
                        }
                        up = tree.head(up);
                    }
                    !own_clause
                }
            }),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{boolq, resources};

    fn relation() -> VoiceChange {
        VoiceChange::new(resources()).unwrap()
    }

    fn cases(passage: &str) -> Vec<Case> {
        let (example, parses) = boolq("is the sky blue", passage);
        relation()
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
    }

    /// The follow-up passage, or `None` when the passage is not eligible.
    fn changed(passage: &str) -> Option<String> {
        let mut cases = cases(passage);
        assert!(cases.len() <= 1);
        cases.pop().map(|c| c.followup.context.unwrap())
    }

    fn assert_changes(pairs: &[(&str, &str)]) {
        for (source, expected) in pairs {
            assert_eq!(changed(source).as_deref(), Some(*expected), "{source}");
        }
    }

    #[test]
    fn papers_example() {
        assert_changes(&[(
            "Since 2012 the company now uses the SSE brand throughout the UK.",
            "Since 2012 the SSE brand is now used by the company throughout the UK.",
        )]);
    }

    /// Quoref's passages (reading 31, 2026-12-02): a conjunct whose "subject" the parser
    /// found after its verb shares the root's subject; an "as well as" after the agent may
    /// add a second agent.
    #[test]
    fn a_shared_subject_misparsed_and_a_second_agent_are_left_alone() {
        for passage in [
            "Nicolas tutored children of the Polish aristocracy, and in 1806 married Tekla \
             Justyna Krzyżanowska, a poor relative of the Skarbeks.",
            "Her theories were recapitulated by Arno Runeberg in his 1947 book Witches, Demons \
             and Fertility Magic as well as Pennethorne Hughes in his 1952 book Witches.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // A conjunct with its own subject before its verb still lets the first clause change.
        assert_changes(&[(
            "The committee approved the budget, and the mayor signed the law.",
            "The budget was approved by the committee, and the mayor signed the law.",
        )]);
    }

    /// MSRP's news sentences (reading 32, 2026-12-02): a measure, an activity and a hearer
    /// alone are no patients; *tell* with what was told still changes voice.
    #[test]
    fn a_measure_an_activity_or_a_hearer_alone_keeps_the_active() {
        for passage in [
            "The Nasdaq eased 0.15 percent for the week after two consecutive up weeks.",
            "Clayton Homes' stock ceased trading on the New York Stock Exchange after \
             Wednesday's close.",
            "Powell told a crowd at a cemetery with a thousand headstones, many of them \
             marking the graves of entire families.",
            // Yelp's reviews (reading 33): a comparative after the object.
            "Any grandmother can make a roasted chicken better than this one.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        assert_changes(&[
            (
                "The company stopped production after the fire.",
                "Production was stopped by the company after the fire.",
            ),
            (
                "The witness told the truth.",
                "The truth was told by the witness.",
            ),
        ]);
    }

    /// PubMedQA's abstracts and the StrategyQA facts (2026-12-01).
    #[test]
    fn findings_in_a_subject_sentence_adverbs_and_stranded_prepositions_are_left_alone() {
        for passage in [
            "Nearly 15% presented severe undernourishment.",
            "Especially this group showed deteriorated performance.",
            "Overall 145 participants (96.7%) inserted the LMAS in the manikin in the right \
             direction.",
            "The surgical treatment of diabetes has witnessed progressive development.",
            "All 785 infants were cared for by 14 different housestaff.",
            "Data were collected by means of semi-structured interviews.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // A title's "No" and "a little" are no negatives; a name shows and witnesses.
        assert_changes(&[
            (
                "In 1944, Sartre released No Exit.",
                "In 1944, No Exit was released by Sartre.",
            ),
            (
                "Carrie Underwood has sold a little over 65 million albums.",
                "A little over 65 million albums have been sold by Carrie Underwood.",
            ),
        ]);
    }

    /// BoolQ's unread passages (2026-12-01): "75th Avenue and Van Wyck Boulevard" parses as
    /// one name modified by another, one place or two; its number is not guessed.
    #[test]
    fn a_name_modified_by_a_coordinated_name_is_not_made_a_subject() {
        assert_eq!(
            changed("The E train now skipped 75th Avenue and Van Wyck Boulevard on weekdays."),
            None
        );
        // Coordinated adjectives before a plural noun are plain.
        assert_changes(&[(
            "The upper parts of the kidneys are partially protected by the 11th and 12th ribs.",
            "The 11th and 12th ribs partially protect the upper parts of the kidneys.",
        )]);
    }

    /// Research abstracts (2026-12-01): after an agent that ends in a phrase of its own, a
    /// phrase that followed the object reads as the agent's innermost noun's.
    #[test]
    fn a_phrase_after_the_object_does_not_follow_an_agent_with_a_phrase_of_its_own() {
        for passage in [
            "The isolation of the mouse Brca1 homologue will facilitate the creation of mouse \
             models for germline BRCA1 defects.",
            "All of the planets rotate the sun in approximately the same ecliptic.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // A plain agent takes it as the verb's.
        assert_changes(&[(
            "The doctor prescribed steroids for my ear trouble.",
            "Steroids were prescribed by the doctor for my ear trouble.",
        )]);
    }

    /// GAP's, HotpotQA's and SQuAD's Wikipedia paragraphs and WebNLG's train texts
    /// (2026-12-01): a measure of the subject is no patient, "concern" (to be about) has no
    /// passive, and FewRel's sentences (2026-12-01): nor have take, see and hit with an
    /// abstract object.
    #[test]
    fn measures_concern_and_figurative_light_verbs_take_no_passive() {
        for passage in [
            "The lake covers 92 acres of water.",
            "Atlanta covers 9 square kilometres.",
            "The series has sold over 11 million copies worldwide.",
            "The film concerns the period in Wood's life when he made his best-known films.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // FewRel's Wikipedia sentences: take, see and hit with an abstract object.
        for passage in [
            "As the race ended, Nico Rosberg took victory.",
            "After the surrender of Santiago, Stewart saw duty as aide-de-camp.",
            "Paul Simon hit a dry spell in his writing.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // A distance is covered by whoever travels it; a seller sells; a thing is taken.
        assert_changes(&[
            (
                "The caravan covered 100 miles each day.",
                "100 miles were covered by the caravan each day.",
            ),
            (
                "The dealer sold the painting in 1990.",
                "The painting was sold by the dealer in 1990.",
            ),
            (
                "The thief took the painting in 1990.",
                "The painting was taken by the thief in 1990.",
            ),
        ]);
    }

    /// FewRel's Wikipedia and NYT sentences (2026-12-01): a fronted phrase that says something
    /// of the subject, a comparison by auxiliary, *flee*.
    #[test]
    fn fronted_phrases_of_the_subject_and_comparisons_by_auxiliary_are_left_alone() {
        for passage in [
            "One Ukrainian volunteer, Vasyl Slipak was killed by a sniper's bullet.",
            "In 1953, at the age of seven, Nielsen met the Austrian soprano Hilde Güden.",
            "Based on a Gloria Naylor novel, the story traces the tales of several black women.",
            "Having lost the election, Smith sold the house.",
            "Max Weber exerted a major influence, as did Sigmund Freud (as in Marcuse's synthesis).",
            "Sam Sary fled the country in 1959.",
            // The agent would go inside a quotation the rewrite opens.
            "In 1971, Roth wrote a vicious satire of Richard Nixon in \"Our Gang,\" but he \
             turned against the 1960's.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // A date or a subordinate clause before the subject stays.
        assert_changes(&[
            (
                "In 1971, Roth wrote a vicious satire.",
                "In 1971, a vicious satire was written by Roth.",
            ),
            (
                "Although fishing has declined, the bay supports a large finfish population.",
                "Although fishing has declined, a large finfish population is supported by the \
                 bay.",
            ),
        ]);
    }

    /// Re-DocRED's Wikipedia leads (2026-12-01).
    #[test]
    fn figurative_see_adverbial_objects_shared_head_names_and_abbreviations_are_left_alone() {
        for passage in [
            // *see* with a subject that cannot see.
            "All Sims-class ships saw action in World War II.",
            "Her popularity saw her in demand for commercial endorsements.",
            // An adverbial read as the object.
            "The current group performs primarily a cappella.",
            "These winds blow parallel to the shoreline at certain areas of the coast.",
            // Names sharing a head: one or two, the parse does not tell.
            "Their interior is drained by Vicha and Yamen Glaciers.",
            "Since the late 1960s, the United Auto Workers Union has maintained the Walter and \
             May Reuther Family Education Center on the site of a former private estate.",
            // A sentence cut at an abbreviation's period.
            "The program was started in 1945, at which time ca. 75% of calls were handled by \
             operators.",
            // What the object was made, read as an apposition; a free relative coordinated
            // with the object; a relative clause of the agent (the held-out half).
            "The High transition authority elected Rajoelina the president of Madagascar, and \
             Albert Camille Vital became the Prime Minister.",
            "Beliën published a book about the political history of Belgium, and what he sees \
             as parallels in the creation of the European Union.",
            "His training was interrupted by World War II during which he served in the Free \
             French Forces.",
            // A count of times; a fronted partitive; an abbreviation's period at the end (the
            // third reading).
            "The current champion is Japan. Japan have won nine times.",
            "Of these, nine individuals have achieved this feat.",
            "In the United States, the brand is owned by Canada Dry Motts Inc.",
            // "A" before a name; a symbol no sentence has (WebNLG's texts).
            "A Storrs discovered 107 Camilla.",
            "A C Lumezzane played the 2014-2015 season in Lega Pro.",
            "April O'Neil was created by the American @ Peter Laird.",
            // *begin*; an abbreviation before a name; where the agent is from; a subject
            // split from its name's bracket (the fifth reading).
            "In Season 14, Jackson begins a relationship with Maggie Pierce.",
            "The second season continues to follow the Pearson family across several time \
             periods. The season was produced by Rhode Island Ave. Productions, Zaftig Films, \
             and 20th Century Fox Television, with Dan Fogelman serving as showrunner.",
            "April O'Neil was created by Peter Laird, from the US.",
            "(29075) 1950 DA was discovered by Carl A Wirtanen.",
            // An `as` complement hung on the object (SciERC's abstracts).
            "The system uses a histogram of keywords as the document representation.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // A person sees; a bare name coordinated with a name takes the plural.
        assert_changes(&[
            (
                "The doctor saw the patient.",
                "The patient was seen by the doctor.",
            ),
            (
                "The clock showed the wrong time.",
                "The wrong time was shown by the clock.",
            ),
            (
                "Their interior is drained by the Vicha Glacier and the Yamen Glacier.",
                "The Vicha Glacier and the Yamen Glacier drain their interior.",
            ),
        ]);
    }

    #[test]
    fn active_to_passive_keeps_tense_aspect_and_agreement() {
        assert_changes(&[
            (
                "The company uses the brand.",
                "The brand is used by the company.",
            ),
            (
                "The company uses the brands.",
                "The brands are used by the company.",
            ),
            (
                "The company used the brands.",
                "The brands were used by the company.",
            ),
            (
                "The companies have used the brand.",
                "The brand has been used by the companies.",
            ),
            (
                "The company has used the brands.",
                "The brands have been used by the company.",
            ),
            (
                "The company had used the brand.",
                "The brand had been used by the company.",
            ),
            (
                "The company will use the brand.",
                "The brand will be used by the company.",
            ),
            (
                "The company can use the brand.",
                "The brand can be used by the company.",
            ),
            (
                "The company could have used the brand.",
                "The brand could have been used by the company.",
            ),
            (
                "The company is using the brand.",
                "The brand is being used by the company.",
            ),
            (
                "The company was using the brands.",
                "The brands were being used by the company.",
            ),
            (
                "The company does not use the brand.",
                "The brand is not used by the company.",
            ),
            (
                "The company didn't use the brands.",
                "The brands weren't used by the company.",
            ),
            (
                "The company will not use the brand.",
                "The brand will not be used by the company.",
            ),
            (
                "The company wrote the book.",
                "The book was written by the company.",
            ),
            (
                "The company bought the brand and the logo.",
                "The brand and the logo were bought by the company.",
            ),
        ]);
    }

    #[test]
    fn passive_to_active_is_the_inverse() {
        assert_changes(&[
            (
                "The brand is used by the company.",
                "The company uses the brand.",
            ),
            (
                "The brand is used by the companies.",
                "The companies use the brand.",
            ),
            (
                "The brands were used by the company.",
                "The company used the brands.",
            ),
            (
                "The brand has been used by the companies.",
                "The companies have used the brand.",
            ),
            (
                "The brand will be used by the company.",
                "The company will use the brand.",
            ),
            (
                "The brand is being used by the companies.",
                "The companies are using the brand.",
            ),
            (
                "The brand is not used by the company.",
                "The company does not use the brand.",
            ),
            (
                "The brand wasn't used by the company.",
                "The company didn't use the brand.",
            ),
            (
                "The book was written by the company.",
                "The company wrote the book.",
            ),
            (
                "The brand was founded in 1990 by the company.",
                "The company founded the brand in 1990.",
            ),
            (
                "The series was broadcast by the network.",
                "The network broadcast the series.",
            ),
            // A plain adverb after the participle moves before the active verb.
            (
                "It was directed primarily by Victor Fleming.",
                "Victor Fleming primarily directed it.",
            ),
        ]);
    }

    #[test]
    fn pronouns_change_case() {
        assert_changes(&[
            (
                "The police arrested them.",
                "They were arrested by the police.",
            ),
            ("The teacher saw me.", "I was seen by the teacher."),
            ("She was praised by us.", "We praised her."),
            ("The company was founded by him.", "He founded the company."),
        ]);
    }

    #[test]
    fn capitals_follow_the_sentence_start_not_names() {
        assert_changes(&[
            (
                "John Smith founded the company.",
                "The company was founded by John Smith.",
            ),
            (
                "The BBC broadcast the series.",
                "The series was broadcast by the BBC.",
            ),
            (
                "In 1990, the company bought Apple.",
                "In 1990, Apple was bought by the company.",
            ),
            (
                "The company was founded by NASA.",
                "NASA founded the company.",
            ),
        ]);
    }

    #[test]
    fn the_title_heading_of_a_boolq_passage_stays_in_place() {
        assert_changes(&[(
            "Great Britain -- The island is dominated by a maritime climate.",
            "Great Britain -- A maritime climate dominates the island.",
        )]);
    }

    #[test]
    fn heavy_phrases_do_not_move_to_the_front() {
        for passage in [
            // A clause in the new subject.
            "The company bought the house, which was old.",
            "Congress passed an act providing that the office would end by attrition.",
            // More than eight tokens.
            "The council approved the plan for the new bridge over the river at the old ford.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        assert_changes(&[(
            "The company bought the old house.",
            "The old house was bought by the company.",
        )]);
    }

    #[test]
    fn complements_focus_particles_dates_and_inner_pronouns_are_left_alone() {
        for passage in [
            "The show added a new format to the auditions.",
            "Only an ordained priest administers the sacrament.",
            "The album was sold by November 2005.",
            "Josie is left at the altar by her fiance Liam.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
    }

    #[test]
    fn research_prose_means_levels_and_disorders_are_left_alone() {
        // GENIA's abstracts, 2026-12-01: a method without a determiner, or a use, is a means;
        // `have elevated levels` may be an adjective; a disorder develops in its subject.
        for passage in [
            "The cDNA was sequenced by standard methods.",
            "The receptors were measured by radioreceptor assay.",
            "This pathway was characterized by the use of other inhibitors.",
            "New World primates have elevated cortisol levels.",
            "Seven patients developed a severe infection.",
            // BC5CDR's abstracts: a living subject develops a convulsion, not a vaccine; a
            // manner adverb before a participle after `have`.
            "Two patients developed generalized convulsions.",
            "The lung tissue had unevenly distributed deposits.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        // A determined method may act, and any may show.
        assert_eq!(
            changed("The start sites were identified by an RNase protection assay.").as_deref(),
            Some("An RNase protection assay identified the start sites.")
        );
        assert_eq!(
            changed("The effect was shown by the analysis.").as_deref(),
            Some("The analysis showed the effect.")
        );
        assert_eq!(
            changed("The team developed a new vaccine.").as_deref(),
            Some("A new vaccine was developed by the team.")
        );
        assert_eq!(
            changed("The researchers developed a new method.").as_deref(),
            Some("A new method was developed by the researchers.")
        );
    }

    #[test]
    fn unsafe_sentences_are_left_alone() {
        for passage in [
            "Did the company use the brand?",
            "The man hurt himself.",
            "They helped each other.",
            "The company has a brand.",
            "It takes two hours to get there.",
            "He said that the company uses the brand.",
            "The brand was used in 1990.",
            "He gave her the book.",
            "He set up the company.",
            "\"The company uses the brand,\" he said.",
            "The company bought the brand and sold it.",
            "The event takes place in May.",
            "The product was made by hand.",
            "What he said surprised everyone.",
            "He enjoys swimming.",
            // A negative subject would end up under `ever` / after the verb.
            "No man has ever achieved a Grand Slam.",
            // A negative object would take the whole clause in its scope in front (SQuAD,
            // 2026-12-01: "No religion is claimed by around 20% of Victorians").
            "Around 20% of Victorians claim no religion.",
            // A pronoun agent, a pronoun moved before its antecedent, a light verb.
            "He founded the company.",
            "FIFA has used its authority to overturn results.",
            "The film received a limited release.",
            // A sentence-initial word that may be a name or a title: unclear capitals.
            "Queen also released the single.",
            "Officer Smith wrote the ticket.",
            // `deprive X of Y`, a stranded particle, a purpose clause of `depart`.
            "The landlord cannot deprive the tenant of heat.",
            "The water mixed the bones together.",
            // A coordinated verb the parser read as a noun would take the new subject.
            "The film was directed by Mike Mitchell from a script by Josh Klausner, and stars \
             Mike Myers.",
            // The understood subject of the infinitive would switch.
            "In April 2015, Aldi overtook Waitrose to become the sixth-largest chain.",
            // An elided verb phrase or a gapped list refers back to the old voice.
            "Most countries do not observe DST, while Paraguay does.",
            "It is bordered by Virginia to the southeast, Kentucky to the southwest, and Ohio to \
             the northwest.",
            "It is bordered by Virginia to the southeast, Kentucky to the southwest, Ohio to the \
             northwest, and Pennsylvania and Maryland to the northeast.",
            // A bare noun phrase before the subject (`the year | 1 BC`).
            "In this system, the year 1 BC is followed by AD 1.",
            // A sentence the segmenter cut short (no final punctuation).
            "This creates a situation where residents in",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
    }

    /// The constructions the 2026-11-30 reading on GAP, SQuAD and DynaSent found broken.
    #[test]
    fn what_would_change_meaning_or_dangle_on_other_corpora_is_left_alone() {
        for passage in [
            // A pronoun that could refer to either noun phrase follows the subject.
            "After Pleasant threatens him, Denton probes Boyd for a way in.",
            "The general disliked the colonel and he had a quarrel with Faik Pasha.",
            // A verbless clause, a participle or a purpose infinitive controlled by the subject.
            "Though relatively small, the store offers a large selection of wines.",
            "In addition to performing, Larson produced the cabaret revue.",
            "In 2001, Liljeberg began an adult education course in order to graduate.",
            // A second object after a pronoun object, a phrase that adds to the object.
            "The works earned him as much as $4,000 per portrait.",
            "Dr. Walter Freeman requested the presence of the doctors along with the machine.",
            // Two `by` phrases in the passive.
            "The conquest of Cyprus by the Anglo-Norman forces opened a new chapter.",
            // A past spelt like the base with a plural subject: the tense is unclear.
            "Dutch and Eph broadcast the announcement.",
            // A verb read almost only in the passive.
            "An example of this syndrome is evidenced by an event in 1988.",
            // A role, not a thing acted on.
            "Austria played backup point guard for the team.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
    }

    /// The constructions the second reading on other corpora (FewRel, PAWS, DROP) found
    /// broken.
    #[test]
    fn scope_misparses_and_contests_are_left_alone() {
        for passage in [
            // A quantifier or indefinite moved across `not`; a focus particle.
            "Ronnie Fields did not play a single game in the NBA.",
            "All known greedy algorithms do not consistently find optimum solutions.",
            "The title can only be used by members of the institute.",
            // A comma inside a moved phrase; a person's name with a place phrase.
            "With the support of the bank, the United Nations and the World Bank, Laos founded \
             the fund.",
            "On 13 November 2016, David Machado murdered Dennis Wallace in Fox Grove Park.",
            // A `that` clause coordinated with the object.
            "The hijacker demanded the release of the leader, and that the plane be refuelled.",
            // A manner adverb after the object; a sport; an opponent; an experiencer.
            "The encounter with the colonial masters changed the early society drastically.",
            "Lito played club football for Zingone.",
            "On 30 January 2009, Elwell fought Kell Brook at the York Hall.",
            "The city suffered wars against the Almoravids.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
    }

    /// What the held-out reading of WordNet's usage examples found broken (first two draws).
    #[test]
    fn idioms_possessor_pronouns_and_mistagged_words_are_left_alone() {
        for passage in [
            // A verb and object that WordNet lists as one verb: an idiom or light verb.
            "The music struck a chord with the listeners.",
            "The young woman took the veil after her fiance died.",
            "The ship made little headway against the gale.",
            // A pronoun object that may be the subject's possessor.
            "The car's momentum carried it off the road.",
            // An adjective of the subject hung on the verb.
            "Daily use of ibuprofen can irritate the stomach.",
            // A singular noun tagged plural.
            "The laboratory worker dyed the specimen.",
            // A verb with no natural passive; a bare infinitive read as a noun.
            "His whole attitude had undergone a subtle change.",
            "The wind made the vessel heel.",
            // A possessive in the subject that would follow a noun it could refer to.
            "Their manners had sophisticated the young girls.",
            // An idiom without a noun after the object.
            "A public nuisance offends the public at large.",
            // The seventh draw: a negative-polarity object; an adverb inside the object; a
            // bare agent with a phrase of its own.
            "The minister doesn't see anybody before noon.",
            "The sailor watched the sky warily.",
            "These stories were transmitted by word of mouth.",
            // A phrase that may be the verb's after the object (the sixth draw).
            "The hostess averted a confrontation with a diplomatic change of subject.",
            "The sales clerk snapped a reply at the angry customer.",
            // An instrument or a path after a thing or a person (the seventh draw).
            "The heavy traffic tinctures the air with carbon monoxide.",
            "The warships convoyed the merchant ships across the Pacific.",
            // `make` as serve-as; an indefinite agent of a generic plural; a second `by` phrase
            // (the eighth draw and its file).
            "The step makes a satisfactory seat.",
            "Certain breeds do not make good pets.",
            "Opinions are usually written by a single judge.",
            "Most criminal cases are handled by a tribal Jirga rather than by laws or police.",
            // The tenth draw: a comparative's `than` in the object; a quotation; a sentence cut
            // at an abbreviation's period.
            "A mouse takes much more room than a trackball.",
            "`The boy threw the ball' uses the active voice.",
            "It is shown by the drawing in Fig. 7.",
            // A result taken into the object; an abbreviation's period at the object's end.
            "These keys have clicked open many doors.",
            "The attack on Poland terminated the relatively peaceful period after WW I.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
    }

    #[test]
    fn a_complement_completing_the_verb_stays_before_the_agent() {
        assert_changes(&[
            (
                "The police routed them out of bed at 2 A.M.",
                "They were routed out of bed by the police at 2 A.M.",
            ),
            (
                "The exercise class drains me of energy.",
                "I am drained of energy by the exercise class.",
            ),
            // A place phrase that would seem to be the agent's goes before it; a date, a
            // phrase with a second preposition or a possessive stays after it.
            (
                "The sales clerk quickly seized the money on the counter.",
                "The money was quickly seized on the counter by the sales clerk.",
            ),
            (
                "The hurricane demolished houses in its path.",
                "Houses were demolished by the hurricane in its path.",
            ),
            (
                "Planners developed several scenarios in case of an attack.",
                "Several scenarios were developed by planners in case of an attack.",
            ),
            // `make` in the past is mostly made; a definite or singular subject of an indefinite
            // agent stays.
            (
                "The catcher made a good throw to second base.",
                "A good throw to second base was made by the catcher.",
            ),
            ("Kuru is caused by a slow virus.", "A slow virus causes Kuru."),
            // A preposition WordNet lists with the verb as a phrasal verb completes it.
            (
                "The scholarship saw me through college.",
                "I was seen through college by the scholarship.",
            ),
            // A phrase that is the noun's own moves with it: `with` after a relation, a path
            // after an act.
            (
                "The president's trip will substantiate good relations with the former enemy country.",
                "Good relations with the former enemy country will be substantiated by the \
                 president's trip.",
            ),
            (
                "The army made a push toward the sea.",
                "A push toward the sea was made by the army.",
            ),
            // A particle adverb after the object stays before the agent.
            (
                "After the game the children brought friends home for supper.",
                "After the game friends were brought home by the children for supper.",
            ),
            // A particle after the passive participle stays after the active verb's object.
            (
                "He was taken aback by such inhospitality.",
                "Such inhospitality took him aback.",
            ),
            (
                "The boats were held together by lashings.",
                "Lashings held the boats together.",
            ),
            // A possessive pronoun in the agent does not block a pronoun object.
            (
                "The bad state of her child's health demoralizes her.",
                "She is demoralized by the bad state of her child's health.",
            ),
        ]);
    }

    #[test]
    fn pronouns_that_cannot_refer_to_both_phrases_do_not_block() {
        assert_changes(&[
            // `her` cannot be the father (a male noun) nor the murder (not a living being).
            (
                "When his attempts merely antagonise her, the worried father plans Allerton's \
                 murder.",
                "When his attempts merely antagonise her, Allerton's murder is planned by the \
                 worried father.",
            ),
            // An infinitive inside a relative clause has its own subject.
            (
                "In April, CBS renewed the series for a ninth season which is set to premiere \
                 in September.",
                "In April, the series was renewed by CBS for a ninth season which is set to \
                 premiere in September.",
            ),
            // A third-person singular subject shows the past of `broadcast`.
            (
                "The network broadcast the announcement.",
                "The announcement was broadcast by the network.",
            ),
            // A sentence opening with a number still starts with a capital.
            (
                "2010 Hindi movie Kushti was inspired by this movie.",
                "This movie inspired 2010 Hindi movie Kushti.",
            ),
        ]);
    }

    #[test]
    fn every_convertible_sentence_changes_with_one_exact_edit_each() {
        let passage = "The sky is blue. The company now uses the SSE brand throughout the UK. \
                       It was founded by John Smith.";
        let case = cases(passage).remove(0);
        case.validate().unwrap();
        assert_eq!(case.case_id, "q1:MR2-3:0");
        assert_eq!(case.expectation().unwrap(), Expectation::Equal);
        assert_eq!(case.precondition().unwrap(), None);
        assert_eq!(case.followup.label, None);
        assert_eq!(case.followup.question.as_deref(), Some("is the sky blue"));
        assert_eq!(
            case.followup.context.as_deref(),
            Some(
                "The sky is blue. The SSE brand is now used by the company throughout the UK. \
                 John Smith founded it."
            )
        );
        let edits: Vec<(u32, u32, &str, &str)> = case
            .edits
            .iter()
            .map(|e| (e.start, e.end, e.before.as_str(), e.after.as_str()))
            .collect();
        assert_eq!(
            edits,
            vec![
                (
                    17,
                    51,
                    "The company now uses the SSE brand",
                    "The SSE brand is now used by the company"
                ),
                (
                    71,
                    99,
                    "It was founded by John Smith",
                    "John Smith founded it"
                ),
            ]
        );
        let chars: Vec<char> = passage.chars().collect();
        for e in &case.edits {
            let span: String = chars[e.start as usize..e.end as usize].iter().collect();
            assert_eq!(span, e.before);
        }
    }

    #[test]
    fn without_a_parse_or_a_convertible_sentence_there_is_no_case() {
        let (example, _) = boolq("is the sky blue", "The company uses the brand.");
        assert!(relation()
            .follow_ups(&Source::unparsed(&example))
            .unwrap()
            .is_empty());
        assert!(cases("The sky is blue. It rains.").is_empty());
        assert_eq!(relation().parsed_fields(), &["context"]);
    }

    /// KBP37's news and web sentences (2026-12-01): a plural-only determiner shows the number of
    /// a noun the tagger read as singular, and *would rather* is the subject's preference.
    #[test]
    fn kbp37_sentences() {
        assert_changes(&[(
            "The auditor has conducted several audits of the district.",
            "Several audits of the district have been conducted by the auditor.",
        )]);
        assert_eq!(changed("The Angels would rather spend the money."), None);
    }

    /// IMDb's movie reviews (2026-12-01): a stilted *deserve*, a part played (*makes a …
    /// Frank Churchill*), a copular *prove*, an object complement hung on the object (*made a
    /// movie quite unique*) and an idiom (*defies words*) are left alone; an adjective with a
    /// complement of its own stays the object's.
    #[test]
    fn imdb_reviews() {
        for passage in [
            "The producers deserve much acclaim for this film.",
            "Raymond Coulthard makes an appropriately decorative Frank Churchill.",
            "The dangers of diving prove a further setback.",
            "This line-up made a movie quite unique and interesting.",
            "The emotional impact of this movie defies words.",
        ] {
            assert_eq!(changed(passage), None, "{passage}");
        }
        assert_changes(&[(
            "My dog ate a bag full of dog treats.",
            "A bag full of dog treats was eaten by my dog.",
        )]);
    }

    /// With `[perturb.mt4mrc] lm`, a phrase after the object goes into the new subject when the
    /// LM finds that sentence likelier by `voice_lm_margin` nats. The LM here is the tiny random
    /// Llama of the models crate's fixtures, whose preference means nothing, so the margin
    /// decides: −∞ always moves the phrase, +∞ never does. A phrase of time never moves, and a
    /// rewrite that would strand the phrase after an agent with a phrase of its own is emitted
    /// only with the phrase moved.
    #[test]
    fn a_causal_lm_chooses_where_a_phrase_after_the_object_goes() {
        let gguf = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../models/tests/fixtures/causal-lm/llama-tiny.gguf"
        );
        let with_margin = |margin: &str| {
            let config: crate::PerturbConfig = toml::from_str(&format!(
                "[mt4mrc]\nlm = \"{gguf}\"\nvoice_lm_margin = {margin}\n"
            ))
            .unwrap();
            VoiceChange::new(&crate::Resources::from_config(&config)).unwrap()
        };
        let (always, never) = (with_margin("-inf"), with_margin("inf"));
        let changed_by = |relation: &VoiceChange, passage: &str| {
            let (example, parses) = boolq("is the sky blue", passage);
            let mut cases = relation
                .follow_ups(&Source::new(&example, &parses))
                .unwrap();
            assert!(cases.len() <= 1);
            cases.pop().map(|c| c.followup.context.unwrap())
        };
        let attended = "Elliot See attended the University of Texas at Austin.";
        assert_eq!(
            changed_by(&always, attended).as_deref(),
            Some("The University of Texas at Austin was attended by Elliot See.")
        );
        // Offsets count characters: text before the sentence that is not ASCII moves nothing.
        assert_eq!(
            changed_by(
                &always,
                "Ōtsuki's café in Kyōto closed. Elliot See attended the University of Texas at \
                 Austin."
            )
            .as_deref(),
            Some(
                "Ōtsuki's café in Kyōto closed. The University of Texas at Austin was attended \
                 by Elliot See."
            )
        );
        let stranded = "The University of Texas was attended by Elliot See at Austin.";
        assert_eq!(changed_by(&never, attended).as_deref(), Some(stranded));
        assert_eq!(changed(attended).as_deref(), Some(stranded));
        let dated = "The film won the Prix Jean Vigo in 1957.";
        assert_eq!(changed_by(&always, dated), changed(dated));
        let dug = "During his reign, two working groups under the lead of the engineer dug a \
                   tunnel through the mountain.";
        assert_eq!(changed(dug), None);
        assert_eq!(changed_by(&never, dug), None);
        assert_eq!(
            changed_by(&always, dug).as_deref(),
            Some(
                "During his reign, a tunnel through the mountain was dug by two working groups \
                 under the lead of the engineer."
            )
        );
    }
}
