//! BPB's *Build* without a trained generator: the follow-up question written from the original
//! question, its QDMR and the perturbed QDMR, by rules per perturbation kind.
//!
//! Two ways of writing, chosen per kind by what keeps the question natural:
//! * **Editing the original question** where the perturbation changes one thing the question
//!   says: ReplaceComp swaps the question's comparison word for its opposite
//!   ([`comparison_word`]: "first" ↔ "last", "more" ↔ "fewer"/"less" by countability, …);
//!   AppendBool turns a "how many" question into a yes/no question about the count
//!   ([`yes_no`]: "How many field goals did Nugent kick?" → "Did Nugent kick more than 2
//!   field goals?"), moving the counted phrase to where the parse says it belongs.
//! * **Verbalising the perturbed QDMR** where the perturbation asks something the question does
//!   not say ([`from_qdmr`]): PruneStep asks the new last step's result, ReplaceArith and
//!   ChangeLast the new operation over the steps' phrases ("What is the sum of … and …?",
//!   "Is … higher than …?"), ReplaceBool the negated test; each step's phrase is its text with
//!   references replaced by the referenced steps' phrases ([`phrase`]).
//!
//! Words the steps retyped from the question are written back as the question writes them
//! ([`question_words`]: a title's capitals, a possessive, an article the annotator dropped).
//!
//! A perturbation the rules cannot write faithfully is not written: [`build_question`] returns
//! [`Unrendered`] with the reason (counted per kind by the caller), never a broken question.
//! Where the rules see more than one fluent way (e.g. "fewer" or "less" before a noun they
//! cannot tell), every rendering is returned, best guess first, for a language model to choose.

pub mod comparison_word;
pub mod from_qdmr;
pub mod phrase;
pub mod question_words;
pub mod wording;
pub mod yes_no;

use metamorph_parse::spacy::Doc;

use super::qdmr::Qdmr;
use super::types::PerturbationKind;
pub use wording::Wording;

/// What the builder reads for one perturbation.
pub struct BuildInput<'a> {
    /// The original question.
    pub question: &'a str,
    /// Its parse (the `en_core_web_sm` port), needed by the edits of the question.
    pub parse: Option<&'a Doc>,
    /// The original QDMR.
    pub original: &'a Qdmr,
    /// The perturbed QDMR.
    pub perturbed: &'a Qdmr,
    /// Which perturbation.
    pub kind: PerturbationKind,
    /// Its detail (`higher-than:5`, `comparison:highest->lowest`, …).
    pub detail: &'a str,
    /// The parser and inflection tables that make BREAK's step wording English
    /// ([`wording`]); `None` writes the steps' own words.
    pub wording: Option<Wording<'a>>,
}

/// Why a perturbation was not written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrendered {
    /// A short reason, stable enough to count by (`no how-many phrase`, …).
    pub reason: String,
}

impl Unrendered {
    pub(crate) fn new(reason: impl Into<String>) -> Self {
        Unrendered {
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for Unrendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// The follow-up question(s) for one perturbation, best guess first; or why none is written.
pub fn build_question(input: &BuildInput<'_>) -> Result<Vec<String>, Unrendered> {
    let rendered = match input.kind {
        PerturbationKind::ReplaceComp => comparison_word::replace_comp(input),
        PerturbationKind::AppendBool => yes_no::append_bool(input),
        PerturbationKind::PruneStep => from_qdmr::prune_step(input),
        PerturbationKind::ReplaceArith => from_qdmr::replace_arith(input),
        PerturbationKind::ChangeLast => from_qdmr::change_last(input),
        PerturbationKind::ReplaceBool => from_qdmr::replace_bool(input),
    }?;
    // The questions written from the decomposition's words get BREAK's wording polished; the
    // edits of the original question keep its own.
    let from_steps = !matches!(
        input.kind,
        PerturbationKind::ReplaceComp | PerturbationKind::AppendBool
    );
    let past = from_qdmr::past(input.question, input);
    let mut out: Vec<String> = Vec::new();
    let mut declined = None;
    for q in rendered {
        let q = match input.wording {
            Some(w) if from_steps => w.polish(&finish(&q), past),
            _ => q,
        };
        // The question's own capitals, possessives and articles where a step dropped them.
        let q = if from_steps {
            question_words::restore(&q, input.question)
        } else {
            q
        };
        let q = finish(&q);
        if from_steps {
            // BREAK's group-by steps ("number of #2 for each #1") read as no question.
            if q.contains(" for each ") {
                declined = Some("a group-by step (`for each`)");
                continue;
            }
            // A misspelling of the decomposition's would be copied into the question.
            if input
                .wording
                .and_then(|w| w.unknown_word(&q, input.question))
                .is_some()
            {
                declined = Some("a word of the decomposition is not English (a misspelling?)");
                continue;
            }
        }
        if !out.contains(&q) {
            out.push(q);
        }
    }
    if out.is_empty() {
        return Err(Unrendered::new(declined.unwrap_or("no rendering")));
    }
    Ok(out)
}

/// Spaces collapsed, no space before punctuation, a capital first letter and one `?`.
pub(crate) fn finish(question: &str) -> String {
    let mut text = question.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in [" ?", " ,", " .", " 's", " :", " ;", " n't"] {
        text = text.replace(p, &p[1..]);
    }
    let mut text = text.trim_end_matches(['?', '.', ' ']).to_string();
    // A quotation mark left alone ("used in \"Operation Millennium?", its closing mark went
    // with the question mark) is dropped.
    if text.matches('"').count() % 2 == 1 {
        if let Some(at) = text.rfind('"') {
            text.replace_range(at..at + 1, "");
            text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        }
    }
    let mut chars = text.chars();
    let capital = match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    };
    format!("{capital}?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finishing_tidies_spaces_capital_and_mark() {
        assert_eq!(
            finish("did  Nugent kick more than 2 field goals ?"),
            "Did Nugent kick more than 2 field goals?"
        );
        assert_eq!(
            finish("what is the sum of A 's points , B ."),
            "What is the sum of A's points, B?"
        );
        assert_eq!(
            finish("Were more than two bombers used in \"Operation Millennium?"),
            "Were more than two bombers used in Operation Millennium?"
        );
    }
}
