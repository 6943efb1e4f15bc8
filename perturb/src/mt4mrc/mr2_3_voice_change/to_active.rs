//! Passive → active: rebuilding a clause with the `by`-agent as subject and the old subject as
//! object, keeping tense and aspect.

use std::ops::Range;

use super::boundaries::{
    clean_boundary, comparison_by_auxiliary, fronted_phrase_of_the_subject, only_child,
    quotes_pair_up, split_from_a_coordination, starts_sentence, top_child, Lower,
};
use super::grammar::{
    accusative, agreement, chain_of, is_focus_particle, nominative, scope_changes_under_negation,
    Chain, Role, Tense, Words,
};
use super::relation::VoiceChange;
use super::word_lists::{
    CAST_VERBS, METHOD_NOUNS, NO_ACTIVE, PARTICLE_ADVERBS, PLURAL_QUANTIFIERS, SHOWING_VERBS,
};
use crate::edit::Replacement;
use crate::syntax::Tree;

impl VoiceChange {
    pub(super) fn passive_to_active(
        &self,
        tree: &Tree<'_>,
        sentence: Range<usize>,
        root: usize,
        children: &[usize],
    ) -> Option<Replacement> {
        let verb = tree.token(root);
        let lemma = self
            .inflections
            .confirmed_lemma(&verb.text, &verb.lemma, "VERB")
            .to_lowercase();
        if NO_ACTIVE.contains(&lemma.as_str()) {
            return None;
        }
        for &c in children {
            if matches!(tree.token(c).dep.as_str(), "nsubj" | "dobj") {
                return None;
            }
        }
        let subj = only_child(tree, children, "nsubjpass")?;
        let agent = only_child(tree, children, "agent")?;
        let auxpass = only_child(tree, children, "auxpass")?;
        if tree.token(agent).lower() != "by" || tree.token(auxpass).lemma.to_lowercase() != "be" {
            return None;
        }
        let agent_children: Vec<usize> = tree.children(agent).collect();
        let [by_object] = agent_children[..] else {
            return None;
        };
        if tree.token(by_object).dep != "pobj" {
            return None;
        }
        // "by means of interviews", "by way of …": a means, never an agent ("Means of
        // semi-structured interviews collected data": PubMedQA's abstracts, 2026-12-01).
        if matches!(
            tree.token(by_object).lower().as_str(),
            "means" | "way" | "dint" | "virtue"
        ) && tree
            .children(by_object)
            .any(|c| tree.token(c).lower() == "of")
        {
            return None;
        }
        let subj_range = tree.subtree(subj);
        let agent_range = tree.subtree(agent);
        let new_subject_range = tree.subtree(by_object);
        if split_from_a_coordination(tree, &sentence, &subj_range)
            || fronted_phrase_of_the_subject(tree, &sentence, &subj_range)
            || comparison_by_auxiliary(tree, &sentence)
        {
            return None;
        }
        // `were recapitulated by Arno Runeberg in his 1947 book … as well as Pennethorne Hughes
        // in his 1952 book`: an "as well as" after the agent may add a second agent that the
        // parser hung elsewhere, and the active would make it a second object (Quoref's
        // passages, reading 31).
        if (agent + 1..sentence.end.saturating_sub(2)).any(|i| {
            tree.lower(i) == "as" && tree.lower(i + 1) == "well" && tree.lower(i + 2) == "as"
        }) {
            return None;
        }
        if subj_range.end > root
            || agent_range.start <= root
            || new_subject_range != (agent + 1..agent_range.end)
        {
            return None;
        }
        // Tokens between the participle and the agent stay (`founded in 1990 by X`): plain
        // modifiers of the verb only, no punctuation.
        for i in root + 1..agent_range.start {
            let top = top_child(tree, root, i)?;
            if !matches!(tree.token(top).dep.as_str(), "prep" | "advmod" | "npadvmod")
                || tree.token(i).pos == "PUNCT"
            {
                return None;
            }
            // "were cared for by 14 housestaff" → "… cared these infants for": a preposition
            // with no object of its own belongs to the verb and would be stranded (PubMedQA's
            // abstracts, 2026-12-01).
            if tree.token(i).dep == "prep"
                && !tree
                    .children(i)
                    .any(|c| matches!(tree.token(c).dep.as_str(), "pobj" | "pcomp"))
            {
                return None;
            }
        }
        // The old passive subject becomes the object.
        let old_subject = tree.token(subj);
        if !matches!(
            old_subject.tag.as_str(),
            "NN" | "NNS" | "NNP" | "NNPS" | "PRP"
        ) || (old_subject.tag == "PRP" && accusative(&old_subject.text).is_none())
        {
            return None;
        }
        // The agent becomes the subject: a noun phrase with a determiner or modifier (not
        // `by hand`, `by car`) or a personal pronoun.
        let by_token = tree.token(by_object);
        match by_token.tag.as_str() {
            "PRP" if nominative(&by_token.text).is_some() => {}
            // `by word of mouth`: a phrase after the noun does not make it a determined one.
            "NN" if tree
                .child_with_dep(
                    by_object,
                    &["det", "poss", "nummod", "amod", "compound", "conj"],
                )
                .is_none() =>
            {
                return None
            }
            "NN" | "NNS" | "NNP" | "NNPS" => {}
            _ => return None,
        }
        // `was sequenced by standard methods`, `characterized by the use of inhibitors`: a method
        // named without a determiner, or a use, is the means of an act someone did, and the
        // active makes it the doer ("Standard methods sequenced amplified cDNA"). A determined
        // one may act ("An RNase protection assay identified …"), and any may show ("The
        // analysis showed …"). GENIA's abstracts, 2026-12-01.
        let agent_lemma = by_token.lemma.to_lowercase();
        let undetermined = tree
            .child_with_dep(by_object, &["det", "poss", "nummod"])
            .is_none();
        if METHOD_NOUNS.contains(&agent_lemma.as_str())
            && (undetermined || agent_lemma == "use")
            && !SHOWING_VERBS.contains(&lemma.as_str())
        {
            return None;
        }
        let agreement = agreement(tree, by_object)?;
        if self.pronoun_may_shift(
            tree,
            &sentence,
            (&subj_range, subj),
            (&new_subject_range, by_object),
        ) {
            return None;
        }
        if !clean_boundary(tree, &sentence, agent_range.end) {
            return None;
        }
        // `… owned by Canada Dry Motts Inc.`: an agent ending in an abbreviation whose period
        // is the sentence's would take the full stop to the front ("Canada Dry Motts Inc. owns
        // the brand" without one). BoolQ's unread passages, 2026-12-01.
        if agent_range.end == sentence.end
            && tree.token(agent_range.end - 1).text.len() > 1
            && tree.token(agent_range.end - 1).text.ends_with('.')
        {
            return None;
        }
        // `interrupted by World War II during which he served`: a relative clause right after
        // the agent (a comma or none between) is the agent's own, whatever the parser hung it
        // on; the active moves the agent to the front and leaves the clause on the object
        // ("World War II interrupted his training during which he served"). Re-DocRED's
        // Wikipedia leads, 2026-12-01.
        let wh = |i: usize| {
            i < sentence.end && matches!(tree.token(i).tag.as_str(), "WDT" | "WP" | "WP$" | "WRB")
        };
        let mut after = agent_range.end;
        if after < sentence.end && tree.token(after).text == "," {
            after += 1;
        }
        if wh(after) || after < sentence.end && tree.token(after).tag == "IN" && wh(after + 1) {
            return None;
        }
        // `created by Peter Laird, from the US`, `operated by AIDA Cruises from Rostock`: where
        // the agent comes from, which the active would say of the object or the act (WebNLG's
        // texts, 2026-12-01).
        if after + 1 < sentence.end
            && tree.lower(after) == "from"
            && tree.children(after).any(|i| {
                tree.token(i).dep == "pobj"
                    && matches!(tree.token(i).ent_type.as_str(), "GPE" | "LOC")
            })
        {
            return None;
        }
        // `(29075) 1950 DA was discovered by …`: a subject the parser split from a bracket of
        // its name.
        if subj_range.start > sentence.start && tree.token(subj_range.start - 1).text == ")" {
            return None;
        }
        // `handled by a tribal Jirga rather than by laws or police`: a second `by` phrase of the
        // same verb after the agent would be left behind in the active clause, with no passive
        // verb to belong to ("A tribal Jirga handles most criminal cases rather than by laws").
        if (agent_range.end..sentence.end).any(|i| {
            if tree.token(i).lower() != "by" {
                return false;
            }
            // Hung on the verb or on the agent through connectives only, not on a noun of its
            // own ("directed the film from a script by Josh Klausner").
            let mut up = tree.head(i);
            while up != root && up != agent && up != tree.head(up) {
                if !matches!(
                    tree.token(up).pos.as_str(),
                    "ADP" | "CCONJ" | "SCONJ" | "ADV" | "PART"
                ) {
                    return false;
                }
                up = tree.head(up);
            }
            up == root || up == agent
        }) {
            return None;
        }
        if !CAST_VERBS.contains(&lemma.as_str())
            && !self
                .inflections
                .inflect_all(&lemma, "VBN")
                .iter()
                .any(|f| f.eq_ignore_ascii_case(&verb.text))
        {
            return None;
        }
        let middle: Vec<usize> = (subj_range.end..root).collect();
        let chain = chain_of(tree, root, &middle, true)?;
        let negated = middle.iter().any(|&i| tree.token(i).dep == "neg");
        if negated
            && (scope_changes_under_negation(tree, subj_range.clone())
                || scope_changes_under_negation(tree, new_subject_range.clone()))
        {
            return None;
        }
        if middle
            .iter()
            .copied()
            .chain(root + 1..agent_range.start)
            .any(|i| is_focus_particle(&tree.token(i).lower()))
        {
            return None;
        }
        // `Opinions are usually written by a single judge`, `Most criminal cases are handled by
        // a tribal Jirga`: in the present, a plural subject bare or quantified has each of its
        // members done by some one agent; the active would have one agent do them all ("A
        // single judge usually writes opinions").
        let indefinite_agent = tree.children(by_object).any(|c| {
            matches!(
                tree.token(c).lower().as_str(),
                "a" | "an" | "one" | "single"
            )
        });
        let generic_plural = tree.token(subj).tag == "NNS"
            && tree
                .child_with_dep(subj, &["det", "poss", "nummod"])
                .is_none_or(|d| PLURAL_QUANTIFIERS.contains(&tree.token(d).lower().as_str()));
        if indefinite_agent
            && generic_plural
            && matches!(chain, Chain::Simple(Tense::Present) | Chain::Modal)
        {
            return None;
        }
        let infl = &self.inflections;
        let form = |tag: &str| infl.inflect_or_rule(&lemma, tag).map(|f| f.form);
        let new_verb = match chain {
            Chain::Simple(_) if negated => lemma.clone(),
            // `broadcast` rather than `broadcasted` when the participle is spelt that way.
            Chain::Simple(Tense::Past) => {
                let participle = verb.text.to_lowercase();
                let pasts = infl.inflect_all(&lemma, "VBD");
                if pasts.contains(&participle) || CAST_VERBS.contains(&lemma.as_str()) {
                    participle
                } else {
                    form("VBD")?
                }
            }
            Chain::Simple(Tense::Present) if agreement.third_singular() => form("VBZ")?,
            Chain::Simple(Tense::Present) => form("VBP")?,
            Chain::Modal => lemma.clone(),
            Chain::Perfect(_) | Chain::ModalPerfect => verb.text.to_lowercase(),
            Chain::Progressive(_) => form("VBG")?,
            Chain::Do(_) => return None,
        };
        if negated {
            // `is not used` → `does not use`, but not `is often not used` → `does often not use`.
            let neg = middle.iter().position(|&i| tree.token(i).dep == "neg")?;
            let aux = middle
                .iter()
                .position(|&i| matches!(tree.token(i).dep.as_str(), "aux" | "auxpass"))?;
            if neg != aux + 1 {
                return None;
            }
        }

        let at_start = starts_sentence(tree, &sentence, subj_range.start)?;
        let mut words = Words(String::new());
        let front = self.noun_phrase(
            tree,
            new_subject_range.clone(),
            by_object,
            Role::Subject,
            at_start,
        )?;
        words.push(&front, false);
        for &i in &middle {
            let token = tree.token(i);
            let glued = i > 0 && tree.token(i - 1).whitespace.is_empty();
            let is_aux = matches!(token.dep.as_str(), "aux" | "auxpass");
            if !is_aux {
                words.push(&token.text, glued);
                continue;
            }
            let tense = Tense::of(&token.tag);
            let new = match (chain, token.dep.as_str()) {
                // The passive `be`/`been`/`being` goes, except that a negated simple tense
                // needs `do`.
                (Chain::Simple(t), "auxpass") if negated => match t {
                    Tense::Past => "did".to_string(),
                    Tense::Present if agreement.third_singular() => "does".to_string(),
                    Tense::Present => "do".to_string(),
                },
                (_, "auxpass") => continue,
                (Chain::Perfect(Tense::Present), _) if tense.is_some() => {
                    if agreement.third_singular() {
                        "has"
                    } else {
                        "have"
                    }
                    .to_string()
                }
                (Chain::Progressive(t), _) => {
                    let tag = if t == Tense::Past { "VBD" } else { "VBZ" };
                    infl.be_form(tag, agreement.person, agreement.plural)?
                }
                _ => token.text.clone(),
            };
            if new == "am" && negated {
                return None;
            }
            words.push(&new, glued);
        }
        // Plain adverbs between the participle and the agent (`was directed primarily by X`)
        // go before the active verb (`X primarily directed it`); other material stays after
        // the object.
        let between = root + 1..agent_range.start;
        let adverbs_only = !between.is_empty()
            && between.clone().all(|i| {
                let t = tree.token(i);
                t.dep == "advmod"
                    && t.tag == "RB"
                    && tree.children(i).next().is_none()
                    // `were held together by lashings` → `Lashings held the boats together`:
                    // a particle completes the verb and stays after the object.
                    && !PARTICLE_ADVERBS.contains(&t.lower().as_str())
            });
        if adverbs_only {
            words.push(&tree.text(between.clone()), false);
        }
        words.push(&new_verb, false);
        let back = self.noun_phrase(tree, subj_range.clone(), subj, Role::Object, at_start)?;
        words.push(&back, false);
        if !adverbs_only && !between.is_empty() {
            words.push(&tree.text(between), false);
        }
        if !quotes_pair_up(tree, subj_range.start..agent_range.end) {
            return None;
        }
        let (start, _) = tree.char_span(subj_range);
        let (_, end) = tree.char_span(agent_range);
        Some(Replacement::new(start, end, words.0))
    }
}
