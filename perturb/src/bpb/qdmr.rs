//! QDMR decompositions with typed `#k` references.
//!
//! A QDMR (Question Decomposition Meaning Representation) is a list of steps, each an
//! intermediate question in natural language that may refer to the results of earlier steps
//! with `#k` (1-based). BREAK writes one as `return s1 ;return s2 ;…`; the `break` reader
//! already splits the steps and strips `return `.
//!
//! Step text is normalised the way the BREAK tooling (and the BPB authors' `parse_decomposition`)
//! normalises it before identifying operators: thousands separators inside numbers are removed
//! (`1,000` → `1000`), every other comma becomes a separate token (`#1, #2` → `#1 , #2`) and runs
//! of whitespace collapse to one space. The operator rules are written against that form, so
//! identification and every perturbation see the same text the authors' code saw.

use std::fmt;

use metamorph_data::{Error, Example, Result};

/// One piece of a step: literal text, or a reference `#k` to an earlier step (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// Literal text, spaces included.
    Text(String),
    /// `#k`: the result of step `k` (1-based).
    Ref(usize),
}

/// One QDMR step: text with typed references.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    parts: Vec<Part>,
}

impl Step {
    /// Parses a step's text (normalised as described in the module docs). `#` followed by
    /// digits is a reference; any other `#` stays text.
    pub fn parse(text: &str) -> Step {
        let text = normalize(text);
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '#' {
                let digits: String = text[i + 1..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                if let Ok(k) = digits.parse::<usize>() {
                    if !literal.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Ref(k));
                    for _ in 0..digits.len() {
                        chars.next();
                    }
                    continue;
                }
            }
            literal.push(c);
        }
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Step { parts }
    }

    /// A step from its pieces (adjacent texts are kept as given).
    pub fn from_parts(parts: Vec<Part>) -> Step {
        Step { parts }
    }

    /// The pieces of the step.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The steps referenced, in order of appearance (repeats kept).
    pub fn references(&self) -> Vec<usize> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Ref(k) => Some(*k),
                Part::Text(_) => None,
            })
            .collect()
    }

    /// The same step with every reference `#k` replaced by `#f(k)`.
    pub fn map_references(&self, f: impl Fn(usize) -> usize) -> Step {
        Step {
            parts: self
                .parts
                .iter()
                .map(|p| match p {
                    Part::Ref(k) => Part::Ref(f(*k)),
                    Part::Text(t) => Part::Text(t.clone()),
                })
                .collect(),
        }
    }

    /// The step as text (`#k` written back).
    pub fn text(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.parts {
            match p {
                Part::Text(t) => f.write_str(t)?,
                Part::Ref(k) => write!(f, "#{k}")?,
            }
        }
        Ok(())
    }
}

/// Why a list of steps is not a well-formed QDMR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QdmrError {
    /// There are no steps.
    Empty,
    /// Step `step` (1-based) refers to `#reference`, which is not an earlier step.
    ForwardReference {
        /// The referring step (1-based).
        step: usize,
        /// The reference it makes.
        reference: usize,
    },
    /// Step `step` (1-based, not the last) is used by no later step: its result is lost.
    Orphan {
        /// The unused step (1-based).
        step: usize,
    },
}

impl fmt::Display for QdmrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QdmrError::Empty => write!(f, "the decomposition has no steps"),
            QdmrError::ForwardReference { step, reference } => write!(
                f,
                "step {step} refers to #{reference}, which is not an earlier step"
            ),
            QdmrError::Orphan { step } => write!(
                f,
                "step {step} is not used by the last step (directly or through other steps)"
            ),
        }
    }
}

impl std::error::Error for QdmrError {}

/// A decomposition: steps whose references all point to earlier steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Qdmr {
    steps: Vec<Step>,
}

impl Qdmr {
    /// A QDMR from steps, checking that it is non-empty and every reference points backwards.
    /// Orphaned steps are allowed here (BREAK has a few); see [`Qdmr::check_no_orphans`].
    pub fn new(steps: Vec<Step>) -> std::result::Result<Qdmr, QdmrError> {
        if steps.is_empty() {
            return Err(QdmrError::Empty);
        }
        for (i, step) in steps.iter().enumerate() {
            for reference in step.references() {
                if reference == 0 || reference > i {
                    return Err(QdmrError::ForwardReference {
                        step: i + 1,
                        reference,
                    });
                }
            }
        }
        Ok(Qdmr { steps })
    }

    /// A QDMR from step texts (as the `break` reader gives them: without `return `).
    pub fn from_texts<S: AsRef<str>>(steps: &[S]) -> std::result::Result<Qdmr, QdmrError> {
        Qdmr::new(steps.iter().map(|s| Step::parse(s.as_ref())).collect())
    }

    /// Parses BREAK's string form, `return s1 ;return s2`.
    pub fn parse(decomposition: &str) -> std::result::Result<Qdmr, QdmrError> {
        let steps: Vec<&str> = decomposition
            .split(';')
            .map(|s| {
                let s = s.trim();
                s.strip_prefix("return ").unwrap_or(s)
            })
            .filter(|s| !s.trim().is_empty())
            .collect();
        Qdmr::from_texts(&steps)
    }

    /// The QDMR of a `break` example (its `steps`), or an error naming the example.
    ///
    /// # Errors
    /// [`Error::Malformed`] when the example has no steps or they are not a valid QDMR.
    pub fn from_example(example: &Example) -> Result<Qdmr> {
        let origin = example.origin.clone().unwrap_or_else(|| "<example>".into());
        let location = format!("example `{}`", example.id);
        let steps = example
            .steps
            .as_ref()
            .ok_or_else(|| Error::malformed(&origin, &location, "steps", "no QDMR steps"))?;
        Qdmr::from_texts(steps)
            .map_err(|e| Error::malformed(&origin, &location, "steps", e.to_string()))
    }

    /// The steps.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Always false: a QDMR has at least one step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The last step (the one whose result answers the question).
    pub fn last(&self) -> &Step {
        &self.steps[self.steps.len() - 1]
    }

    /// Step `k` (1-based).
    pub fn step(&self, k: usize) -> Option<&Step> {
        k.checked_sub(1).and_then(|i| self.steps.get(i))
    }

    /// The step texts.
    pub fn texts(&self) -> Vec<String> {
        self.steps.iter().map(Step::text).collect()
    }

    /// BREAK's string form: `return s1 ;return s2`.
    pub fn render(&self) -> String {
        self.steps
            .iter()
            .map(|s| format!("return {s}"))
            .collect::<Vec<_>>()
            .join(" ;")
    }

    /// The steps (1-based) the last step depends on, itself included.
    pub fn used_steps(&self) -> Vec<bool> {
        let n = self.steps.len();
        let mut used = vec![false; n + 1];
        used[n] = true;
        for k in (1..=n).rev() {
            if used[k] {
                for r in self.steps[k - 1].references() {
                    used[r] = true;
                }
            }
        }
        used
    }

    /// Checks that every step but the last is used, directly or through other steps, by the
    /// last one.
    pub fn check_no_orphans(&self) -> std::result::Result<(), QdmrError> {
        let used = self.used_steps();
        match (1..self.steps.len()).find(|&k| !used[k]) {
            Some(step) => Err(QdmrError::Orphan { step }),
            None => Ok(()),
        }
    }

    /// The same QDMR without the steps the last step does not depend on, references
    /// renumbered.
    pub fn without_orphans(&self) -> Qdmr {
        let used = self.used_steps();
        let mut new_index = vec![0; self.steps.len() + 1];
        let mut steps = Vec::new();
        for k in 1..=self.steps.len() {
            if used[k] {
                steps.push(self.steps[k - 1].map_references(|r| new_index[r]));
                new_index[k] = steps.len();
            }
        }
        Qdmr { steps }
    }

    /// A copy with the last step replaced.
    pub fn with_last(&self, step: Step) -> Qdmr {
        let mut steps = self.steps.clone();
        let n = steps.len();
        steps[n - 1] = step;
        Qdmr { steps }
    }

    /// A copy with `step` appended.
    pub fn with_appended(&self, step: Step) -> Qdmr {
        let mut steps = self.steps.clone();
        steps.push(step);
        Qdmr { steps }
    }

    /// A copy with steps `a` and `b` (1-based) swapped; references are left as they are (the
    /// caller swaps only independent steps).
    pub(crate) fn with_swapped(&self, a: usize, b: usize) -> Qdmr {
        let mut steps = self.steps.clone();
        steps.swap(a - 1, b - 1);
        Qdmr { steps }
    }

    /// Removes step `k` (1-based): references to it are re-pointed to `redirect` (a step before
    /// `k`) when given; then every step the new last step no longer depends on is pruned and the
    /// references renumbered. `None` when `k` is out of range, nothing would be left, or a
    /// reference to `k` remains without a redirect.
    pub fn remove_step(&self, k: usize, redirect: Option<usize>) -> Option<Qdmr> {
        let n = self.steps.len();
        if k == 0 || k > n || n < 2 || redirect.is_some_and(|r| r == 0 || r >= k) {
            return None;
        }
        let mut steps = Vec::with_capacity(n - 1);
        for (i, step) in self.steps.iter().enumerate() {
            let index = i + 1;
            if index == k {
                continue;
            }
            if index > k && step.references().contains(&k) && redirect.is_none() {
                return None;
            }
            steps.push(step.map_references(|r| match r.cmp(&k) {
                std::cmp::Ordering::Less => r,
                std::cmp::Ordering::Equal => redirect.unwrap_or(r),
                std::cmp::Ordering::Greater => r - 1,
            }));
        }
        Some(Qdmr { steps }.without_orphans())
    }
}

impl fmt::Display for Qdmr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// BREAK's step normalisation (module docs): digit-group commas removed, other commas spaced,
/// whitespace collapsed.
pub fn normalize(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let is_run = |c: char| c.is_ascii_digit() || c == ',';
        if is_run(chars[i]) {
            let start = i;
            while i < chars.len() && is_run(chars[i]) {
                i += 1;
            }
            let run = &chars[start..i];
            if run.len() >= 2 {
                // A run of digits and commas of two or more characters loses its commas (the
                // tooling's `[\d,]+[,\d]` rule: "1,000" → "1000", also "#1, #2" → "#1 #2").
                out.extend(run.iter().filter(|&&c| c != ','));
            } else if run[0] == ',' {
                out.push_str(" , ");
            } else {
                out.push(run[0]);
            }
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references_and_renders_break_form() {
        let q = Qdmr::parse(
            "return field goals ;return #1 kicked by Mason Crosby ;return number of #2",
        )
        .unwrap();
        assert_eq!(q.len(), 3);
        assert_eq!(q.steps()[1].references(), vec![1]);
        assert_eq!(q.last().references(), vec![2]);
        assert_eq!(
            q.render(),
            "return field goals ;return #1 kicked by Mason Crosby ;return number of #2"
        );
        assert_eq!(Qdmr::parse(&q.render()).unwrap(), q);
    }

    #[test]
    fn normalises_like_break_tooling() {
        assert_eq!(normalize("the  country   that"), "the country that");
        assert_eq!(
            normalize("population of 1,000,000"),
            "population of 1000000"
        );
        assert_eq!(
            normalize("which is highest of #1, #2"),
            "which is highest of #1 #2"
        );
        assert_eq!(normalize("That was  then ,  this"), "That was then , this");
        assert_eq!(normalize("#1 , #2"), "#1 , #2");
    }

    #[test]
    fn rejects_forward_references() {
        assert_eq!(
            Qdmr::from_texts(&["#2 of x", "y"]).unwrap_err(),
            QdmrError::ForwardReference {
                step: 1,
                reference: 2
            }
        );
        assert_eq!(Qdmr::from_texts::<&str>(&[]).unwrap_err(), QdmrError::Empty);
    }

    #[test]
    fn example_errors_name_the_example() {
        let mut ex = Example::new("q7", metamorph_data::Task::Qdmr);
        ex.steps = Some(vec!["number of #3".into()]);
        let err = Qdmr::from_example(&ex).unwrap_err().to_string();
        assert!(err.contains("example `q7`") && err.contains("#3"), "{err}");
    }

    #[test]
    fn removing_a_filter_step_repoints_and_renumbers() {
        // The paper's PruneStep example (Table 1), with the renumbered reference.
        let q = Qdmr::from_texts(&[
            "adult population of Cunter",
            "#1 excluding seniors",
            "number of #2",
        ])
        .unwrap();
        let pruned = q.remove_step(2, Some(1)).unwrap();
        assert_eq!(
            pruned.texts(),
            vec!["adult population of Cunter", "number of #1"]
        );
        // The last step removed: what it alone used goes too.
        let q = Qdmr::from_texts(&["a", "b", "#1 of #2", "c", "#3 and #4"]).unwrap();
        let pruned = q.remove_step(5, None).unwrap();
        assert_eq!(pruned.texts(), vec!["c"]);
        assert!(q.remove_step(1, None).is_none());
    }
}
