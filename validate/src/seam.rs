//! Where a relation cut a phrase out of the middle of a dataset text it built its source from
//! (NLPLego-SA's and -SSM's parents and children): the *seams* the `lm_seam` check reads.
//!
//! A cut at a sentence's end shows as an ending the LM finds improbable (`lm_ending`); a cut in
//! the middle shows in the words after the gap ("He spoke loud [enough for those at the back
//! of the room] to hear"), which lose probability against the same words after the dataset
//! text's own words. The words of the built text are aligned with the dataset text's by a
//! longest common subsequence (compared without case); wherever two consecutive aligned words
//! of the built text have dataset words between them, the second starts a seam (unless only
//! punctuation follows: an ending, which `lm_ending` reads). Measured on
//! 758 judged NLPLego rows, the seam and the ending catch different bad parents
//! (`docs/validity/calibration/seam.md`).
//!
//! A cut at the end that leaves a grammatical sentence ("Responsibility turned the spoiled
//! playboy [into a serious adult].") is neither: the ending check finds its full stop likely
//! enough. [`end_cut`] finds such an end, where the built text's last word is aligned with a
//! dataset word that more words follow, for the `lm_end_cut` check, which asks whether the LM
//! expects the dataset's next word more than the full stop.

use metamorph_data::alignment::longest_common_subsequence;

/// One seam: the words after a gap, read after the built text's words and after the dataset
/// text's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Seam {
    /// The built text's words before the seam.
    pub prefix: String,
    /// The dataset text's words before the same words.
    pub original_prefix: String,
    /// The (up to two) words after the gap.
    pub words: String,
}

/// The longest texts aligned (words each): the alignment is quadratic, and a sentence NLPLego
/// builds is far shorter.
const MAX_WORDS: usize = 400;

/// The seams of `text` against `original`, the dataset text it was built from; none when no
/// phrase was cut from between two of its words (or a text is longer than [`MAX_WORDS`]).
pub fn seams(text: &str, original: &str) -> Vec<Seam> {
    let built: Vec<&str> = text.split_whitespace().collect();
    let source: Vec<&str> = original.split_whitespace().collect();
    if built.len() > MAX_WORDS || source.len() > MAX_WORDS {
        return Vec::new();
    }
    let pairs = aligned(&built, &source);
    pairs
        .windows(2)
        .filter(|w| w[1].1 > w[0].1 + 1)
        .map(|w| {
            let (i, j) = w[1];
            Seam {
                prefix: built[..i].join(" "),
                original_prefix: source[..j].join(" "),
                words: built[i..(i + 2).min(built.len())].join(" "),
            }
        })
        // Only punctuation after the gap is an ending ("The group toured extensively ."),
        // which `lm_ending` reads.
        .filter(|seam| seam.words.chars().any(char::is_alphanumeric))
        .collect()
}

/// A built text that ends where its dataset text went on: its words before the final
/// punctuation, the punctuation, and the dataset text's word after the last of them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EndCut {
    /// The built text's words before its final punctuation.
    pub prefix: String,
    /// The final punctuation (a run of `.`, `!`, `?`).
    pub punctuation: String,
    /// The dataset text's word after the one the built text ends with.
    pub next: String,
}

/// Where `text` ends at a cut of `original`, the dataset text it was built from: `text` ends
/// with `.`, `!` or `?` after at least two words, its last word is aligned (without case, and
/// without the dataset word's own final punctuation) with a word of `original`, and a word
/// with a letter or digit follows that one there. `None` otherwise (a text that ends where the
/// dataset text does, or ends another way, or is longer than [`MAX_WORDS`]).
pub fn end_cut(text: &str, original: &str) -> Option<EndCut> {
    let is_end = |c: char| matches!(c, '.' | '!' | '?');
    let whole = text.trim_end();
    let body = whole.trim_end_matches(is_end);
    let punctuation = &whole[body.len()..];
    if punctuation.is_empty() {
        return None;
    }
    let built: Vec<&str> = body.split_whitespace().collect();
    let source: Vec<&str> = original.split_whitespace().collect();
    if built.len() < 2 || built.len() > MAX_WORDS || source.len() > MAX_WORDS {
        return None;
    }
    let bare: Vec<&str> = source.iter().map(|w| w.trim_end_matches(is_end)).collect();
    let &(last, j) = aligned(&built, &bare).last()?;
    let next = source.get(j + 1)?;
    (last + 1 == built.len() && next.chars().any(char::is_alphanumeric)).then(|| EndCut {
        prefix: built.join(" "),
        punctuation: punctuation.to_string(),
        next: next.to_string(),
    })
}

/// The aligned word pairs `(index in a, index in b)` of a longest common subsequence of `a`
/// and `b`, compared without case, in order.
fn aligned(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let lower =
        |words: &[&str]| -> Vec<String> { words.iter().map(|w| w.to_lowercase()).collect() };
    let (a, b) = (lower(a), lower(b));
    longest_common_subsequence(a.len(), b.len(), |i, j| a[i] == b[j])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_cut_from_the_middle_is_a_seam_before_the_words_after_it() {
        let s = seams(
            "He spoke loud to hear him.",
            "He spoke loud enough for those at the back of the room to hear him.",
        );
        assert_eq!(
            s,
            vec![Seam {
                prefix: "He spoke loud".into(),
                original_prefix: "He spoke loud enough for those at the back of the room".into(),
                words: "to hear".into(),
            }]
        );
    }

    #[test]
    fn cuts_at_the_start_or_end_and_whole_texts_are_no_seams() {
        let original = "In 2002, the band released a new album in Europe.";
        assert!(seams("the band released a new album in Europe.", original).is_empty());
        assert!(seams("In 2002, the band released a new album", original).is_empty());
        assert!(seams(original, original).is_empty());
        // Tokenized text's final stop after a gap is an ending, not a seam.
        assert!(seams(
            "The group toured extensively .",
            "The group toured extensively and became famous ."
        )
        .is_empty());
    }

    #[test]
    fn a_text_ending_where_the_dataset_text_goes_on_is_an_end_cut() {
        let original = "Responsibility turned the spoiled playboy into a serious adult.";
        assert_eq!(
            end_cut("Responsibility turned the spoiled playboy.", original),
            Some(EndCut {
                prefix: "Responsibility turned the spoiled playboy".into(),
                punctuation: ".".into(),
                next: "into".into(),
            })
        );
        // Tokenized text: the stop is a word of its own; a gap in the middle does not matter.
        let cut = end_cut(
            "the food was good .",
            "the food was really good and the staff friendly .",
        )
        .unwrap();
        assert_eq!(
            (cut.prefix.as_str(), cut.next.as_str()),
            ("the food was good", "and")
        );
    }

    #[test]
    fn a_text_ending_with_its_dataset_text_or_without_a_stop_is_no_end_cut() {
        let original = "The band released a new album in Europe.";
        assert_eq!(
            end_cut("The band released a new album.", original)
                .unwrap()
                .next,
            "in"
        );
        // Ends as the dataset text does (its own stop compared bare).
        assert!(end_cut("The band released an album in Europe.", original).is_none());
        assert!(end_cut("The band released an album in Europe!", original).is_none());
        // No final stop, one word, or only punctuation after the cut.
        assert!(end_cut("The band released a new album", original).is_none());
        assert!(end_cut("Released.", original).is_none());
        assert!(end_cut("It was good .", "It was good , !").is_none());
        // The last word is not the dataset's.
        assert!(end_cut("The band released a record.", original).is_none());
    }

    #[test]
    fn case_does_not_break_the_alignment_and_the_last_word_stands_alone() {
        let s = seams("Later the band split.", "Later that year the band split.");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].words, "the band");
        let s = seams("The film was good.", "The film was really GOOD.");
        assert_eq!(s[0].words, "good.");
        assert_eq!(s[0].original_prefix, "The film was really");
    }
}
