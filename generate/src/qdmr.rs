//! QDMR text conventions: BREAK's decomposition strings, Break-Perturb-Build's reference tokens,
//! and the input templates of the generation models.
//!
//! BREAK writes a decomposition as one string, `return flights ;return #1 from denver`: steps
//! separated by ` ;`, each starting with `return `, `#k` referring to step k (1-based). Our
//! records keep the steps without `return ` ([`metamorph_data::Example::steps`]). BPB's BART
//! models read and write `@@k@@` instead of `#k` (a reference is one token to them, which the
//! authors found parses better); [`to_reference_tokens`] and [`from_reference_tokens`] map
//! between the two.

use std::fmt::Write as _;

/// Steps as BREAK's decomposition string: `return a ;return b of #1`.
pub fn join_steps(steps: &[String]) -> String {
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        if i > 0 {
            out.push_str(" ;");
        }
        let _ = write!(out, "return {}", step.trim());
    }
    out
}

/// A generated question as the stage stores it: one line, single-spaced, without wrapping
/// quotes or backticks (empty when nothing is left).
pub fn clean_question(output: &str) -> String {
    let text = output.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text.trim_matches(|c| matches!(c, '"' | '“' | '”' | '`'));
    text.trim().to_string()
}

/// `#k` → `@@k@@` (a `#` not followed by digits is kept).
pub fn to_reference_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            out.push('#');
        } else {
            let _ = write!(out, "@@{}@@", &after[..digits]);
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// `@@k@@` → `#k`; spaces the tokenizer may put inside (`@@ 1 @@`) are tolerated, and text
/// already written with `#k` is unchanged.
pub fn from_reference_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("@@") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let inner = after.trim_start();
        let digits = inner.len() - inner.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let close = inner[digits..].trim_start();
        if digits > 0 && close.starts_with("@@") {
            let _ = write!(out, "#{}", &inner[..digits]);
            rest = &close[2..];
        } else {
            out.push_str("@@");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// A decomposition string (BREAK's format, `#k` or `@@k@@` references) → steps without
/// `return `, checked with [`check_references`].
///
/// # Errors
/// A message saying what is malformed: no steps, an empty step, a reference to step 0, to
/// itself, to a later step or beyond the last one.
pub fn parse_decomposition(text: &str) -> Result<Vec<String>, String> {
    let text = from_reference_tokens(text);
    let steps: Vec<String> = text
        .split(';')
        .map(|s| {
            let s = s.trim();
            s.strip_prefix("return ")
                .or_else(|| s.strip_prefix("return\t"))
                .unwrap_or(if s == "return" { "" } else { s })
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    if steps.iter().all(String::is_empty) {
        return Err("no steps".into());
    }
    if let Some(i) = steps.iter().position(String::is_empty) {
        return Err(format!("step {} is empty", i + 1));
    }
    check_references(&steps)?;
    Ok(steps)
}

/// Every `#k` in step i (1-based) must satisfy 1 ≤ k < i: a step refers only to earlier steps.
///
/// # Errors
/// A message naming the step and the bad reference.
pub fn check_references(steps: &[String]) -> Result<(), String> {
    for (i, step) in steps.iter().enumerate() {
        for k in references(step) {
            if k == 0 || k > i {
                return Err(format!(
                    "step {} refers to #{k}, which is not an earlier step",
                    i + 1
                ));
            }
        }
    }
    Ok(())
}

/// The step numbers a step refers to (`#k`).
fn references(step: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = step;
    while let Some(at) = rest.find('#') {
        let after = &rest[at + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            // More digits than fit a usize is no earlier step either.
            out.push(after[..digits].parse().unwrap_or(usize::MAX));
        }
        rest = &after[digits..];
    }
    out
}

/// A text with `{name}` placeholders (`{{` and `}}` for literal braces), checked against the
/// names it may use when it is parsed, so a typo fails at start-up.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    Slot(String),
}

impl Template {
    /// Parses `text`, allowing the placeholders `allowed`.
    ///
    /// # Errors
    /// A message naming an unknown placeholder or an unbalanced brace.
    pub fn parse(text: &str, allowed: &[&str]) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|&(_, n)| n) == Some('{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek().map(|&(_, n)| n) == Some('}') => {
                    chars.next();
                    literal.push('}');
                }
                '{' => {
                    let Some(len) = text[at + 1..].find('}') else {
                        return Err(format!("unclosed `{{` at byte {at}"));
                    };
                    let name = &text[at + 1..at + 1 + len];
                    if !allowed.contains(&name) {
                        return Err(format!(
                            "unknown placeholder `{{{name}}}` (this template may use: {})",
                            allowed
                                .iter()
                                .map(|a| format!("{{{a}}}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Slot(name.to_string()));
                    // Skip the name and the closing brace.
                    while chars.next_if(|&(i, _)| i <= at + 1 + len).is_some() {}
                }
                '}' => return Err(format!("unmatched `}}` at byte {at} (write `}}}}`)")),
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(Template { parts })
    }

    /// The text with each placeholder replaced by its value in `values` (a placeholder without
    /// a value becomes empty; [`Template::parse`] already checked the names).
    pub fn render(&self, values: &[(&str, &str)]) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Slot(name) => {
                    if let Some((_, v)) = values.iter().find(|(n, _)| n == name) {
                        out.push_str(v);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn steps_join_as_break_writes_them_and_parse_back() {
        let s = steps(&["touchdowns", "#1 that Rice scored", "number of #2"]);
        let joined = join_steps(&s);
        assert_eq!(
            joined,
            "return touchdowns ;return #1 that Rice scored ;return number of #2"
        );
        assert_eq!(parse_decomposition(&joined).unwrap(), s);
    }

    #[test]
    fn reference_tokens_map_both_ways() {
        let text = "return #1 that Rice scored ;return number of #12 ; C# #";
        let tokens = to_reference_tokens(text);
        assert_eq!(
            tokens,
            "return @@1@@ that Rice scored ;return number of @@12@@ ; C# #"
        );
        assert_eq!(from_reference_tokens(&tokens), text);
        assert_eq!(
            from_reference_tokens("of @@ 2 @@ and @@x@@"),
            "of #2 and @@x@@"
        );
        assert_eq!(
            parse_decomposition("return yards ;return longest of @@1@@").unwrap(),
            steps(&["yards", "longest of #1"])
        );
    }

    #[test]
    fn malformed_decompositions_say_why() {
        assert_eq!(parse_decomposition(" ; ").unwrap_err(), "no steps");
        assert_eq!(
            parse_decomposition("return a ;;return #1").unwrap_err(),
            "step 2 is empty"
        );
        let forward = parse_decomposition("return #2 ;return b").unwrap_err();
        assert!(forward.contains("step 1 refers to #2"), "{forward}");
        assert!(parse_decomposition("return a ;return #0").is_err());
        assert!(parse_decomposition("return a ;return #2").is_err());
        assert!(parse_decomposition("return a ;return #99999999999999999999999").is_err());
        // Without `return`, a plain question-like line is one step.
        assert_eq!(parse_decomposition("flights").unwrap(), steps(&["flights"]));
    }

    #[test]
    fn templates_check_placeholders_and_escape_braces() {
        let t = Template::parse("Q: {question} {{x}}", &["question"]).unwrap();
        assert_eq!(t.render(&[("question", "why?")]), "Q: why? {x}");
        let e = Template::parse("{questoin}", &["question"]).unwrap_err();
        assert!(
            e.contains("`{questoin}`") && e.contains("{question}"),
            "{e}"
        );
        assert!(Template::parse("{question", &["question"]).is_err());
        assert!(Template::parse("a } b", &["question"]).is_err());
        assert_eq!(
            Template::parse("é{steps}ü", &["steps"])
                .unwrap()
                .render(&[("steps", "s")]),
            "ésü"
        );
    }
}
