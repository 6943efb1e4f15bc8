//! The label maps SIT4RE's relations need (symmetric set, inverse pairs, granularity families,
//! combinable pairs), one data file per label schema, compiled in: `labels/tacred.toml` for
//! TACRED / Re-TACRED / TACREV and `labels/wikidata.toml` for FewRel's Wikidata properties.
//! Each entry carries its justification as a comment in the file.
//!
//! **Which schema an example uses** is read from its own label's namespace when it has one
//! (`per:…`, `org:…`, `no_relation` → TACRED; `P<digits>` → Wikidata); the gold label only names
//! the schema, it never decides eligibility (preconditions read the *predicted* label). An
//! unlabelled example uses TACRED when its arguments are typed (TACRED's files always type them)
//! and Wikidata otherwise (FewRel has no types).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use metamorph_data::Example;
use serde::Deserialize;

use crate::lexicon::geography::PlaceKind;

/// A city-level relation and its state- and country-level counterparts.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Granularity {
    /// The city-level label (`per:city_of_birth`).
    pub city: String,
    /// The same relation with a state or province (`per:stateorprovince_of_birth`).
    pub state: String,
    /// The same relation with a country (`per:country_of_birth`).
    pub country: String,
}

/// A relation and the relation that holds when head and tail are swapped.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inverse {
    /// The source relation.
    pub label: String,
    /// The swapped pair's relation.
    pub inverse: String,
}

/// A combinable pair {R1, R2} of MR-C1 or MR-C2 (R1 symmetric).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Combinable {
    /// `MR-C1` (shared head) or `MR-C2` (shared tail).
    pub mr: String,
    /// R1, the first source's relation.
    pub first: String,
    /// The R2s, any of which the second source may have.
    pub second: Vec<String>,
    /// The entity types (TACRED vocabulary) of the second pair's new argument: R2's tail type
    /// for C1, its head type for C2.
    pub candidate_types: Vec<String>,
}

/// One label schema's maps (see the module docs).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSchema {
    /// `tacred` or `wikidata`.
    pub name: String,
    /// The schema's "no relation" label, if it has one.
    #[serde(default)]
    pub no_relation: Option<String>,
    /// Every label of the schema.
    pub labels: Vec<String>,
    /// MR-S1's symmetric relations.
    pub symmetric: Vec<String>,
    /// MR-R2's granularity families.
    #[serde(default)]
    pub granularity: Vec<Granularity>,
    /// MR-S2's inverse pairs.
    #[serde(default)]
    pub inverse: Vec<Inverse>,
    /// MR-C1/C2's combinable pairs.
    #[serde(default)]
    pub combinable: Vec<Combinable>,
    /// MR-R1's kinds of each label's (head, tail) arguments, where the schema states them.
    #[serde(default)]
    pub arguments: BTreeMap<String, [ArgumentKind; 2]>,
}

/// What kind of thing a relation's argument is (see `labels/wikidata.toml`, `[arguments]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgumentKind {
    /// A person.
    Person,
    /// A place: a settlement, a region, a body of water, a structure.
    Place,
    /// An organization, a band, a team.
    Organization,
    /// A language.
    Language,
    /// A creative work.
    Work,
    /// Anything else: a rank, a sport, a constellation, or whatever "part of" joins.
    Other,
    /// Kinds that vary from one statement to the next (a competition class of a boxer or of a
    /// tournament): the mention itself says which.
    Any,
}

const TACRED_TOML: &str = include_str!("labels/tacred.toml");
const WIKIDATA_TOML: &str = include_str!("labels/wikidata.toml");

impl LabelSchema {
    /// Parses a schema file and checks that every label it uses is one of its `labels`, that
    /// symmetric relations have no inverse entry and that every combinable R1 is symmetric.
    ///
    /// # Errors
    /// A message naming the problem.
    pub fn parse(toml_text: &str) -> Result<Self, String> {
        let schema: LabelSchema = toml::from_str(toml_text).map_err(|e| e.to_string())?;
        let known = |l: &String| schema.labels.contains(l);
        let mut used: Vec<&String> = schema.symmetric.iter().collect();
        used.extend(schema.arguments.keys());
        for g in &schema.granularity {
            used.extend([&g.city, &g.state, &g.country]);
        }
        for i in &schema.inverse {
            used.extend([&i.label, &i.inverse]);
            if schema.symmetric.contains(&i.label) {
                return Err(format!(
                    "{}: `{}` is symmetric and has an inverse",
                    schema.name, i.label
                ));
            }
        }
        for c in &schema.combinable {
            used.push(&c.first);
            used.extend(&c.second);
            if !schema.symmetric.contains(&c.first) {
                return Err(format!(
                    "{}: combinable R1 `{}` is not symmetric",
                    schema.name, c.first
                ));
            }
            if c.mr != "MR-C1" && c.mr != "MR-C2" {
                return Err(format!(
                    "{}: combinable entry for unknown `{}`",
                    schema.name, c.mr
                ));
            }
        }
        if let Some(unknown) = used.into_iter().find(|l| !known(l)) {
            return Err(format!("{}: `{unknown}` is not in `labels`", schema.name));
        }
        Ok(schema)
    }

    /// The TACRED / Re-TACRED schema.
    pub fn tacred() -> &'static LabelSchema {
        static SCHEMA: OnceLock<LabelSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| LabelSchema::parse(TACRED_TOML).expect("labels/tacred.toml"))
    }

    /// The Wikidata (FewRel) schema.
    pub fn wikidata() -> &'static LabelSchema {
        static SCHEMA: OnceLock<LabelSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| LabelSchema::parse(WIKIDATA_TOML).expect("labels/wikidata.toml"))
    }

    /// The schema of `example` (see the module docs).
    pub fn of(example: &Example) -> &'static LabelSchema {
        if let Some(label) = example.label.as_deref() {
            if is_tacred_label(label) || label == "no_relation" {
                return Self::tacred();
            }
            if is_wikidata_label(label) {
                return Self::wikidata();
            }
        }
        let typed = [&example.head, &example.tail]
            .into_iter()
            .flatten()
            .any(|s| s.entity_type.is_some());
        if typed {
            Self::tacred()
        } else {
            Self::wikidata()
        }
    }

    /// Whether `label` names a relation of a schema metamorph reads: a TACRED relation
    /// (`per:…`, `org:…`) or a Wikidata property (`P<digits>`). A placeholder ("unlabelled",
    /// "unknown") or a label scheme metamorph does not know names none: its examples are read
    /// as unlabelled (SIT4RE's MR-R1 then draws from the type pool, not from one "role" that
    /// would mix every kind of argument).
    pub fn names_a_relation(label: &str) -> bool {
        is_tacred_label(label) || is_wikidata_label(label)
    }

    /// Whether the schema types its arguments (TACRED) or not (Wikidata / FewRel).
    pub fn is_typed(&self) -> bool {
        self.name == "tacred"
    }

    /// The kind of argument `role` (`"head"` or `"tail"`) of relation `label`, when the schema
    /// states one (not for [`ArgumentKind::Any`]).
    pub fn argument_kind(&self, label: &str, role: &str) -> Option<ArgumentKind> {
        let [head, tail] = self.arguments.get(label)?;
        Some(if role == "head" { *head } else { *tail }).filter(|k| *k != ArgumentKind::Any)
    }

    /// MR-S2's map: source label → the swapped pair's label.
    pub fn inverse_map(&self) -> BTreeMap<String, String> {
        self.inverse
            .iter()
            .map(|i| (i.label.clone(), i.inverse.clone()))
            .collect()
    }

    /// MR-R2's map for a city replaced by a place of `kind`: city label → coarser label.
    pub fn granularity_map(&self, kind: PlaceKind) -> BTreeMap<String, String> {
        self.granularity
            .iter()
            .map(|g| {
                let to = match kind {
                    PlaceKind::StateOrProvince => &g.state,
                    PlaceKind::Country => &g.country,
                };
                (g.city.clone(), to.clone())
            })
            .collect()
    }

    /// The combinable pairs of `mr` (`MR-C1` or `MR-C2`).
    pub fn combinable<'a>(&'a self, mr: &'a str) -> impl Iterator<Item = &'a Combinable> + 'a {
        self.combinable.iter().filter(move |c| c.mr == mr)
    }
}

/// A TACRED relation label (`per:…`, `org:…`; not `no_relation`).
fn is_tacred_label(label: &str) -> bool {
    label.starts_with("per:") || label.starts_with("org:")
}

/// A Wikidata property id (`P<digits>`), FewRel's labels.
fn is_wikidata_label(label: &str) -> bool {
    label
        .strip_prefix('P')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{EntitySpan, Task};

    #[test]
    fn only_the_schemas_labels_name_a_relation() {
        for label in ["per:spouse", "org:founded_by", "P26", "P1001"] {
            assert!(LabelSchema::names_a_relation(label), "{label}");
        }
        for label in ["unlabelled", "no_relation", "P", "Pxx", "founded_by", ""] {
            assert!(!LabelSchema::names_a_relation(label), "{label}");
        }
    }

    #[test]
    fn both_schemas_load_and_are_consistent() {
        let t = LabelSchema::tacred();
        assert_eq!(t.labels.len(), 42);
        assert!(t.symmetric.contains(&"per:spouse".to_string()));
        assert_eq!(t.inverse_map()["per:children"], "per:parents");
        assert_eq!(
            t.granularity_map(PlaceKind::Country)["per:city_of_birth"],
            "per:country_of_birth"
        );
        assert_eq!(
            t.granularity_map(PlaceKind::StateOrProvince)["per:cities_of_residence"],
            "per:stateorprovinces_of_residence"
        );
        let w = LabelSchema::wikidata();
        assert_eq!(w.granularity_map(PlaceKind::Country)["P19"], "P19");
        assert_eq!(w.granularity_map(PlaceKind::Country)["P131"], "P17");
        assert_eq!(w.inverse_map()["P25"], "P40");
        assert!(!w.inverse_map().contains_key("P40"));
        assert_eq!(w.combinable("MR-C1").count(), 2);
    }

    #[test]
    fn inconsistent_files_are_refused() {
        let bad = "name = \"x\"\nlabels = [\"a\"]\nsymmetric = [\"b\"]\n";
        assert!(LabelSchema::parse(bad).unwrap_err().contains("`b`"));
        let not_symmetric = "name = \"x\"\nlabels = [\"a\", \"b\"]\nsymmetric = []\n\
            [[combinable]]\nmr = \"MR-C1\"\nfirst = \"a\"\nsecond = [\"b\"]\ncandidate_types = []\n";
        assert!(LabelSchema::parse(not_symmetric)
            .unwrap_err()
            .contains("not symmetric"));
    }

    #[test]
    fn the_schema_follows_the_label_namespace_then_the_typing() {
        let mut e = Example::new("x", Task::Relation);
        e.label = Some("per:spouse".into());
        assert_eq!(LabelSchema::of(&e).name, "tacred");
        e.label = Some("P26".into());
        assert_eq!(LabelSchema::of(&e).name, "wikidata");
        e.label = None;
        assert_eq!(LabelSchema::of(&e).name, "wikidata");
        e.head = Some(EntitySpan {
            text: "A".into(),
            start: 0,
            end: 1,
            entity_type: Some("PERSON".into()),
        });
        assert_eq!(LabelSchema::of(&e).name, "tacred");
    }
}
