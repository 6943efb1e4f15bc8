//! Shared fixtures for the relations' unit tests: the real spaCy port and lexicons, loaded once
//! per test binary from the asset cache (fetched on first use, as `cargo xtask assets` does).

use std::sync::OnceLock;

use metamorph_data::{Example, ParsedText, Task};
use metamorph_parse::spacy::pipeline::Pipeline;

use crate::{PerturbConfig, Resources};

/// A token with only its text (and lower-case lemma, a trailing space) set: for tests of
/// rules that read no other annotation.
pub fn token(text: &str) -> metamorph_data::Token {
    metamorph_data::Token {
        text: text.into(),
        whitespace: " ".into(),
        lemma: text.to_lowercase(),
        pos: String::new(),
        tag: String::new(),
        morph: String::new(),
        dep: String::new(),
        head: 0,
        ent_iob: String::new(),
        ent_type: String::new(),
        start: 0,
        end: 0,
    }
}

/// en_core_web_sm 3.8.0 through the pure-Rust port.
pub fn pipeline() -> &'static Pipeline {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    PIPELINE.get_or_init(|| {
        let dir = metamorph_data::assets::ensure("en_core_web_sm").expect("fetch en_core_web_sm");
        Pipeline::load(&dir).expect("load en_core_web_sm")
    })
}

/// Lexicons with the default configuration.
pub fn resources() -> &'static Resources {
    static RESOURCES: OnceLock<Resources> = OnceLock::new();
    RESOURCES.get_or_init(|| Resources::from_config(&PerturbConfig::default()))
}

/// An entity pool of `(type, text)` mentions, one each, as the replacement relations take it.
pub fn entity_pool(
    entries: &[(&str, &str)],
) -> Option<std::sync::Arc<crate::lexicon::entity_pool::EntityPool>> {
    let mut builder = crate::lexicon::entity_pool::EntityPoolBuilder::new("gold");
    for (entity_type, text) in entries {
        builder.add(entity_type, text);
    }
    Some(std::sync::Arc::new(builder.build()))
}

/// A BoolQ example (`id` "q1") with its question and passage parsed.
pub fn boolq(question: &str, passage: &str) -> (Example, Vec<ParsedText>) {
    let mut example = Example::new("q1", Task::BoolQ);
    example.question = Some(question.into());
    example.context = Some(passage.into());
    let parses = crate::source::parse_examples(
        pipeline(),
        std::slice::from_ref(&example),
        &["question", "context"],
    )
    .expect("parse");
    (example, parses)
}

/// A relation example (`id` "r1") over `tokens` with head and tail `(start, end, type)` (token
/// indices, end exclusive) and gold `label`, with its `text` parsed.
pub fn relation(
    tokens: &[&str],
    head: (usize, usize, Option<&str>),
    tail: (usize, usize, Option<&str>),
    label: Option<&str>,
) -> (Example, Vec<ParsedText>) {
    let tokens: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
    let span = |(start, end, ty): (usize, usize, Option<&str>)| metamorph_data::EntitySpan {
        text: tokens[start..end].join(" "),
        start: start as u32,
        end: end as u32,
        entity_type: ty.map(str::to_string),
    };
    let mut example = Example::new("r1", Task::Relation);
    example.head = Some(span(head));
    example.tail = Some(span(tail));
    example.label = label.map(str::to_string);
    example.text = Some(tokens.join(" "));
    example.tokens = Some(tokens);
    let parses =
        crate::source::parse_examples(pipeline(), std::slice::from_ref(&example), &["text"])
            .expect("parse");
    (example, parses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    #[test]
    fn sources_find_the_parse_of_each_field_and_only_of_the_current_text() {
        let (mut example, parses) = boolq("is the sky blue", "The sky is blue. It is.");
        let source = Source::new(&example, &parses);
        let question = source.parse("question").expect("question parse");
        assert_eq!(question.tokens.len(), 4);
        assert_eq!(question.tokens[0].dep, "ROOT");
        assert_eq!(source.parse("context").unwrap().sentences.len(), 2);
        assert!(source.parse("text").is_none());
        // A parse of other text (an edited field) is not returned for the field.
        example.question = Some("is the sky grey".into());
        assert!(Source::new(&example, &parses).parse("question").is_none());
        assert!(resources().wordnet().unwrap().synset_count() > 100_000);
    }
}
