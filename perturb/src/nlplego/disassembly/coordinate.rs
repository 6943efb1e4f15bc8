//! Which conjuncts of a coordination may be removed as an adjunct (`coordinate_span`), and the
//! word lists that keep conjuncts together.

use std::ops::Range;

use metamorph_data::Token;

use crate::syntax::Tree;

/// The broad class of a part of speech, for telling like conjuncts from a misparse
/// ("culturally and ethnically **distinct**" parsed as adverb + adjective).
fn pos_class(pos: &str) -> &str {
    match pos {
        "PROPN" | "NOUN" | "PRON" => "NOUN",
        "AUX" => "VERB",
        other => other,
    }
}

/// The first words of correlative pairs ("**both** A and B", "**either** A or B"): the pair
/// needs both halves.
pub(super) const CORRELATIVES: [&str; 4] = ["both", "either", "neither", "whether"];

/// Words after which a coordination's conjuncts are all needed: "**between** A and B",
/// "**among** A and B".
const JOINT_PREPOSITIONS: [&str; 3] = ["between", "among", "amongst"];

/// Nouns of what two or more do together: their "of" phrase's conjuncts are read jointly
/// ("formed from the association of A and B" → "the association of A", seed 20261228).
const JOINT_NOUNS: &[&str] = &[
    "association",
    "merger",
    "union",
    "alliance",
    "combination",
    "partnership",
    "marriage",
    "amalgamation",
    "collaboration",
    "cooperation",
    "coalition",
    "confluence",
    "junction",
    "mixture",
    "blend",
    "fusion",
    "consolidation",
    "relationship",
    "rivalry",
    "treaty",
    "agreement",
];

/// Words that make a sentence's coordinations read jointly ("A and B met **each other**",
/// "A and B won **respectively**").
const JOINT_MARKERS: [&str; 3] = ["respectively", "each other", "one another"];

/// The conjuncts after the first of the coordination headed by `h` ("political[, cultural and
/// military]"): from the comma or conjunction before the first `conj` child of `h` to the end
/// of the last one's subtree. `None` when `h` heads no coordination, when the run holds
/// anything else, or when dropping conjuncts changes what the rest means:
/// * a coordinated subject (the verb agrees with all of it: "Tom and Jerry **are**");
/// * numbers ("two or three days") and correlatives ("**both** A and B", "**either** A or B");
/// * conjuncts of another part of speech than the first, which is how a misparse shows
///   ("were culturally and ethnically distinct from …" with "distinct" as a conjunct);
/// * the object of "between" or "among" ("between the Epte and the Atlantic");
/// * a sentence that reads its conjuncts jointly ("respectively", "each other").
pub(super) fn coordinate_span(
    tokens: &[Token],
    tree: &Tree<'_>,
    h: usize,
    sentence: &Range<usize>,
) -> Option<Range<usize>> {
    let conjs: Vec<usize> = tree
        .children(h)
        .filter(|&c| tokens[c].dep == "conj")
        .collect();
    let &first = conjs.first()?;
    let head = &tokens[h];
    if tokens[h].dep == "conj"
        || matches!(
            head.dep.as_str(),
            "nsubj" | "nsubjpass" | "csubj" | "csubjpass"
        )
        || head.pos == "NUM"
        || conjs.iter().any(|&c| tokens[c].pos == "NUM")
        || conjs
            .iter()
            .any(|&c| pos_class(&tokens[c].pos) != pos_class(&head.pos))
        || tree.children(h).any(|c| tokens[c].dep == "preconj")
        // "a popular Gilbert and Sullivan opera": a pair of names that modifies a noun is one
        // name ("a popular Gilbert opera", the 2026-11-30 reading of WordNet's examples).
        || (head.pos == "PROPN"
            && head.head as usize > h
            && matches!(tokens[head.head as usize].pos.as_str(), "NOUN" | "PROPN"))
    {
        return None;
    }
    // A correlative before the first conjunct ("noted **both** for their culture and for …").
    let before = tree.subtree(h).start.min(h.saturating_sub(2))..first;
    if before
        .clone()
        .any(|j| CORRELATIVES.contains(&tokens[j].text.to_lowercase().as_str()))
    {
        return None;
    }
    let governor = &tokens[head.head as usize];
    if head.dep == "pobj" && JOINT_PREPOSITIONS.contains(&governor.text.to_lowercase().as_str()) {
        return None;
    }
    // "the association of A and B": the noun names what the conjuncts do together (the
    // parser often makes B a conjunct of the noun itself).
    let joint = |t: &Token| JOINT_NOUNS.contains(&t.lemma.to_lowercase().as_str());
    if joint(head)
        || (head.dep == "pobj"
            && governor.text.eq_ignore_ascii_case("of")
            && joint(&tokens[governor.head as usize]))
    {
        return None;
    }
    // "Her children were A, B and C": one name left for a plural subject ("parents are
    // William J. .", review of seed 20261228).
    // "two leagues … : the Grampian League and the Highland League": names in apposition to a
    // plural (seed 20270103).
    if head.dep == "appos" && matches!(governor.tag.as_str(), "NNS" | "NNPS") {
        return None;
    }
    // "council members Debi Salberg, Kathy Hart and Anne Tolan": a plural noun naming them all.
    if tokens.iter().any(|t| {
        t.head as usize == h && t.dep == "compound" && matches!(t.tag.as_str(), "NNS" | "NNPS")
    }) {
        return None;
    }
    if head.dep == "attr"
        && matches!(head.tag.as_str(), "NN" | "NNP")
        && tokens.iter().any(|t| {
            t.head == head.head
                && matches!(t.dep.as_str(), "nsubj" | "nsubjpass")
                && matches!(t.tag.as_str(), "NNS" | "NNPS")
        })
    {
        return None;
    }
    let text: String = sentence
        .clone()
        .map(|j| tokens[j].text.to_lowercase() + " ")
        .collect();
    if JOINT_MARKERS
        .iter()
        .any(|m| text.contains(&format!("{m} ")))
    {
        return None;
    }
    // Each conjunct's subtree, found once: the joiner test below asks about every token.
    let subtrees: Vec<Range<usize>> = conjs.iter().map(|&c| tree.subtree(c)).collect();
    let (first_span, last_span) = (&subtrees[0], &subtrees[subtrees.len() - 1]);
    let in_conjunct = |j: usize| subtrees.iter().any(|s| s.contains(&j));
    let joiner = |j: usize| {
        let t = &tokens[j];
        (t.text == "," || t.dep == "cc") && (t.head as usize == h || in_conjunct(t.head as usize))
    };
    let mut start = first_span.start;
    if start <= h {
        return None;
    }
    while start > h + 1 && joiner(start - 1) {
        start -= 1;
    }
    let mut end = last_span.end;
    // The sentence's full stop may hang from the last conjunct's verb; it stays.
    while end > start && tokens[end - 1].pos == "PUNCT" {
        end -= 1;
    }
    let span = start..end;
    // Conjuncts right before a verb are most likely its subject, misparsed ("including the
    // Langi, Acholi and Alur, the Luo do not …"); removing them would take the subject along.
    if tokens
        .get(end)
        .is_some_and(|t| matches!(t.pos.as_str(), "VERB" | "AUX"))
    {
        return None;
    }
    // A run of whole conjuncts and their joiners: nothing of `h`'s own phrase inside it.
    let whole = span.clone().all(|j| in_conjunct(j) || joiner(j));
    (whole && span.start < first_span.start).then_some(span)
}
