//! The 14 QDMR operators and BREAK's lexical rules that identify them from a step's text.
//!
//! BREAK does not store operators with the steps' semantics: its `operators` column was
//! computed by hand-written rules on the step text (the BREAK repository's
//! `qdmr_identifier.py`), and the BPB authors reuse a revised copy of those rules
//! (`qdmr_transforms/operator_identifier.py`). Both are ported here, on the normalised step
//! text of [`super::qdmr`], as two [`Rules`]:
//!
//! * [`Rules::Break`] reproduces BREAK's `operators` column ([`identify`]);
//! * [`Rules::Bpb`], the authors' revision, is what their perturbation rules were written
//!   against, so the perturbations use it. It differs in four places: a boolean step needs a
//!   reference ("if Edward III ruled first" is `select`, not `boolean`); a filter may start with
//!   "the #"; an aggregate must *start* with its keyword (also after "the"), where BREAK finds
//!   it anywhere ("second smallest of #1"); and superlatives also match "is the lowest",
//!   maximum/minimum/top and the keyword tokens in any order (BREAK calls "#1 where #2 is the
//!   lowest" comparative).
//!
//! In both:
//! * every rule that matches is a candidate;
//! * ties are resolved in the code's order: drop `project` (it loses to `aggregate`), then drop
//!   `filter` (it loses to comparative, superlative, sort, discard), then `boolean` wins (over
//!   intersection and select), then `superlative` (over comparative), `group` (over
//!   arithmetic), `comparative` (over discard), `intersection` (over comparison);
//! * a set the order does not resolve (e.g. union + arithmetic), no matching rule, or a `#`
//!   followed by something other than a step number is *no operator* — BREAK's `None`.
//!
//! Substring tests are substring tests, as in the original ("is " matches "this "), because
//! agreement with BREAK's column is the point.

use std::fmt;

use super::qdmr::Qdmr;

/// A QDMR operator (BREAK's 14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// Fetch entities or values: "countries".
    Select,
    /// Restrict a set by a condition: "#1 from Canada".
    Filter,
    /// Map each item to an attribute: "first name of #2".
    Project,
    /// Count/max/min/sum/avg of a set: "number of #1".
    Aggregate,
    /// Aggregate per key: "number of #3 for each #2".
    Group,
    /// Item whose attribute is max/min: "#1 where #2 is highest".
    Superlative,
    /// Items whose attribute satisfies a comparison: "#1 where #2 is at most three".
    Comparative,
    /// Concatenated sets: "#1 , #2".
    Union,
    /// Items in both: "countries in both #1 and #2".
    Intersection,
    /// Set difference: "#2 besides #3".
    Discard,
    /// Order a set: "#1 sorted by #2".
    Sort,
    /// Yes/no test: "if #1 is american".
    Boolean,
    /// Sum/difference/multiplication/division: "difference of #3 and #5".
    Arithmetic,
    /// Argmax/argmin between named candidates: "which is highest of #1 , #2".
    Comparison,
}

impl Operator {
    /// All operators, in BREAK's order.
    pub const ALL: [Operator; 14] = [
        Operator::Select,
        Operator::Filter,
        Operator::Project,
        Operator::Aggregate,
        Operator::Group,
        Operator::Superlative,
        Operator::Comparative,
        Operator::Union,
        Operator::Intersection,
        Operator::Discard,
        Operator::Sort,
        Operator::Boolean,
        Operator::Arithmetic,
        Operator::Comparison,
    ];

    /// BREAK's name (`select`, …).
    pub fn name(self) -> &'static str {
        match self {
            Operator::Select => "select",
            Operator::Filter => "filter",
            Operator::Project => "project",
            Operator::Aggregate => "aggregate",
            Operator::Group => "group",
            Operator::Superlative => "superlative",
            Operator::Comparative => "comparative",
            Operator::Union => "union",
            Operator::Intersection => "intersection",
            Operator::Discard => "discard",
            Operator::Sort => "sort",
            Operator::Boolean => "boolean",
            Operator::Arithmetic => "arithmetic",
            Operator::Comparison => "comparison",
        }
    }

    /// The operator named `name` in BREAK's `operators` column.
    pub fn from_name(name: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|o| o.name() == name)
    }

    fn matches(self, step: &str, refs: usize, rules: Rules) -> bool {
        let bpb = rules == Rules::Bpb;
        let starts_ref = step.starts_with('#') || step.starts_with("the #");
        match self {
            Operator::Select => refs == 0,
            Operator::Filter => {
                (1..=3).contains(&refs)
                    && if bpb {
                        starts_ref
                    } else {
                        step.starts_with('#')
                    }
            }
            Operator::Aggregate if !bpb => {
                refs == 1
                    && AGGREGATORS.iter().any(|a| {
                        step.contains(&format!("{a} #")) || step.contains(&format!("{a} of #"))
                    })
            }
            Operator::Superlative if !bpb => {
                refs == 2
                    && step.contains("where")
                    && step.starts_with('#')
                    && SUPERLATIVES[..10].iter().any(|sup| {
                        step.contains(&format!("is {sup}")) || step.contains(&format!("are {sup}"))
                    })
            }
            Operator::Project => refs == 1 && has_inner_reference(step),
            Operator::Aggregate => {
                refs == 1
                    && AGGREGATORS.iter().any(|a| {
                        let bare = step.strip_prefix("the ").unwrap_or("");
                        [step, bare].iter().any(|s| {
                            s.strip_prefix(a).is_some_and(|rest| {
                                rest.starts_with(" #") || rest.starts_with(" of #")
                            })
                        })
                    })
            }
            Operator::Group => step.contains("for each") && refs > 0,
            Operator::Superlative => {
                refs == 2 && step.contains("where") && starts_ref && {
                    let tokens: Vec<&str> = step.split_whitespace().collect();
                    let no_bound = !step.contains("at most") && !step.contains("at least");
                    SUPERLATIVES.iter().any(|sup| {
                        ["is", "are"].iter().any(|verb| {
                            [format!("{verb} {sup}"), format!("{verb} the {sup}")]
                                .iter()
                                .any(|phrase| {
                                    step.contains(phrase.as_str())
                                        || (no_bound
                                            && phrase.split(' ').all(|t| tokens.contains(&t)))
                                })
                        })
                    })
                }
            }
            Operator::Comparative => {
                (2..=3).contains(&refs)
                    && step.contains("where")
                    && starts_ref
                    && COMPARATIVES.iter().any(|c| step.contains(c))
            }
            Operator::Union => {
                refs > 1 && {
                    let s = step.replace("and", ",").replace("or", ",");
                    !s.is_empty()
                        && s.chars().all(|c| {
                            c == '#' || c == ',' || c.is_ascii_digit() || c.is_whitespace()
                        })
                }
            }
            Operator::Intersection => refs >= 2 && step.contains("both") && step.contains(" and"),
            Operator::Discard => {
                (1..=2).contains(&refs)
                    && (starts_with_reference_then_space(step) || ends_with_reference(step))
                    && (step.contains("besides") || step.contains("not in"))
            }
            Operator::Sort => [" sorted by", " order by", " ordered by"]
                .iter()
                .any(|e| step.contains(e)),
            Operator::Boolean => {
                let lower = step.to_lowercase();
                ["if ", "is ", "are ", "did "]
                    .iter()
                    .any(|p| lower.starts_with(p))
                    && (refs > 0 || !bpb)
            }
            Operator::Arithmetic => {
                refs > 1
                    && ARITHMETIC.iter().any(|a| {
                        step.starts_with(a.name()) || step.starts_with(&format!("the {}", a.name()))
                    })
            }
            Operator::Comparison => step.to_lowercase().starts_with("which") && refs > 1,
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const AGGREGATORS: [&str; 18] = [
    "number of",
    "highest",
    "largest",
    "lowest",
    "smallest",
    "maximum",
    "minimum",
    "max",
    "min",
    "sum",
    "total",
    "average",
    "avg",
    "mean of",
    "first",
    "last",
    "longest",
    "shortest",
];

const SUPERLATIVES: [&str; 14] = [
    "highest", "largest", "most", "smallest", "lowest", "smallest", "least", "longest", "shortest",
    "biggest", "maximum", "minimum", "top", "in top",
];

const COMPARATIVES: [&str; 22] = [
    "same as",
    "higher than",
    "larger than",
    "smaller than",
    "lower than",
    "more",
    "less",
    "at least",
    "at most",
    "equal",
    "is ",
    "are",
    "was",
    "contain",
    "include",
    "has",
    "have",
    "end with",
    "start with",
    "ends with",
    "starts with",
    "begin",
];

/// Which identification rules: BREAK's own or the BPB authors' revision (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rules {
    /// The rules that produced BREAK's `operators` column.
    #[default]
    Break,
    /// The BPB authors' revision, which their perturbations were written against.
    Bpb,
}

/// The step references as the original tooling reads them: `"# "` is not a reference, and a
/// `#` followed by anything but a number makes the step unidentifiable (`None`).
pub fn references(step: &str) -> Option<Vec<usize>> {
    let step = step.replace("# ", "hashtag ");
    let mut refs = Vec::new();
    for chunk in step.split('#').skip(1) {
        if chunk.is_empty() {
            continue;
        }
        let token = chunk.split_whitespace().next()?;
        if !token.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        refs.push(token.parse().ok()?);
    }
    Some(refs)
}

/// `[\s]+[#]+[0-9\s]+`: a reference after whitespace.
fn has_inner_reference(step: &str) -> bool {
    let b = step.as_bytes();
    (1..b.len()).any(|i| {
        b[i] == b'#' && b[i - 1].is_ascii_whitespace() && {
            let mut j = i;
            while j < b.len() && b[j] == b'#' {
                j += 1;
            }
            j < b.len() && (b[j].is_ascii_digit() || b[j].is_ascii_whitespace())
        }
    })
}

/// `^[#]+[0-9]+[\s]+`
fn starts_with_reference_then_space(step: &str) -> bool {
    let rest = step.trim_start_matches('#');
    if rest.len() == step.len() {
        return false;
    }
    let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    after.len() < rest.len() && after.starts_with(|c: char| c.is_whitespace())
}

/// `[#]+[0-9]+$`
fn ends_with_reference(step: &str) -> bool {
    let rest = step.trim_end_matches(|c: char| c.is_ascii_digit());
    rest.len() < step.len() && rest.ends_with('#')
}

/// Every operator whose rule matches `step` (before tie-breaking), or `None` when the
/// references cannot be read.
pub fn candidates(step: &str, rules: Rules) -> Option<Vec<Operator>> {
    let refs = references(step)?.len();
    Some(
        Operator::ALL
            .into_iter()
            .filter(|o| o.matches(step, refs, rules))
            .collect(),
    )
}

/// The operator of `step` (normalised text) by BREAK's rules, or `None` where they find none.
pub fn identify(step: &str) -> Option<Operator> {
    identify_with(step, Rules::Break)
}

/// The operator of `step` (normalised text) by `rules`, or `None` where they find none.
pub fn identify_with(step: &str, rules: Rules) -> Option<Operator> {
    use Operator::*;
    let mut ops = candidates(step, rules)?;
    while ops.len() > 1 {
        let has = |o: Operator| ops.contains(&o);
        if has(Project) {
            ops.retain(|&o| o != Project);
        } else if has(Filter) {
            ops.retain(|&o| o != Filter);
        } else if let Some(o) = [Boolean, Superlative, Group, Comparative, Intersection]
            .into_iter()
            .find(|&o| has(o))
        {
            ops = vec![o];
        } else {
            return None;
        }
    }
    ops.pop()
}

/// The operator of every step of `qdmr` by `rules`.
pub fn identify_all(qdmr: &Qdmr, rules: Rules) -> Vec<Option<Operator>> {
    qdmr.steps()
        .iter()
        .map(|s| identify_with(&s.text(), rules))
        .collect()
}

/// An aggregate function (`extract_aggregate` of the tooling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// max / highest / most / last / …
    Max,
    /// min / lowest / least / first / …
    Min,
    /// number of
    Count,
    /// sum / total
    Sum,
    /// average / mean
    Avg,
}

/// The aggregate a step names, by the tooling's keyword lists and their order (a "top k" step
/// gives `None`, as does a step with no keyword).
pub fn aggregate(step: &str) -> Option<Aggregate> {
    if step
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0].ends_with("top") && w[1].starts_with(|c: char| c.is_ascii_digit()))
    {
        return None;
    }
    const MAX: [&str; 11] = [
        "max", "highest", "largest", "most", "longest", "biggest", "more", "last", "longer",
        "higher", "larger",
    ];
    const MIN: [&str; 11] = [
        "min", "lowest", "smallest", "least", "shortest", "less", "first", "shorter", "lower",
        "fewer", "smaller",
    ];
    if MAX.iter().any(|w| step.contains(w)) {
        Some(Aggregate::Max)
    } else if MIN.iter().any(|w| step.contains(w)) {
        Some(Aggregate::Min)
    } else if step.contains("number of") {
        Some(Aggregate::Count)
    } else if ["sum", "total"].iter().any(|w| step.contains(w)) {
        Some(Aggregate::Sum)
    } else if ["avg", "average", "mean "].iter().any(|w| step.contains(w)) {
        Some(Aggregate::Avg)
    } else {
        None
    }
}

/// An arithmetic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithmeticOp {
    /// a + b
    Sum,
    /// a − b
    Difference,
    /// a × b
    Multiplication,
    /// a ÷ b
    Division,
}

/// The arithmetic operations, in the tooling's order.
pub const ARITHMETIC: [ArithmeticOp; 4] = [
    ArithmeticOp::Sum,
    ArithmeticOp::Difference,
    ArithmeticOp::Multiplication,
    ArithmeticOp::Division,
];

impl ArithmeticOp {
    /// The word QDMR uses: `sum`, `difference`, …
    pub fn name(self) -> &'static str {
        match self {
            ArithmeticOp::Sum => "sum",
            ArithmeticOp::Difference => "difference",
            ArithmeticOp::Multiplication => "multiplication",
            ArithmeticOp::Division => "division",
        }
    }
}

/// The operation of an arithmetic step: the operation word it starts with (after an optional
/// "the ").
pub fn arithmetic_op(step: &str) -> Option<ArithmeticOp> {
    let bare = step.strip_prefix("the ").unwrap_or(step);
    ARITHMETIC.into_iter().find(|a| bare.starts_with(a.name()))
}

/// The argument of a comparison step (`which is highest of #1 , #2`): argmax/argmin, or a
/// true/false test ("which is true of #1 , #2").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComparisonOp {
    /// The candidate with the highest value (argmax).
    Max,
    /// The candidate with the lowest value (argmin).
    Min,
    /// The candidate for which the statement is true.
    True,
    /// The candidate for which the statement is false.
    False,
}

/// The operation of a comparison step, by the tooling's rule (aggregate keywords first, then
/// true/false); `None` when there is neither.
pub fn comparison_op(step: &str) -> Option<ComparisonOp> {
    match aggregate(step) {
        Some(Aggregate::Max) => Some(ComparisonOp::Max),
        Some(Aggregate::Min) => Some(ComparisonOp::Min),
        Some(_) => None,
        None if step.contains("true") => Some(ComparisonOp::True),
        None if step.contains("false") => Some(ComparisonOp::False),
        None => None,
    }
}

/// A logical boolean step over two sub-results: "if both #1 and #2 are true", "if either #1 or
/// #2 are true".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Logical {
    /// `both … and` (true) or `either … or` (false).
    pub and: bool,
    /// Whether the step tests for "true" (or "false").
    pub truth: bool,
    /// The two referenced steps.
    pub refs: (usize, usize),
}

/// The logical form of a boolean step, by the tooling's rule (two references, "both" + "and"
/// or "either" + "or"; "false" anywhere makes it a test for false).
pub fn logical(step: &str) -> Option<Logical> {
    let refs = references(step)?;
    if refs.len() != 2 {
        return None;
    }
    let and = if step.contains("both") && step.contains("and") {
        true
    } else if step.contains("either") && step.contains("or") {
        false
    } else {
        return None;
    };
    Some(Logical {
        and,
        truth: !step.contains("false"),
        refs: (refs[0], refs[1]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifies_the_templates_of_each_operator() {
        let cases = [
            ("countries", Operator::Select),
            ("#1 from Canada", Operator::Filter),
            ("#2 that is wearing #3", Operator::Filter),
            ("first name of #2", Operator::Project),
            ("who was #1 married to", Operator::Project),
            ("number of #1", Operator::Aggregate),
            ("lowest of #2", Operator::Aggregate),
            ("number of #3 for each #2", Operator::Group),
            ("#1 where #2 is highest", Operator::Superlative),
            ("#1 where #2 is at most three", Operator::Comparative),
            ("#1 or #2", Operator::Union),
            ("#1 , #2 , #3", Operator::Union),
            ("countries in both #1 and #2", Operator::Intersection),
            ("#2 besides #3", Operator::Discard),
            ("#1 sorted by #2", Operator::Sort),
            ("if both #2 and #3 are true", Operator::Boolean),
            ("if #1 is american", Operator::Boolean),
            ("if #3 is higher than 2", Operator::Boolean),
            ("difference of #3 and #5", Operator::Arithmetic),
            ("the difference of #2 and #1", Operator::Arithmetic),
            ("which is highest of #1 , #2", Operator::Comparison),
        ];
        for (step, op) in cases {
            assert_eq!(identify(step), Some(op), "{step}");
            assert_eq!(identify_with(step, Rules::Bpb), Some(op), "{step}");
        }
    }

    #[test]
    fn break_and_bpb_rules_differ_where_documented() {
        let cases = [
            (
                "if Edward III ruled first",
                Operator::Boolean,
                Operator::Select,
            ),
            (
                "the #1 that contains Goias",
                Operator::Project,
                Operator::Filter,
            ),
            (
                "second smallest of #1",
                Operator::Aggregate,
                Operator::Project,
            ),
            (
                "#1 where #2 is the lowest",
                Operator::Comparative,
                Operator::Superlative,
            ),
        ];
        for (step, break_op, bpb_op) in cases {
            assert_eq!(identify(step), Some(break_op), "{step}");
            assert_eq!(identify_with(step, Rules::Bpb), Some(bpb_op), "{step}");
        }
    }

    #[test]
    fn tie_breaks_follow_the_tooling() {
        // project vs aggregate
        assert_eq!(candidates("number of #1", Rules::Break).unwrap().len(), 2);
        // filter vs superlative / comparative
        assert_eq!(
            identify_with("#1 where #2 is the smallest", Rules::Bpb),
            Some(Operator::Superlative)
        );
        // boolean over intersection
        assert_eq!(
            candidates("if both #1 and #2 are true", Rules::Bpb).unwrap(),
            vec![Operator::Intersection, Operator::Boolean]
        );
        // group over arithmetic
        assert_eq!(
            identify_with("sum of #1 and #2 for each #3", Rules::Bpb),
            Some(Operator::Group)
        );
        // unreadable reference, and an unresolvable pair
        assert_eq!(identify("#REF of x"), None);
        assert_eq!(identify("the sum of #1 and #2 sorted by #3"), None);
    }

    #[test]
    fn step_arguments() {
        assert_eq!(aggregate("which is smaller of #1 #2"), Some(Aggregate::Min));
        assert_eq!(
            comparison_op("which is first of #1 #2"),
            Some(ComparisonOp::Min)
        );
        assert_eq!(
            comparison_op("which is true of #1 , #2"),
            Some(ComparisonOp::True)
        );
        assert_eq!(
            arithmetic_op("the difference of #2 and #1"),
            Some(ArithmeticOp::Difference)
        );
        assert_eq!(
            logical("if both #1 and #2 are true"),
            Some(Logical {
                and: true,
                truth: true,
                refs: (1, 2)
            })
        );
        assert_eq!(references("#1 and #12"), Some(vec![1, 12]));
        assert_eq!(references("item # 3"), Some(vec![]));
    }
}
