//! Adjunct candidates from the dependency parse and the phrase view ([`candidates`]), with the
//! word lists and rules that decide which modifiers, phrases and clauses are candidates.

use std::ops::Range;

use metamorph_data::{ParsedText, Token};

use super::adjunct::{Adjunct, AdjunctKind};
use super::basic::{basic_elements, is_complement, is_finite, trim, LIGHT_NOUNS, PARTICLES};
use super::coordinate::{coordinate_span, CORRELATIVES};
use crate::lexicon::wordnet::{lexfile, Pos as WordNetPos, WordNet};
use crate::syntax::Tree;

/// Words whose presence rules out an adjective or adverb candidate (the authors' code; "than",
/// ours: "anything better than a root beer float" → "anything", seed 20261231).
const MODIFIER_STOPS: [&str; 5] = ["of", "too", "as", "how", "than"];

/// Negating adverbs, never adjuncts (removing one inverts the sentence).
const NEGATIONS: [&str; 5] = ["not", "n't", "never", "no", "nt"];

/// Focus and aspect adverbs, never adjuncts: they change what the sentence claims ("they only
/// serve" → "they serve", "I no longer eat" → "I eat", "has a few sizes only"; review of
/// seed 20261227 found such parents unnatural in NLPLego-SA).
const FOCUS_ADVERBS: [&str; 12] = [
    "only", "just", "even", "still", "already", "longer", "anymore", "ever", "almost", "nearly",
    "merely", "barely",
];

/// Connecting adverbs, never adjuncts: they join two clauses, and without one the clauses run
/// on ("no parking, so I was very worried" → "no parking, I was very worried", review of seed
/// 20261228).
const CONNECTING_ADVERBS: [&str; 8] = [
    "so",
    "then",
    "thus",
    "therefore",
    "hence",
    "otherwise",
    "yet",
    "however",
];

/// Adverbs that place a noun in time ("the day **before**", "a year **later**"): without one the
/// noun names another time ("I normally call the day .", seed 20261231). The parser often hangs
/// them from the verb, so one right after a noun counts too.
const RELATIVE_TIME_ADVERBS: [&str; 8] = [
    "before",
    "after",
    "ago",
    "earlier",
    "later",
    "prior",
    "beforehand",
    "afterwards",
];

/// Words that open a phrase about the phrase before them ("found in Africa, **including** South
/// Africa"): what they refer back to must stay.
const BACK_REFERENCES: [&str; 7] = [
    "including",
    "especially",
    "particularly",
    "notably",
    "mainly",
    "mostly",
    "except",
];

/// Whether the phrase right after `core` (past one comma) refers back to it.
fn refers_back(tokens: &[Token], core: &Range<usize>) -> bool {
    let mut next = core.end;
    if tokens.get(next).is_some_and(|t| t.text == ",") {
        next += 1;
    }
    tokens
        .get(next)
        .is_some_and(|t| BACK_REFERENCES.contains(&t.text.to_lowercase().as_str()))
}

/// Whether `core` is fronted before the root of an inverted or subjectless clause ("In the
/// reviews below will be the rating"): with no subject before its verb, the clause needs it.
fn fronts_an_inversion(tokens: &[Token], core: &Range<usize>) -> bool {
    let Some(root) = core
        .clone()
        .map(|j| tokens[j].head as usize)
        .find(|h| !core.contains(h))
    else {
        return false;
    };
    if core.end > root || tokens[root].head as usize != root {
        return false;
    }
    let subject_before = tokens.iter().enumerate().any(|(j, t)| {
        t.head as usize == root
            && j < root
            && !core.contains(&j)
            && matches!(t.dep.as_str(), "nsubj" | "nsubjpass" | "expl" | "csubj")
    });
    !subject_before
}

/// Whether the adjective `adjective` and its noun `head` are one WordNet noun ("hot dog", "big
/// box", "high school", "real estate"): the adjective is part of the name, and "the original
/// dog" (review of seed 20261227) names something else.
/// WordNet writes some such nouns closed up ("closeup" for "close ups", read 2026-12-02 on
/// review sentences).
fn names_a_thing_with(wordnet: &WordNet, adjective: &str, head: &Token) -> bool {
    let noun = head.lemma.to_lowercase();
    matches!(head.pos.as_str(), "NOUN" | "PROPN")
        && [format!("{adjective} {noun}"), format!("{adjective}{noun}")]
            .iter()
            .any(|form| !wordnet.synsets(form, WordNetPos::Noun).is_empty())
}

/// Whether `core` is the second half of a comparison, or what holds its two halves together:
/// a phrase opening with "as" or "than" after "as", "so", "more", "less" or a comparative
/// ("nearly as clean as I would have preferred" → "nearly as clean .", "as much source
/// material as possible"), or the "well" of "as well as" ("special as as the crab dip"; review
/// of seed 20261225). "other than" and "rather than" count too ("Nothing spectacular about this
/// place, other .", seed 20261229).
fn completes_a_comparison(tokens: &[Token], core: &Range<usize>) -> bool {
    let word = |i: usize| tokens[i].text.to_lowercase();
    let first = word(core.start);
    if core.len() == 1
        && first == "well"
        && core.start > 0
        && word(core.start - 1) == "as"
        && core.end < tokens.len()
        && word(core.end) == "as"
    {
        return true;
    }
    (first == "as" || first == "than")
        && (core.start.saturating_sub(5)..core.start).any(|j| {
            matches!(
                word(j).as_str(),
                "as" | "so" | "more" | "less" | "other" | "rather" | "different"
            ) || matches!(tokens[j].tag.as_str(), "JJR" | "RBR")
        })
}

/// Adjectives that make a compound with the word before them ("gluten free", "kid friendly").
const SUFFIX_ADJECTIVES: [&str; 9] = [
    "free",
    "friendly",
    "proof",
    "resistant",
    "based",
    "related",
    "shaped",
    "sized",
    "rich",
];

/// Whether the adjective at `i` is half of a compound adjective with a following or preceding
/// "-ed" adjective ("a curly haired employee" → "a curly employee", seed 20261229), or the
/// second half after the word it compounds with ("gluten free pizzas"): the pair describes one
/// feature, and neither half is an adjunct alone.
fn in_compound_adjective(tokens: &[Token], i: usize) -> bool {
    let t = &tokens[i];
    // "high-energy particles": the adjective is glued to a hyphen ("are-energy particles").
    if t.whitespace.is_empty() && tokens.get(i + 1).is_some_and(|n| n.text == "-") {
        return true;
    }
    let ed_adjective =
        |u: &Token| u.dep == "amod" && u.head == t.head && u.text.to_lowercase().ends_with("ed");
    let next = tokens.get(i + 1).is_some_and(ed_adjective);
    // "gluten free", "family friendly": the word before is half of the adjective.
    let after_a_word = i > 0
        && SUFFIX_ADJECTIVES.contains(&t.text.to_lowercase().as_str())
        && matches!(tokens[i - 1].pos.as_str(), "NOUN" | "PROPN" | "VERB");
    if after_a_word {
        return true;
    }
    let previous =
        i > 0 && ed_adjective(t) && tokens[i - 1].pos == "ADJ" && tokens[i - 1].head == t.head;
    next || previous
}

/// Whether `core` is an infinitive that completes a noun ("no need [to worry]", "in order [to
/// win its first title]"): without it the noun is left hanging ("there was no need", "defeated
/// Harvard 3-1-1 in order ."; review of seed 20261229).
fn completes_a_noun(tokens: &[Token], core: &Range<usize>) -> bool {
    let first = &tokens[core.start];
    if first.tag != "TO" {
        return false;
    }
    let verb = &tokens[first.head as usize];
    let noun_clause = verb.dep == "acl"
        && matches!(
            tokens[verb.head as usize].pos.as_str(),
            "NOUN" | "PROPN" | "PRON"
        );
    let in_order = core.start >= 2
        && tokens[core.start - 1].text.eq_ignore_ascii_case("order")
        && tokens[core.start - 2].text.eq_ignore_ascii_case("in");
    noun_clause || in_order
}

/// Whether the adjective at `i` classifies its noun rather than describing it: a proper
/// adjective (part of an entity, or capitalised inside its sentence: "the **French** words",
/// "**Frankish** wives") or a relational one, whose most frequent WordNet sense is a pertainym
/// (`adj.pert`: "**military** accomplishments", "the **administrative** structure", "the
/// **Atlantic** coast"). Without it the phrase names something else ("the coast"), which is
/// not the optional detail an adjunct is; the authors' compressor (SLAHAN) keeps these too.
fn classifies(tokens: &[Token], i: usize, sentence_start: usize, wordnet: &WordNet) -> bool {
    let t = &tokens[i];
    let capitalised = t.text.chars().next().is_some_and(char::is_uppercase);
    if !t.ent_type.is_empty() || (capitalised && i != sentence_start) {
        return true;
    }
    wordnet
        .synsets(&t.text.to_lowercase(), WordNetPos::Adj)
        .first()
        .is_some_and(|sense| sense.lex_filenum() == lexfile::ADJ_PERT)
}

/// Whether the adjective at `i` or one coordinated with it classifies (see [`classifies`]):
/// "political, cultural and **military**" is then not removed whole, only its later conjuncts
/// are (an [`AdjunctKind::Coordinate`]).
fn classifies_coordination(
    tokens: &[Token],
    tree: &Tree<'_>,
    i: usize,
    sentence_start: usize,
    wordnet: &WordNet,
) -> bool {
    classifies(tokens, i, sentence_start, wordnet)
        || tree
            .children(i)
            .filter(|&c| tokens[c].dep == "conj")
            .any(|c| classifies_coordination(tokens, tree, c, sentence_start, wordnet))
}

/// Adjectives that quantify or identify rather than describe: without them a sentence says
/// something else ("**Most** knights remained poor", "Normans and not **other** Frenchmen",
/// "the **first** half", "the **same** period").
const QUANTIFYING_ADJECTIVES: &[&str] = &[
    "many",
    "most",
    "few",
    "fewer",
    "fewest",
    "several",
    "much",
    "more",
    "less",
    "least",
    "enough",
    "numerous",
    "other",
    "another",
    "same",
    "such",
    "only",
    "sole",
    "first",
    "last",
    "next",
    "previous",
    "former",
    "latter",
    "certain",
    "entire",
    "whole",
    "additional",
    "further",
    "remaining",
    // What singles out one of the speaker's: "it is my **favorite** lunch downtown" → "my lunch
    // downtown" (seed 20261231).
    "favorite",
    "favourite",
    "usual",
    "own",
    "main",
];

/// Whether `t` is an ordinal ("10th", "second"): it picks which one, as a number does.
fn is_ordinal(t: &Token) -> bool {
    let lower = t.text.to_lowercase();
    const ORDINALS: [&str; 12] = [
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "twentieth",
    ];
    ORDINALS.contains(&lower.as_str())
        || (lower.starts_with(|c: char| c.is_ascii_digit())
            && ["st", "nd", "rd", "th"].iter().any(|s| lower.ends_with(s)))
}

/// The bracketed asides of `sentence`: each `(`…`)` or `[`…`]` pair, brackets included.
fn parentheticals(tokens: &[Token], sentence: &Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Vec<(usize, &str)> = Vec::new();
    for j in sentence.clone() {
        match tokens[j].text.as_str() {
            "(" => open.push((j, ")")),
            "[" => open.push((j, "]")),
            close @ (")" | "]") => match open.pop() {
                Some((o, expected)) if expected == close => {
                    // Only the outermost pair: an aside inside an aside goes with it.
                    if open.is_empty() && j > o + 1 {
                        out.push(o..j + 1);
                    }
                }
                _ => return out,
            },
            _ => {}
        }
    }
    out
}

/// The adjunct candidates of `parsed`, before the keep-test: their kinds and token ranges
/// (attached commas included), without duplicates, longest first. `wordnet` tells relational
/// adjectives (see `classifies`).
pub fn candidates(parsed: &ParsedText, wordnet: &WordNet) -> Vec<Adjunct> {
    let tokens = &parsed.tokens;
    let tree = Tree::new(parsed);
    let basic = basic_elements(tokens);
    // (kind, the words, the tokens removed with them when not the words plus their commas)
    let mut spans: Vec<(AdjunctKind, Range<usize>, Option<Range<usize>>)> = Vec::new();
    // Tokens of a sentence without a verb ("The nastiest and greasiest onion rings around."):
    // there the adjectives are what it says, not adjuncts (seed 20261230).
    let mut verbless = vec![false; tokens.len()];
    for sentence in tree.sentences() {
        if !sentence
            .clone()
            .any(|j| matches!(tokens[j].pos.as_str(), "VERB" | "AUX"))
        {
            for j in sentence {
                verbless[j] = true;
            }
        }
    }
    for (i, t) in tokens.iter().enumerate() {
        let has_children = tree.children(i).next().is_some();
        let head = &tokens[t.head as usize];
        let lower = t.text.to_lowercase();
        let sentence = tree.sentence_of(i);
        if let Some(span) = coordinate_span(tokens, &tree, i, &sentence) {
            spans.push((AdjunctKind::Coordinate, span.clone(), Some(span)));
        }
        let kind = match (t.dep.as_str(), t.pos.as_str()) {
            ("amod", "ADJ")
                if head.pos != "ADP"
                    && !names_a_thing_with(wordnet, &lower, head)
                    && !tokens.get(i + 1).is_some_and(|next| {
                        next.dep == "compound" && names_a_thing_with(wordnet, &lower, next)
                    })
                    && !QUANTIFYING_ADJECTIVES.contains(&lower.as_str())
                    && !is_ordinal(t)
                    && !LIGHT_NOUNS.contains(&head.lemma.to_lowercase().as_str())
                    && !in_compound_adjective(tokens, i)
                    && !verbless[i]
                    && !tree.subtree(i).any(|j| {
                        tokens[j].dep == "conj"
                            && matches!(tokens[j].pos.as_str(), "NOUN" | "PROPN")
                    })
                    && !classifies_coordination(tokens, &tree, i, sentence.start, wordnet) =>
            {
                AdjunctKind::Adjective
            }
            ("advmod", "ADV")
                if t.tag != "WRB"
                    && !NEGATIONS.contains(&lower.as_str())
                    && !FOCUS_ADVERBS.contains(&lower.as_str())
                    && !CONNECTING_ADVERBS.contains(&lower.as_str())
                    && !CORRELATIVES.contains(&lower.as_str())
                    && !PARTICLES.contains(&lower.as_str())
                    && !(RELATIVE_TIME_ADVERBS.contains(&lower.as_str())
                        && (head.pos == "NOUN" || (i > 0 && tokens[i - 1].pos == "NOUN")))
                    && !is_complement(tokens, i) =>
            {
                AdjunctKind::Adverb
            }
            ("prep", "ADP") if has_children && !is_complement(tokens, i) => {
                AdjunctKind::Prepositional
            }
            // "The most abject slaves joined in the uprising" read as a noun with a reduced
            // relative: the "clause" is the sentence's predicate ("The most abject slaves .").
            ("acl", "VERB")
                if has_children && !complement_clause(tokens, &tree, i) && head.dep != "ROOT" =>
            {
                AdjunctKind::Verbal
            }
            ("relcl" | "advcl", _) if is_adjunct_clause(tokens, &tree, i) => AdjunctKind::Clause,
            // Set off by a comma: "Normandy, a region in France".
            ("appos", _)
                if tree
                    .subtree(i)
                    .start
                    .checked_sub(1)
                    .is_some_and(|j| tokens[j].text == ",") =>
            {
                AdjunctKind::Appositive
            }
            _ => continue,
        };
        spans.push((kind, tree.subtree(i), None));
    }
    for sentence in tree.sentences() {
        for span in parentheticals(tokens, &sentence) {
            spans.push((AdjunctKind::Parenthetical, span.clone(), Some(span)));
        }
    }
    for phrase in &parsed.phrases {
        if phrase.label == "SBAR" && phrase.end > phrase.start + 1 {
            let range = phrase.start as usize..phrase.end as usize;
            // The clause's head: the token whose head lies outside the span.
            let head = range.clone().find(|&j| {
                !range.contains(&(tokens[j].head as usize)) || tokens[j].head as usize == j
            });
            let adjunct_clause = head.is_some_and(|h| match tokens[h].dep.as_str() {
                "relcl" | "advcl" => is_adjunct_clause(tokens, &tree, h),
                // A noun's "that" clause is its complement, not a relative clause: "in the
                // sense that foam packing is edible", "the fact that it rained".
                "acl" => !complement_clause(tokens, &tree, h),
                _ => false,
            });
            if adjunct_clause {
                spans.push((AdjunctKind::Clause, range, None));
            }
        }
    }
    let mut out: Vec<Adjunct> = Vec::new();
    for (kind, range, removed) in spans {
        let Some(core) = trim(tokens, range) else {
            continue;
        };
        let span = removed.clone().unwrap_or_else(|| core.clone());
        let holds_basic = match kind {
            // The brackets bound the aside, whatever the parser made of its words; the
            // keep-test still re-parses the sentence without it.
            AdjunctKind::Parenthetical => false,
            // A coordinate may hold a clause of its own (its subject, its verb), not a basic
            // element of the clause around it.
            AdjunctKind::Coordinate => span.clone().any(|j| {
                let (t, h) = (&tokens[j], tokens[j].head as usize);
                let joins = t.dep == "cc" || t.pos == "PUNCT" || t.dep == "conj";
                basic[j] && (h == j || !span.contains(&h)) && !joins
            }),
            _ => core.clone().any(|j| basic[j]),
        };
        if holds_basic || cuts_entity(tokens, &core) {
            continue;
        }
        // An adjective whose adverb or negation stayed outside it would leave it dangling
        // ("vague, virtually deliberately sounds", "in the not future").
        let dangling_adverb = kind == AdjunctKind::Adjective
            && core.start > 0
            && matches!(tokens[core.start - 1].pos.as_str(), "ADV" | "PART");
        if dangling_adverb
            || needed_by_its_head(tokens, &tree, &core, kind, wordnet)
            || completes_a_noun(tokens, &core)
            || refers_back(tokens, &core)
            || fronts_an_inversion(tokens, &core)
            || completes_a_comparison(tokens, &core)
        {
            continue;
        }
        let words: Vec<String> = core
            .clone()
            .map(|j| tokens[j].text.to_lowercase())
            .collect();
        if matches!(kind, AdjunctKind::Adjective | AdjunctKind::Adverb)
            && words.iter().any(|w| MODIFIER_STOPS.contains(&w.as_str()))
        {
            continue;
        }
        // A wh-word outside a clause is a question's (kept); a coordinate, an aside or an
        // apposition may hold a relative clause of its own, so for them only questions count.
        let sentence = tree.sentence_of(core.start);
        let question = tokens[sentence.end - 1].text == "?";
        if kind != AdjunctKind::Clause
            && (question
                || !matches!(
                    kind,
                    AdjunctKind::Coordinate | AdjunctKind::Parenthetical | AdjunctKind::Appositive
                ))
            && core
                .clone()
                .any(|j| matches!(tokens[j].tag.as_str(), "WDT" | "WP" | "WP$" | "WRB"))
        {
            continue;
        }
        // What remains must still hold a word of its own sentence besides punctuation.
        let rest = sentence
            .clone()
            .filter(|j| !core.contains(j) && tokens[*j].pos != "PUNCT")
            .count();
        if rest < 2 {
            continue;
        }
        let tokens_range = removed.unwrap_or_else(|| attach_commas(tokens, &core, &sentence));
        if out.iter().any(|a| a.tokens == tokens_range) {
            continue;
        }
        out.push(Adjunct {
            kind,
            tokens: tokens_range,
            core,
        });
    }
    out.sort_by_key(|a| (std::cmp::Reverse(a.tokens.len()), a.tokens.start));
    out
}

/// Whether the modifier `core` is one its head cannot do without (the 2026-11-30 reading of
/// WordNet's usage examples, text no NLPLego rule had seen):
/// * "well" or "ill" before a participle or adjective: "He was [well] behaved";
/// * an adjective or phrase of a bare singular noun after a preposition, which reads as an idiom
///   or a clipped phrase without it: "a player with ball [in hand]", "upon [festive] occasion";
/// * an adjective of a body part that is had: "He had an [itchy] toe" says nothing without it;
/// * a "before"/"after" phrase of a day, week or year: "the day [before the wedding]".
fn needed_by_its_head(
    tokens: &[Token],
    tree: &Tree<'_>,
    core: &Range<usize>,
    kind: AdjunctKind,
    wordnet: &WordNet,
) -> bool {
    let top = core
        .clone()
        .find(|&j| !core.contains(&(tokens[j].head as usize)));
    let Some(top) = top else {
        return false;
    };
    let t = &tokens[top];
    let head_index = t.head as usize;
    let head = &tokens[head_index];
    if kind == AdjunctKind::Adverb {
        return matches!(t.text.to_lowercase().as_str(), "well" | "ill")
            && matches!(head.tag.as_str(), "VBN" | "JJ");
    }
    if !matches!(kind, AdjunctKind::Adjective | AdjunctKind::Prepositional) {
        return false;
    }
    let determined = tree.children(head_index).any(|c| {
        matches!(
            tokens[c].dep.as_str(),
            "det" | "poss" | "nummod" | "compound"
        )
    });
    let bare_after_preposition = head.tag == "NN" && head.dep == "pobj" && !determined;
    // "will be held the day [before the wedding]": a day or week placed by what it precedes
    // or follows is not the same time without it.
    let placed_in_time = kind == AdjunctKind::Prepositional
        && matches!(t.text.to_lowercase().as_str(), "before" | "after")
        && (TIME_NOUNS.contains(&head.lemma.to_lowercase().as_str())
            // The parser often hangs the phrase on the verb: one right after the noun counts.
            || (core.start > 0
                && TIME_NOUNS.contains(&tokens[core.start - 1].lemma.to_lowercase().as_str())));
    let had_body_part = kind == AdjunctKind::Adjective
        && head.dep == "dobj"
        && tokens[head.head as usize]
            .lemma
            .eq_ignore_ascii_case("have")
        && wordnet
            .synsets(&head.lemma.to_lowercase(), WordNetPos::Noun)
            .first()
            .is_some_and(|sense| sense.lex_filenum() == lexfile::NOUN_BODY);
    bare_after_preposition || had_body_part || placed_in_time
}

/// Nouns of a time span that a "before"/"after" phrase places.
const TIME_NOUNS: [&str; 8] = [
    "day", "night", "morning", "evening", "week", "month", "year", "weekend",
];

/// Whether `range` holds part of a named entity but not all of it.
fn cuts_entity(tokens: &[Token], range: &Range<usize>) -> bool {
    let inside = |j: usize| !tokens[j].ent_type.is_empty() && tokens[j].ent_iob != "O";
    let continues = |j: usize| inside(j) && tokens[j].ent_iob == "I";
    (range.start < tokens.len() && continues(range.start))
        || (range.end < tokens.len() && continues(range.end))
}

/// `core` with the commas that travel with it (see the module docs).
fn attach_commas(tokens: &[Token], core: &Range<usize>, sentence: &Range<usize>) -> Range<usize> {
    let comma = |j: usize| tokens.get(j).is_some_and(|t| t.text == ",");
    let before_comma = core.start > sentence.start && comma(core.start - 1);
    let after_comma = core.end < sentence.end && comma(core.end);
    let at_start = core.start == sentence.start;
    let before_end = core.end == sentence.end
        || (core.end < sentence.end
            && tokens[core.end].pos == "PUNCT"
            && !comma(core.end)
            && core.end + 1 == sentence.end);
    if at_start && after_comma {
        core.start..core.end + 1
    } else if before_comma && after_comma {
        core.start - 1..core.end + 1
    } else if before_comma && before_end {
        core.start - 1..core.end
    } else {
        core.clone()
    }
}

/// Whether the `acl` clause headed by `h` is its noun's complement, introduced by the
/// conjunction "that" ("in the sense **that** foam packing is edible", "the fact **that** it
/// rained"), not a relative clause: without it the noun is left unfinished.
fn complement_clause(tokens: &[Token], tree: &Tree<'_>, h: usize) -> bool {
    tree.children(h)
        .any(|c| tokens[c].dep == "mark" && tokens[c].text.eq_ignore_ascii_case("that"))
}

/// Verbs whose "if" clause is the question they ask, not a condition ("asked us **if** we
/// wanted more").
const ASKING_VERBS: [&str; 9] = [
    "ask", "wonder", "know", "see", "check", "tell", "decide", "doubt", "care",
];

/// Whether the clause headed by `h` is an embedded question, its head verb's complement:
/// opened by "whether", or by "if" after a verb of asking.
fn embedded_question(tokens: &[Token], tree: &Tree<'_>, h: usize) -> bool {
    let governor = &tokens[tokens[h].head as usize];
    tree.children(h).any(|c| {
        let t = &tokens[c];
        t.dep == "mark"
            && (t.text.eq_ignore_ascii_case("whether")
                || (t.text.eq_ignore_ascii_case("if")
                    && ASKING_VERBS.contains(&governor.lemma.to_lowercase().as_str())))
    })
}

/// Whether the `relcl` or `advcl` clause headed by `h` is an adjunct: not an embedded question
/// ([`embedded_question`]), not what a verb of seeming is like ([`likens`]), and not a finite
/// `advcl` without a conjunction, which is how the parser shows a clause it could not attach
/// ("dessert which I mistakenly believed [was a flawless chocolate cake]", seed 20261231).
fn is_adjunct_clause(tokens: &[Token], tree: &Tree<'_>, h: usize) -> bool {
    let unmarked_finite = tokens[h].dep == "advcl"
        && (is_finite(&tokens[h])
            || tree.children(h).any(|c| {
                matches!(tokens[c].dep.as_str(), "aux" | "auxpass") && is_finite(&tokens[c])
            }))
        && !tree.children(h).any(|c| tokens[c].dep == "mark")
        && !tree
            .subtree(h)
            .any(|j| matches!(tokens[j].tag.as_str(), "WDT" | "WP" | "WP$" | "WRB"));
    !embedded_question(tokens, tree, h)
        && !likens(tokens, tree, h)
        && !unmarked_finite
        && !completes_a_manner_noun(tokens, h)
}

/// Nouns that a relative clause completes rather than describes: "for **the way** he handled the
/// problem" without its clause is cut short ("for the way .", the 2026-11-30 reading of
/// WordNet's usage examples).
const CLAUSE_COMPLETED_NOUNS: [&str; 5] = ["way", "manner", "extent", "degree", "reason"];

/// Whether the relative clause headed by `h` completes a noun of [`CLAUSE_COMPLETED_NOUNS`].
fn completes_a_manner_noun(tokens: &[Token], h: usize) -> bool {
    tokens[h].dep == "relcl"
        && CLAUSE_COMPLETED_NOUNS.contains(
            &tokens[tokens[h].head as usize]
                .lemma
                .to_lowercase()
                .as_str(),
        )
}

/// Verbs of how something seems, completed by a "like" or "as if" clause.
const SEEMING_VERBS: [&str; 8] = [
    "feel", "look", "seem", "sound", "taste", "smell", "appear", "act",
];

/// Whether the clause headed by `h` says what its verb of seeming is like ("it felt **like it
/// took forever**", "looks as if it rained"): without it the verb is cut short ("it felt .",
/// seed 20261230).
fn likens(tokens: &[Token], tree: &Tree<'_>, h: usize) -> bool {
    let governor = &tokens[tokens[h].head as usize];
    SEEMING_VERBS.contains(&governor.lemma.to_lowercase().as_str())
        && tree.children(h).any(|c| {
            let t = &tokens[c];
            t.dep == "mark"
                && matches!(
                    t.text.to_lowercase().as_str(),
                    "like" | "as" | "if" | "though"
                )
        })
}
