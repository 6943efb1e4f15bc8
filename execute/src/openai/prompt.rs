//! Per-task prompt templates: `{field}` placeholders filled from the example.
//!
//! A template is parsed once, at start-up, so that a misspelt placeholder is a config error
//! naming the template rather than a failure after the first thousand requests. `{{` and `}}`
//! write literal braces. Which placeholders a task has:
//!
//! | task | placeholders |
//! |---|---|
//! | boolq, squad, drop | `{title}`, `{context}`, `{question}` |
//! | sentiment | `{text}`, `{labels}` |
//! | paraphrase | `{text}`, `{text_b}` |
//! | relation | `{text}`, `{head}`, `{tail}`, `{labels}` |
//!
//! `{labels}` is the configured label list joined by `, `; `{head}`/`{tail}` are the argument
//! mentions; `{title}` is empty when the example has none. Every other field the template
//! names must be present in the example.

use metamorph_data::{Example, Task};

/// A value a template can insert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placeholder {
    Title,
    Context,
    Question,
    Text,
    TextB,
    Head,
    Tail,
    Labels,
}

impl Placeholder {
    const ALL: [Placeholder; 8] = [
        Placeholder::Title,
        Placeholder::Context,
        Placeholder::Question,
        Placeholder::Text,
        Placeholder::TextB,
        Placeholder::Head,
        Placeholder::Tail,
        Placeholder::Labels,
    ];

    fn name(self) -> &'static str {
        match self {
            Placeholder::Title => "title",
            Placeholder::Context => "context",
            Placeholder::Question => "question",
            Placeholder::Text => "text",
            Placeholder::TextB => "text_b",
            Placeholder::Head => "head",
            Placeholder::Tail => "tail",
            Placeholder::Labels => "labels",
        }
    }

    /// The placeholders a task's examples fill.
    fn of(task: Task) -> &'static [Placeholder] {
        use Placeholder::*;
        match task {
            Task::BoolQ | Task::Squad | Task::Drop => &[Title, Context, Question],
            Task::Sentiment => &[Text, Labels],
            Task::Paraphrase => &[Text, TextB],
            Task::Relation => &[Text, Head, Tail, Labels],
            Task::Qdmr | Task::Coref => &[],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Literal(String),
    Field(Placeholder),
}

/// A parsed prompt template for one task.
#[derive(Clone, Debug)]
pub struct Template {
    task: Task,
    parts: Vec<Part>,
}

impl Template {
    /// Parses `text` as the template for `task`.
    ///
    /// # Errors
    /// A message naming the unknown (or, for this task, unavailable) placeholder, or the
    /// unmatched brace and its character offset.
    pub fn parse(task: Task, text: &str) -> Result<Self, String> {
        let allowed = Placeholder::of(task);
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|&(_, c)| c) == Some('{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek().map(|&(_, c)| c) == Some('}') => {
                    chars.next();
                    literal.push('}');
                }
                '{' => {
                    let rest = &text[at + 1..];
                    let Some(len) = rest.find('}') else {
                        return Err(format!(
                            "unclosed `{{` at character {} (write `{{{{` for a literal brace)",
                            text[..at].chars().count()
                        ));
                    };
                    let name = &rest[..len];
                    let placeholder = allowed
                        .iter()
                        .copied()
                        .find(|p| p.name() == name)
                        .ok_or_else(|| {
                            let known = allowed
                                .iter()
                                .map(|p| format!("{{{}}}", p.name()))
                                .collect::<Vec<_>>()
                                .join(", ");
                            let elsewhere = if Placeholder::ALL.iter().any(|p| p.name() == name) {
                                format!(" for task `{task}`")
                            } else {
                                String::new()
                            };
                            format!(
                                "unknown placeholder `{{{name}}}`{elsewhere} (known: {known}; \
                                 write `{{{{` and `}}}}` for literal braces)"
                            )
                        })?;
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Field(placeholder));
                    // Skip the name and the closing brace.
                    for _ in 0..name.chars().count() + 1 {
                        chars.next();
                    }
                }
                '}' => {
                    return Err(format!(
                        "unmatched `}}` at character {} (write `}}}}` for a literal brace)",
                        text[..at].chars().count()
                    ))
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Template { task, parts })
    }

    /// The built-in template for `task`, if it has one.
    pub fn builtin(task: Task) -> Option<Self> {
        let text = match task {
            Task::BoolQ => {
                "Read the passage and answer the question with yes or no.\n\n\
                 Passage: {context}\n\nQuestion: {question}\n\n\
                 Answer with one word: yes or no."
            }
            Task::Squad => {
                "Answer the question with a short span copied exactly from the passage. If the \
                 passage does not answer the question, reply \"unanswerable\".\n\n\
                 Passage: {context}\n\nQuestion: {question}\n\n\
                 Reply with the answer only."
            }
            Task::Drop => {
                "Answer the question about the passage. The answer is a number, a date or a \
                 short span copied from the passage.\n\n\
                 Passage: {context}\n\nQuestion: {question}\n\n\
                 Reply with the answer only."
            }
            Task::Sentiment => {
                "Classify the sentiment of the text as one of: {labels}.\n\n\
                 Text: {text}\n\n\
                 Reply with the label only."
            }
            Task::Paraphrase => {
                "Do the two sentences mean the same thing?\n\n\
                 Sentence 1: {text}\nSentence 2: {text_b}\n\n\
                 Answer with one word: yes or no."
            }
            Task::Relation => {
                "Which relation does the sentence express between the head and the tail \
                 entity? Choose one of: {labels}.\n\n\
                 Sentence: {text}\nHead: {head}\nTail: {tail}\n\n\
                 Reply with the relation only."
            }
            Task::Qdmr | Task::Coref => return None,
        };
        Some(Self::parse(task, text).expect("the built-in templates parse"))
    }

    /// Whether the template inserts the label list.
    pub fn uses_labels(&self) -> bool {
        self.parts.contains(&Part::Field(Placeholder::Labels))
    }

    /// The prompt for `example`; `labels` fills `{labels}`.
    ///
    /// # Errors
    /// A message naming the example and the missing field.
    pub fn render(&self, example: &Example, labels: &[String]) -> Result<String, String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(s) => out.push_str(s),
                Part::Field(p) => {
                    let missing = || {
                        format!(
                            "example `{}` ({}) has no `{}` for the prompt",
                            example.id,
                            self.task,
                            p.name()
                        )
                    };
                    let value: &str = match p {
                        Placeholder::Title => example.title.as_deref().unwrap_or(""),
                        Placeholder::Context => example.context.as_deref().ok_or_else(missing)?,
                        Placeholder::Question => example.question.as_deref().ok_or_else(missing)?,
                        Placeholder::Text => match (&example.text, &example.tokens) {
                            (Some(text), _) => text,
                            (None, Some(tokens)) => {
                                out.push_str(&tokens.join(" "));
                                continue;
                            }
                            (None, None) => return Err(missing()),
                        },
                        Placeholder::TextB => example.text_b.as_deref().ok_or_else(missing)?,
                        Placeholder::Head => &example.head.as_ref().ok_or_else(missing)?.text,
                        Placeholder::Tail => &example.tail.as_ref().ok_or_else(missing)?.text,
                        Placeholder::Labels => {
                            out.push_str(&labels.join(", "));
                            continue;
                        }
                    };
                    out.push_str(value);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::EntitySpan;

    #[test]
    fn placeholders_are_filled_and_braces_escaped() {
        let t =
            Template::parse(Task::BoolQ, "{{json}} Q: {question} C: {context}{title}.").unwrap();
        let mut ex = Example::new("b1", Task::BoolQ);
        ex.question = Some("is it".into());
        ex.context = Some("It is.".into());
        assert_eq!(t.render(&ex, &[]).unwrap(), "{json} Q: is it C: It is..");
        ex.context = None;
        let err = t.render(&ex, &[]).unwrap_err();
        assert!(err.contains("`b1`") && err.contains("`context`"), "{err}");
    }

    #[test]
    fn unknown_or_misplaced_placeholders_are_refused() {
        let err = Template::parse(Task::BoolQ, "Q: {qustion}").unwrap_err();
        assert!(
            err.contains("`{qustion}`") && err.contains("{question}"),
            "{err}"
        );
        let err = Template::parse(Task::BoolQ, "{labels}").unwrap_err();
        assert!(err.contains("for task `boolq`"), "{err}");
        assert!(Template::parse(Task::Sentiment, "{text")
            .unwrap_err()
            .contains("unclosed `{` at character 0"));
        assert!(Template::parse(Task::Sentiment, "a } b")
            .unwrap_err()
            .contains("unmatched `}` at character 2"));
    }

    #[test]
    fn relation_and_label_placeholders() {
        let t = Template::builtin(Task::Relation).unwrap();
        assert!(t.uses_labels());
        let mut ex = Example::new("r1", Task::Relation);
        ex.tokens = Some(vec!["Obama".into(), "visited".into(), "Paris".into()]);
        let span = |text: &str, start, end| EntitySpan {
            text: text.into(),
            start,
            end,
            entity_type: None,
        };
        ex.head = Some(span("Obama", 0, 1));
        ex.tail = Some(span("Paris", 2, 3));
        let labels = vec!["per:visited".to_string(), "no_relation".to_string()];
        let prompt = t.render(&ex, &labels).unwrap();
        assert!(prompt.contains("Choose one of: per:visited, no_relation."));
        assert!(prompt.contains("Sentence: Obama visited Paris\nHead: Obama\nTail: Paris"));
    }

    #[test]
    fn every_task_with_a_parser_has_a_builtin_template() {
        for task in Task::ALL {
            assert_eq!(
                Template::builtin(task).is_some(),
                !matches!(task, Task::Qdmr | Task::Coref),
                "{task}"
            );
        }
    }
}
