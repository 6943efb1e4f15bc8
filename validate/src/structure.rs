//! The structure check: the changed sentences, re-parsed, keep the structure a relation relies
//! on — each sentence's root part of speech and the dependency labels of the root's core
//! arguments (subjects, objects, complements). A substitution that the parser reads as another
//! part of speech ("the seat" → "the arse" read as a verb phrase), or a clause that loses its
//! subject, changes it.

use metamorph_data::ParsedText;

/// The dependency labels (spaCy's ClearNLP set) of a root's core arguments.
const CORE: &[&str] = &[
    "nsubj",
    "nsubjpass",
    "csubj",
    "csubjpass",
    "expl",
    "dobj",
    "dative",
    "iobj",
    "attr",
    "acomp",
    "oprd",
    "ccomp",
    "xcomp",
    "agent",
];

/// The core structure of a parse: per sentence, `ROOT:<pos>` and one `<dep>` per core argument
/// of the root, in order.
pub fn signature(parse: &ParsedText) -> Vec<String> {
    let mut out = Vec::new();
    for (k, sentence) in parse.sentences.iter().enumerate() {
        let range = sentence.start as usize..sentence.end as usize;
        for i in range.clone() {
            let token = &parse.tokens[i];
            if token.head as usize == i || token.dep == "ROOT" {
                out.push(format!("{k}:ROOT:{}", token.pos));
                for j in range.clone() {
                    let child = &parse.tokens[j];
                    if j != i && child.head as usize == i && CORE.contains(&child.dep.as_str()) {
                        out.push(format!("{k}:{}", child.dep));
                    }
                }
                break;
            }
        }
    }
    out
}

/// How much of `before`'s core structure `after` keeps: |common| / |union| of the two
/// signatures as multisets (1 when both are empty).
pub fn kept(before: &[String], after: &[String]) -> f32 {
    let mut rest: Vec<&String> = after.iter().collect();
    let mut common = 0;
    for item in before {
        if let Some(i) = rest.iter().position(|x| *x == item) {
            rest.swap_remove(i);
            common += 1;
        }
    }
    let union = before.len() + after.len() - common;
    if union == 0 {
        1.0
    } else {
        common as f32 / union as f32
    }
}

#[cfg(test)]
mod tests {
    use super::kept;

    #[test]
    fn overlap_is_a_multiset_jaccard() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            kept(
                &s(&["0:ROOT:VERB", "0:nsubj"]),
                &s(&["0:ROOT:VERB", "0:nsubj"])
            ),
            1.0
        );
        assert_eq!(
            kept(
                &s(&["0:ROOT:VERB", "0:nsubj"]),
                &s(&["0:ROOT:NOUN", "0:nsubj"])
            ),
            1.0 / 3.0
        );
        assert_eq!(kept(&[], &[]), 1.0);
    }
}
