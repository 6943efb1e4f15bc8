//! Entity pools for SIT4RE's replacement relations (seed-001): MR-R1 replaces a head or tail
//! with another entity *of the same type*, MR-R3 with a co-related entity of a different type,
//! both drawn "randomly" from pools the paper built by running NER over the input corpus.
//!
//! Design decisions, recorded here:
//! * **Two sources of types.** [`EntityPool::from_texts`] / [`EntityPool::from_docs`] use the
//!   project's NER (the pure-Rust port of spaCy's `en_core_web_sm`, OntoNotes types `PERSON`,
//!   `ORG`, `GPE`, …). [`EntityPool::from_examples`] takes an example's *gold* head/tail spans
//!   when they are typed (TACRED: `PERSON`, `ORGANIZATION`, `CITY`, …), because then the pool's
//!   types are the ones the relation must match; only examples without typed spans (FewRel,
//!   plain-text tasks) go through the NER. A pool therefore holds the type vocabulary of its
//!   corpus; build one pool per dataset.
//! * **Roles as types.** A type such as FewRel's NER `GPE` mixes kinds a relation does not
//!   (a language's slot takes no city), so a pool also keeps, for every labelled example, its
//!   head and tail under the role they fill: `P364/tail` ("original language of work") holds
//!   languages only, `per:city_of_birth/tail` cities only ([`role_key`]). The label used is the
//!   gold one: it says what kind of thing the argument is, the dataset's own typing, and is
//!   never compared with a model's output.
//! * **Surface forms** are the mention's text with whitespace runs collapsed to one space,
//!   case kept (`Apple` and `apple` are two entries). A mention is a maximal `B I*` run of one
//!   type in the NER's IOB codes.
//! * **Counts** are mentions, with identical texts fed once per build (SQuAD repeats a context
//!   per question; counting it each time would make frequencies follow the question count).
//! * **Order** within a type is frequency descending, then text (byte order), so the pool, its
//!   JSON and every draw are the same whatever the input order. Types are in name order.
//! * **Sampling** is uniform over the distinct surface forms of a type that are not excluded
//!   (exclusion is case-insensitive, so the mention being replaced is never drawn back in
//!   another case). The paper says only "randomly"; uniform over forms rather than weighted by
//!   count keeps rare names in play, which its Table 8 high/low-frequency experiment needs:
//!   [`EntityPool::entries`] is frequency-sorted for that split.
//! * **Randomness** comes from [`SplitMix64`], a ten-line documented generator, rather than a new
//!   dependency on `rand` (which the workspace only has transitively): a draw must be a pure
//!   function of the seed, and `rand`'s algorithms are not guaranteed stable across versions.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use metamorph_data::{Error, Example, Result};
use metamorph_parse::spacy::pipeline::{Pipeline, TextError};
use metamorph_parse::spacy::{Doc, EntIob};
use serde::{Deserialize, Serialize};

/// One surface form of an entity type and how many mentions of it the corpus has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolEntry {
    /// The mention's text (`Tim Cook`).
    pub text: String,
    /// Number of mentions.
    pub count: u32,
}

/// The serialised shape of a pool; deserialising goes through it so that a hand-edited or
/// older file is re-sorted and merged into the pool's invariants.
#[derive(Deserialize)]
struct PoolData {
    #[serde(default)]
    source: String,
    types: BTreeMap<String, Vec<PoolEntry>>,
    #[serde(default)]
    roles: BTreeMap<String, Vec<PoolEntry>>,
}

impl From<PoolData> for EntityPool {
    fn from(data: PoolData) -> Self {
        let mut builder = EntityPoolBuilder::new(data.source);
        for (entity_type, entries) in data.types {
            for entry in entries {
                builder.add_count(&entity_type, &entry.text, entry.count);
            }
        }
        for (key, entries) in data.roles {
            for entry in entries {
                bump(&mut builder.roles, &key, &entry.text, entry.count);
            }
        }
        builder.build()
    }
}

/// Entity surface forms by type and by argument role, with mention counts, in a deterministic
/// order (see the module docs). Serialises to JSON as `{"source": …, "types": {"PERSON":
/// [{"text", "count"}, …]}, "roles": {"P364/tail": […]}}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "PoolData")]
pub struct EntityPool {
    /// Where the types come from: `ner:<pipeline>`, `gold`, or both joined by `+`.
    source: String,
    /// Entries by type, each list frequency-descending then by text.
    types: BTreeMap<String, Vec<PoolEntry>>,
    /// Entries by argument role ([`role_key`]: `P364/tail`, `per:title/tail`), sorted alike.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    roles: BTreeMap<String, Vec<PoolEntry>>,
}

/// Accumulates mentions, then sorts them into an [`EntityPool`].
#[derive(Clone, Debug, Default)]
pub struct EntityPoolBuilder {
    source: String,
    counts: HashMap<String, HashMap<String, u32>>,
    roles: HashMap<String, HashMap<String, u32>>,
}

/// The key of the argument role `role` (`head` or `tail`) of relation `label` in a pool's
/// roles: `P364/tail` holds every tail of "original language of work" in the corpus.
pub fn role_key(label: &str, role: &str) -> String {
    format!("{label}/{role}")
}

/// Adds `count` mentions of `text` under `key` (ignored when either is blank).
fn bump(map: &mut HashMap<String, HashMap<String, u32>>, key: &str, text: &str, count: u32) {
    let text = normalise(text);
    let key = key.trim();
    if text.is_empty() || key.is_empty() || count == 0 {
        return;
    }
    let slot = map
        .entry(key.to_string())
        .or_default()
        .entry(text)
        .or_insert(0);
    *slot = slot.saturating_add(count);
}

/// Sorts counted forms into entry lists: frequency descending, then text.
fn sorted(counts: HashMap<String, HashMap<String, u32>>) -> BTreeMap<String, Vec<PoolEntry>> {
    counts
        .into_iter()
        .map(|(key, forms)| {
            let mut entries: Vec<PoolEntry> = forms
                .into_iter()
                .map(|(text, count)| PoolEntry { text, count })
                .collect();
            entries.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
            (key, entries)
        })
        .collect()
}

/// Collapses whitespace runs to one space and trims.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl EntityPoolBuilder {
    /// An empty builder; `source` says where its types come from (`gold`, `ner:en_core_web_sm`).
    pub fn new(source: impl Into<String>) -> Self {
        EntityPoolBuilder {
            source: source.into(),
            counts: HashMap::new(),
            roles: HashMap::new(),
        }
    }

    /// Records one mention of `text` as `entity_type` (ignored when either is blank).
    pub fn add(&mut self, entity_type: &str, text: &str) {
        self.add_count(entity_type, text, 1);
    }

    /// Records `count` mentions of `text` as `entity_type` (ignored when either is blank).
    pub fn add_count(&mut self, entity_type: &str, text: &str, count: u32) {
        bump(&mut self.counts, entity_type, text, count);
    }

    /// Records one mention of `text` filling argument `role` (`head`, `tail`) of `label`.
    pub fn add_role(&mut self, label: &str, role: &str, text: &str) {
        bump(&mut self.roles, &role_key(label, role), text, 1);
    }

    /// Records the gold head and tail of a labelled `example` under their roles of its label
    /// (typed or not: FewRel's untyped arguments are typed by the role they fill); returns
    /// whether it had a label and arguments.
    pub fn add_gold_roles(&mut self, example: &Example) -> bool {
        let Some(label) = example.label.as_deref().filter(|l| !l.trim().is_empty()) else {
            return false;
        };
        let mut any = false;
        for (role, span) in [("head", &example.head), ("tail", &example.tail)] {
            if let Some(span) = span {
                self.add_role(label, role, &span.text);
                any = true;
            }
        }
        any
    }

    /// Records every named entity the NER marked in `doc`.
    pub fn add_doc(&mut self, doc: &Doc) {
        for (entity_type, start, end) in doc_entities(doc) {
            let text = &doc.text[doc.tokens[start].start..doc.tokens[end - 1].end];
            self.add(&entity_type, text);
        }
    }

    /// Records the typed gold head and tail of `example`; returns whether it had any.
    pub fn add_gold_spans(&mut self, example: &Example) -> bool {
        let mut any = false;
        for span in [&example.head, &example.tail].into_iter().flatten() {
            if let Some(entity_type) = span.entity_type.as_deref() {
                self.add(entity_type, &span.text);
                any = true;
            }
        }
        any
    }

    /// The pool, sorted.
    pub fn build(self) -> EntityPool {
        EntityPool {
            source: self.source,
            types: sorted(self.counts),
            roles: sorted(self.roles),
        }
    }
}

/// The entity mentions of `doc` as `(type, first token, one past the last token)`: maximal
/// runs of a `B` (or a stray `I`) followed by `I`s of the same type.
pub fn doc_entities(doc: &Doc) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    for (i, token) in doc.tokens.iter().enumerate() {
        let continues =
            token.ent_iob == EntIob::I && open.is_some_and(|(_, t)| t == token.ent_type.as_str());
        if continues {
            continue;
        }
        if let Some((start, t)) = open.take() {
            found.push((t.to_string(), start, i));
        }
        if matches!(token.ent_iob, EntIob::B | EntIob::I) && !token.ent_type.is_empty() {
            open = Some((i, token.ent_type.as_str()));
        }
    }
    if let Some((start, t)) = open {
        found.push((t.to_string(), start, doc.tokens.len()));
    }
    found
}

/// The texts of `example` the NER reads: its pre-tokenised sentence (tokens joined by spaces)
/// and whichever of `text`, `text_b`, `context` and `question` it has.
pub fn example_texts(example: &Example) -> Vec<String> {
    let mut texts = Vec::new();
    if let Some(tokens) = &example.tokens {
        texts.push(tokens.join(" "));
    }
    for field in [
        &example.text,
        &example.text_b,
        &example.context,
        &example.question,
    ] {
        if let Some(text) = field.as_deref().filter(|t| !t.trim().is_empty()) {
            texts.push(text.to_string());
        }
    }
    texts
}

fn ner_source(pipeline: &Pipeline) -> String {
    format!("ner:{}", pipeline.name())
}

fn run_ner(pipeline: &Pipeline, texts: &[&str]) -> Result<Vec<Doc>> {
    pipeline
        .process(texts)
        .map_err(|TextError::TooLong { index, chars, max }| Error::Model {
            model: pipeline.name().to_string(),
            message: format!(
                "entity pool: text {index} has {chars} characters, more than max_length {max}"
            ),
        })
}

/// Unique texts in first-seen order.
fn unique<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    texts.into_iter().filter(|t| seen.insert(*t)).collect()
}

impl EntityPool {
    /// A pool of the entities the NER marked in `docs`.
    pub fn from_docs(docs: &[Doc], source: impl Into<String>) -> Self {
        let mut builder = EntityPoolBuilder::new(source);
        for doc in docs {
            builder.add_doc(doc);
        }
        builder.build()
    }

    /// Runs `pipeline` over `texts` (each distinct text once) and pools its entities.
    ///
    /// # Errors
    /// [`Error::Model`] when a text is longer than the pipeline's `max_length`.
    pub fn from_texts(pipeline: &Pipeline, texts: &[&str]) -> Result<Self> {
        let texts = unique(texts.iter().copied());
        let docs = run_ner(pipeline, &texts)?;
        Ok(Self::from_docs(&docs, ner_source(pipeline)))
    }

    /// A pool of `examples`' entities: the gold head/tail spans of examples whose spans are
    /// typed, and, when `pipeline` is given, the NER's entities in the texts of the others
    /// ([`example_texts`]; each distinct text once).
    ///
    /// # Errors
    /// As [`EntityPool::from_texts`].
    pub fn from_examples(examples: &[Example], pipeline: Option<&Pipeline>) -> Result<Self> {
        let mut builder = EntityPoolBuilder::default();
        let mut untyped = Vec::new();
        let mut gold = false;
        for example in examples {
            builder.add_gold_roles(example);
            if builder.add_gold_spans(example) {
                gold = true;
            } else {
                untyped.extend(example_texts(example));
            }
        }
        let mut sources = Vec::new();
        if gold {
            sources.push("gold".to_string());
        }
        if let Some(pipeline) = pipeline.filter(|_| !untyped.is_empty()) {
            let texts = unique(untyped.iter().map(String::as_str));
            for doc in run_ner(pipeline, &texts)? {
                builder.add_doc(&doc);
            }
            sources.push(ner_source(pipeline));
        }
        builder.source = sources.join("+");
        Ok(builder.build())
    }

    /// Where the types come from: `ner:<pipeline>`, `gold`, or both joined by `+`.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The entity types present, in name order.
    pub fn types(&self) -> impl Iterator<Item = &str> {
        self.types.keys().map(String::as_str)
    }

    /// The surface forms of `entity_type`, most frequent first (empty for an unknown type).
    pub fn entries(&self, entity_type: &str) -> &[PoolEntry] {
        self.types.get(entity_type).map_or(&[], Vec::as_slice)
    }

    /// How many mentions of `text` as `entity_type` were pooled.
    pub fn count(&self, entity_type: &str, text: &str) -> u32 {
        self.entries(entity_type)
            .iter()
            .find(|e| e.text == text)
            .map_or(0, |e| e.count)
    }

    /// The types under which `text` occurs, in name order: MR-R3's co-related entities are
    /// mentions labelled with more than one type.
    pub fn types_of(&self, text: &str) -> Vec<&str> {
        self.types
            .iter()
            .filter(|(_, entries)| entries.iter().any(|e| e.text == text))
            .map(|(t, _)| t.as_str())
            .collect()
    }

    /// Number of (type, surface form) entries.
    pub fn len(&self) -> usize {
        self.types.values().map(Vec::len).sum()
    }

    /// Whether the pool has no entry.
    pub fn is_empty(&self) -> bool {
        self.types.values().all(Vec::is_empty)
    }

    /// The forms that filled argument `role` (`head`, `tail`) of relation `label` in the
    /// corpus, most frequent first (empty when the corpus had none).
    pub fn role_entries(&self, label: &str, role: &str) -> &[PoolEntry] {
        self.roles
            .get(&role_key(label, role))
            .map_or(&[], Vec::as_slice)
    }

    /// The role keys present ([`role_key`]), in name order.
    pub fn roles(&self) -> impl Iterator<Item = &str> {
        self.roles.keys().map(String::as_str)
    }

    /// The majority type of `text` in the pool: the type it was pooled under most often
    /// (ties: the first in name order); `None` when it was never typed.
    pub fn majority_type(&self, text: &str) -> Option<&str> {
        let mut best: Option<(&str, u32)> = None;
        for t in self.types_of(text) {
            let count = self.count(t, text);
            if best.is_none_or(|(_, c)| count > c) {
                best = Some((t, count));
            }
        }
        best.map(|(t, _)| t)
    }

    /// A surface form of `entity_type`, drawn uniformly among those not in `exclude`
    /// (case-insensitive), as a pure function of `seed`; `None` when no candidate is left.
    pub fn sample(&self, entity_type: &str, exclude: &[&str], seed: u64) -> Option<&str> {
        draw(self.entries(entity_type), exclude, seed, |_| true)
    }

    /// As [`EntityPool::sample`], among the forms that `fits` accepts.
    pub fn sample_where(
        &self,
        entity_type: &str,
        exclude: &[&str],
        seed: u64,
        fits: impl Fn(&str) -> bool,
    ) -> Option<&str> {
        draw(self.entries(entity_type), exclude, seed, fits)
    }

    /// As [`EntityPool::sample`], from the forms of argument `role` of relation `label`.
    pub fn sample_role(
        &self,
        label: &str,
        role: &str,
        exclude: &[&str],
        seed: u64,
    ) -> Option<&str> {
        draw(self.role_entries(label, role), exclude, seed, |_| true)
    }

    /// As [`EntityPool::sample_role`], among the forms that `fits` accepts.
    pub fn sample_role_where(
        &self,
        (label, role): (&str, &str),
        exclude: &[&str],
        seed: u64,
        fits: impl Fn(&str) -> bool,
    ) -> Option<&str> {
        draw(self.role_entries(label, role), exclude, seed, fits)
    }

    /// Writes the pool as pretty JSON.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written.
    pub fn save_json(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::io(path, std::io::Error::other(e)))?;
        // Written beside the target, then renamed: a reader never sees half a pool, and an
        // interrupted build leaves no file that a later run would take as complete.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".tmp-{}", std::process::id()));
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, json).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    }

    /// Reads a pool written by [`EntityPool::save_json`] (re-sorting it).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Malformed`] naming line and column
    /// when it is not a pool.
    pub fn load_json(path: impl AsRef<Path>) -> Result<Self> {
        super::read_json(path.as_ref())
    }
}

/// A form of `entries` drawn uniformly among those not in `exclude` (case-insensitive) that
/// `fits` accepts, as a pure function of `seed`.
fn draw<'a>(
    entries: &'a [PoolEntry],
    exclude: &[&str],
    seed: u64,
    fits: impl Fn(&str) -> bool,
) -> Option<&'a str> {
    let excluded: HashSet<String> = exclude
        .iter()
        .map(|e| normalise(e).to_lowercase())
        .collect();
    let candidates: Vec<&str> = entries
        .iter()
        .map(|e| e.text.as_str())
        .filter(|t| !excluded.contains(&t.to_lowercase()) && fits(t))
        .collect();
    if candidates.is_empty() {
        return None;
    }
    Some(candidates[SplitMix64::new(seed).below(candidates.len())])
}

/// SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of `java.util.SplittableRandom`
/// and of xoshiro): a 64-bit state advanced by a Weyl constant and mixed by two
/// multiply-xorshift rounds. Statistically sound for drawing replacements, every seed
/// (zero included) gives a distinct stream, and the output is fixed by this code, so a case's
/// follow-up is reproducible from its seed forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below `n / 2^64`).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "SplitMix64::below(0)");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}
