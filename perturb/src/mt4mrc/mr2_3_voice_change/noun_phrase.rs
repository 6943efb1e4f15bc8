//! Moving a noun phrase to its new role (subject ↔ object or agent): pronoun case, sentence-initial
//! capitals, the closing comma of a non-restrictive clause.

use std::ops::Range;

use super::boundaries::{balanced, lowercase_first, nonrestrictive_end, Lower};
use super::grammar::{accusative, conjuncts, nominative, Role};
use super::relation::VoiceChange;
use super::word_lists::NAME_ENTITIES;
use crate::edit::capitalize;
use crate::syntax::Tree;

/// The most tokens a phrase moved to the subject position may have (see `noun_phrase`).
const MAX_FRONTED_TOKENS: usize = 8;

impl VoiceChange {
    /// The text of the noun phrase `range` (head `head`) in its new role: pronoun case flipped,
    /// sentence-initial capitals moved, a closing comma added after a non-restrictive clause
    /// when it moves to the front. `None` when the phrase cannot move safely.
    pub(super) fn noun_phrase(
        &self,
        tree: &Tree<'_>,
        range: Range<usize>,
        head: usize,
        role: Role,
        at_start: bool,
    ) -> Option<String> {
        let tokens = tree.tokens();
        // A heavy phrase does not move to the front: English puts heavy constituents last, and
        // reviews found the passives with a long or clausal new subject unnatural ("an act
        // providing that … by attrition, was passed by Congress", "right turns on red except
        // where prohibited by a sign are now allowed by …", "Delaware North, whose CEO, Jeremy
        // Jacobs, also owns the Bruins, owns it"). The new subject must be short, hold no
        // comma and no verb of its own.
        // A focus particle heading a moved phrase changes its scope ("administered by only an
        // ordained priest"); a date is no agent ("sold by November 2005" → "November 2005
        // sold"); a pronoun inside a fronted phrase comes before its antecedent ("her fiancé
        // Liam leaves Josie"). All from the review of seed 20261213.
        if matches!(
            tokens[range.start].lower().as_str(),
            "only" | "even" | "also" | "just" | "mainly" | "mostly"
        ) || tokens[head].ent_type == "DATE"
            || tokens[head].ent_type == "TIME"
            || tokens[head].tag == "CD"
            || role == Role::Subject
                && range.len() > 1
                && tokens[range.clone()]
                    .iter()
                    .any(|t| matches!(t.tag.as_str(), "PRP" | "PRP$"))
        {
            return None;
        }
        if role == Role::Subject
            && (range.len() > MAX_FRONTED_TOKENS
                || tokens[range.clone()]
                    .iter()
                    .any(|t| t.text == "," || matches!(t.pos.as_str(), "VERB" | "AUX")))
        {
            return None;
        }
        let last = &tokens[range.end - 1];
        if (last.pos == "PUNCT" && !matches!(last.text.as_str(), ")" | "]" | "\"" | "''" | "”"))
            || matches!(
                last.tag.as_str(),
                "CC" | "IN" | "DT" | "TO" | "PRP$" | "POS"
            )
        {
            return None;
        }
        // A modifier after the head that ends the phrase, or a common-noun head inside a
        // person's name (`J.J. Watt eleventh | overall`), is a sign the parser cut a phrase of
        // the verb in two.
        if range.end - 1 > head
            && tree.head(range.end - 1) == head
            && matches!(last.pos.as_str(), "ADJ" | "ADV")
        {
            return None;
        }
        if tokens[head].pos == "NOUN" && tokens[head].ent_type == "PERSON" {
            return None;
        }
        // A comma inside a moved phrase is a list or an apposition the parser may have
        // bracketed wrongly ("with the support of …, the Asian Development Bank and the World
        // Bank, Lao PDR founded …"); a person's name with a place phrase is as likely a
        // phrase of the verb the parser hung on the name ("Dennis Wallace in Fox Grove Park
        // was murdered"). Both from the second reading on other corpora.
        if tokens[range.clone()].iter().any(|t| t.text == ",")
            || (tokens[head].ent_type == "PERSON"
                && tree
                    .children(head)
                    .any(|k| tokens[k].dep == "prep" && tokens[k].lower() != "of"))
        {
            return None;
        }
        if tokens[range.clone()]
            .iter()
            .any(|t| matches!(t.text.as_str(), "--" | ":" | ";" | "—" | "–"))
            || !balanced(&tokens[range.clone()])
        {
            return None;
        }
        // A phrase the parser may have mis-bracketed: a verb coordinated inside it (`X, who …
        // and finished …` can be the main clause's second verb), or a list read as
        // appositions, whose number is then unclear.
        let inside = || range.clone().filter(|&i| i != head).map(|i| &tokens[i]);
        if inside().any(|t| t.dep == "conj" && t.tag.starts_with("VB"))
            || (inside().any(|t| t.dep == "appos") && inside().any(|t| t.dep == "cc"))
        {
            return None;
        }
        // The head and the words coordinated with it are the ones whose case changes.
        let heads = conjuncts(tree, head);
        // Gapping (`written by A, and the screenplay by B`): a conjunct with its own `by`.
        if heads[1..]
            .iter()
            .any(|&c| tree.children(c).any(|k| tokens[k].lower() == "by"))
        {
            return None;
        }
        let closing_comma = match role {
            Role::Subject => nonrestrictive_end(tree, range.clone())?,
            Role::Object => false,
        };
        let mut out = String::new();
        for i in range.clone() {
            let token = &tokens[i];
            let mut text = token.text.clone();
            if token.tag == "PRP" && heads.contains(&i) {
                let flipped = match role {
                    Role::Subject => nominative(&text)?,
                    Role::Object => accusative(&text)?,
                };
                text = flipped.to_string();
            }
            if i == range.start && at_start {
                text = match role {
                    Role::Subject => capitalize(&text),
                    Role::Object if self.lower_at_start(tree, i)? => lowercase_first(&text),
                    Role::Object => text,
                };
            }
            out.push_str(&text);
            if i + 1 < range.end {
                out.push_str(&token.whitespace);
            }
        }
        if closing_comma {
            out.push(',');
        }
        Some(out)
    }

    /// Whether a sentence-initial capital on `token` is only positional, so it is lower-cased
    /// when the token leaves the front: `Some(true)` for function words and known common
    /// words outside names, `Some(false)` for proper nouns, `I`, acronyms and words with
    /// digits or inner capitals, `None` when unclear (an unknown word like `Kingsnakes`, a
    /// common noun inside a name like `Mathematician Dr. Ian Malcolm`).
    fn lower_at_start(&self, tree: &Tree<'_>, i: usize) -> Option<bool> {
        let token = tree.token(i);
        let text = token.text.as_str();
        if text == "I"
            || text.chars().any(|c| c.is_ascii_digit())
            || text.chars().skip(1).any(char::is_uppercase)
        {
            return Some(false);
        }
        // `A Storrs discovered 107 Camilla`, `A Wizard of Mars was written by …`: "A" before a
        // name is as often its initial or a title's first word as an article (WebNLG's texts,
        // 2026-12-01: "… by a Storrs").
        if matches!(text, "A" | "An")
            && matches!(tree.token(tree.head(i)).tag.as_str(), "NNP" | "NNPS")
        {
            return None;
        }
        let closed_class = matches!(
            text.to_lowercase().as_str(),
            "many"
                | "most"
                | "some"
                | "all"
                | "several"
                | "few"
                | "both"
                | "each"
                | "every"
                | "other"
                | "such"
                | "certain"
                | "various"
                | "numerous"
                | "much"
                | "more"
                | "only"
                | "one"
                | "two"
                | "three"
                | "four"
                | "five"
                | "six"
                | "seven"
                | "eight"
                | "nine"
                | "ten"
                | "over"
                | "about"
                | "nearly"
                | "almost"
        );
        if closed_class
            || matches!(
                token.tag.as_str(),
                "DT" | "PDT" | "PRP" | "PRP$" | "IN" | "CC" | "WDT" | "EX"
            )
        {
            return Some(true);
        }
        let upos = match token.pos.as_str() {
            "PROPN" => "NOUN",
            other => other,
        };
        let known = self.inflections.lemma(&text.to_lowercase(), upos).is_some();
        let in_name = NAME_ENTITIES.contains(&token.ent_type.as_str());
        match token.tag.as_str() {
            // A proper noun stays capitalised, unless it is a known common word outside any
            // name (a sentence-initial common noun the tagger took for a name).
            // A name that is also a common word (`Queen`, `Clay`, `Urea`) is unclear.
            "NNP" | "NNPS" if known => None,
            "NNP" | "NNPS" if !token.ent_type.is_empty() => Some(false),
            "NNP" | "NNPS" => None,
            _ if in_name => None,
            // A bare singular noun opening the sentence (`Officer Smith`, `Agriculture`) is as
            // often a title or a name as a mass noun.
            "NN" => None,
            // `Officer Nicholas Cimmino`: a title or a description? Unclear.
            _ if token.dep == "compound"
                && matches!(tree.token(tree.head(i)).tag.as_str(), "NNP" | "NNPS") =>
            {
                None
            }
            _ => known.then_some(true),
        }
    }
}
