//! SQuAD's official answer normalisation and metrics (`evaluate-v2.0.py`): lower-case, remove
//! punctuation, remove the articles a/an/the, collapse whitespace; exact match and token F1.

use std::collections::HashMap;

/// Normalises an answer string as the SQuAD evaluation script does.
///
/// ```
/// assert_eq!(metamorph_judge::normalize_answer("The  Black Sea!"), "black sea");
/// ```
pub fn normalize_answer(s: &str) -> String {
    let lower = s.to_lowercase();
    let no_punct: String = lower.chars().filter(|c| !is_punctuation(*c)).collect();
    no_punct
        .split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Python's `string.punctuation`, the set the official script strips.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// 1.0 when the normalised answers are identical, else 0.0.
pub fn exact_match(prediction: &str, reference: &str) -> f32 {
    f32::from(u8::from(
        normalize_answer(prediction) == normalize_answer(reference),
    ))
}

/// Token-level F1 of the normalised answers; two empty answers score 1.0 (SQuAD 2.0's rule for
/// "no answer").
pub fn token_f1(prediction: &str, reference: &str) -> f32 {
    let pred = normalize_answer(prediction);
    let gold = normalize_answer(reference);
    let pred: Vec<&str> = pred.split_whitespace().collect();
    let gold: Vec<&str> = gold.split_whitespace().collect();
    if pred.is_empty() || gold.is_empty() {
        return f32::from(u8::from(pred == gold));
    }
    let mut counts: HashMap<&str, i32> = HashMap::new();
    for t in &gold {
        *counts.entry(t).or_default() += 1;
    }
    let mut common = 0;
    for t in &pred {
        if let Some(n) = counts.get_mut(t) {
            if *n > 0 {
                *n -= 1;
                common += 1;
            }
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f32 / pred.len() as f32;
    let recall = common as f32 / gold.len() as f32;
    2.0 * precision * recall / (precision + recall)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_matches_the_official_script() {
        assert_eq!(normalize_answer("The  Volga!"), "volga");
        assert_eq!(normalize_answer("an apple, a pear"), "apple pear");
        assert_eq!(exact_match("the Black Sea", "Black Sea."), 1.0);
        assert_eq!(exact_match("Black Sea", "Red Sea"), 0.0);
    }

    #[test]
    fn f1_counts_shared_tokens() {
        assert!((token_f1("the river Volga", "Volga") - 2.0 / 3.0).abs() < 1e-6);
        assert_eq!(token_f1("", ""), 1.0);
        assert_eq!(token_f1("", "Volga"), 0.0);
        assert_eq!(token_f1("Danube", "Volga"), 0.0);
    }
}
