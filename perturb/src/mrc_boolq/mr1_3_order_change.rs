//! MT4MRC MR1-3, "Inversion with Order Change": swap "before" and "after" in the question; the
//! answer must flip. Precondition: the model answered the source with Yes (the paper's
//! eligibility rule; a No source is reported as not applicable).
//!
//! The paper changes "only the first before/after"; the authors' script (`tool/MR1_3.py`)
//! instead replaces the first `" before "` if there is one and only otherwise the first
//! `" after "`. We follow **the paper**: the first occurrence of either word, matched as a whole
//! word, case-insensitively, with the original capitalisation kept ("Before" → "After").

use metamorph_data::{Case, Expectation, Result, Task};

use super::{edited_case, FAMILY};
use crate::edit::{match_case, Replacement};
use crate::{MetamorphicRelation, Source};

/// MT4MRC MR1-3 (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct OrderChange;

const NAME: &str = "MR1-3";

impl MetamorphicRelation for OrderChange {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::BoolQ]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let source = source.example;
        let Some(question) = source.question.as_deref() else {
            return Ok(Vec::new());
        };
        let Some(swap) = first_order_word(question) else {
            return Ok(Vec::new());
        };
        let start = question[..swap.byte_start].chars().count();
        let end = start + swap.original.chars().count();
        let replacement = Replacement::new(start, end, swap.replacement);
        Ok(edited_case(
            source,
            NAME,
            0,
            "question",
            vec![replacement],
            &Expectation::Inverted,
            true,
        )
        .into_iter()
        .collect())
    }
}

/// The word to swap and its replacement.
#[derive(Debug, PartialEq)]
struct Swap {
    byte_start: usize,
    byte_end: usize,
    original: String,
    replacement: String,
}

/// The first whole-word "before" or "after" in `text`, case-insensitive.
fn first_order_word(text: &str) -> Option<Swap> {
    // ASCII lower-casing keeps byte offsets valid in `text`; the words searched are ASCII.
    let lower = text.to_ascii_lowercase();
    let haystack = lower.as_str();
    let is_word_char = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '\'';
    let mut best: Option<(usize, &str, &str)> = None;
    for (word, other) in [("before", "after"), ("after", "before")] {
        let mut from = 0;
        while let Some(pos) = haystack[from..].find(word).map(|p| p + from) {
            let end = pos + word.len();
            let left_ok = !text[..pos].chars().next_back().is_some_and(is_word_char);
            let right_ok = !text[end..].chars().next().is_some_and(is_word_char);
            if left_ok && right_ok {
                if best.is_none_or(|(p, _, _)| pos < p) {
                    best = Some((pos, word, other));
                }
                break;
            }
            from = end;
        }
    }
    let (pos, word, other) = best?;
    let original = &text[pos..pos + word.len()];
    Some(Swap {
        byte_start: pos,
        byte_end: pos + word.len(),
        original: original.to_string(),
        replacement: match_case(original, other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{Example, Precondition};

    fn boolq(question: &str) -> Example {
        let mut ex = Example::new("q1", Task::BoolQ);
        ex.question = Some(question.into());
        ex.context = Some("Some passage.".into());
        ex.label = Some("yes".into());
        ex
    }

    fn followup_question(question: &str) -> Option<String> {
        let cases = OrderChange
            .follow_ups(&Source::unparsed(&boolq(question)))
            .unwrap();
        assert!(cases.len() <= 1);
        cases
            .into_iter()
            .next()
            .map(|c| c.followup.question.unwrap())
    }

    #[test]
    fn papers_example() {
        assert_eq!(
            followup_question("was the Peloponnesian War before the Persian War").as_deref(),
            Some("was the Peloponnesian War after the Persian War")
        );
    }

    #[test]
    fn first_of_either_word_wins_as_in_the_paper() {
        // The authors' script would prefer "before" here; the paper says "the first".
        assert_eq!(
            followup_question("did he leave after dinner or before noon").as_deref(),
            Some("did he leave before dinner or before noon")
        );
    }

    #[test]
    fn whole_words_only_and_case_kept() {
        assert_eq!(
            followup_question("is the afternoon session beforehand"),
            None
        );
        assert_eq!(
            followup_question("Before the war was it calm").as_deref(),
            Some("After the war was it calm")
        );
        assert_eq!(
            followup_question("is it AFTER lunch").as_deref(),
            Some("is it BEFORE lunch")
        );
        assert_eq!(
            followup_question("is it after?").as_deref(),
            Some("is it before?")
        );
        assert_eq!(followup_question("no order word here"), None);
    }

    #[test]
    fn case_fields_are_complete_and_valid() {
        let case = OrderChange
            .follow_ups(&Source::unparsed(&boolq("was rome founded before athens")))
            .unwrap()
            .remove(0);
        case.validate().unwrap();
        assert_eq!(case.case_id, "q1:MR1-3:0");
        assert_eq!(case.expectation().unwrap(), Expectation::Inverted);
        assert_eq!(
            case.precondition().unwrap(),
            Some(Precondition::SourceLabelIs {
                source: 0,
                label: "yes".into()
            })
        );
        let edit = &case.edits[0];
        assert_eq!(
            (
                edit.start,
                edit.end,
                edit.before.as_str(),
                edit.after.as_str()
            ),
            (17, 23, "before", "after")
        );
        assert_eq!(case.followup.label, None);
        assert_eq!(case.followup.context, case.sources[0].context);
    }

    #[test]
    fn non_ascii_questions_keep_offsets_in_characters() {
        let case = OrderChange
            .follow_ups(&Source::unparsed(&boolq("was müller born before 1900")))
            .unwrap()
            .remove(0);
        assert_eq!(case.edits[0].start, 16);
        assert_eq!(
            case.followup.question.as_deref(),
            Some("was müller born after 1900")
        );
    }
}
