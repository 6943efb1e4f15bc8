//! The word and label lists that decide which clauses may change voice: dependencies that block a
//! conversion, verbs that do not passivise or activise well, idioms, partitives, name entities.

/// Dependency labels of root children that make a sentence ineligible in either direction.
pub(super) const FORBIDDEN_DEPS: &[&str] = &[
    "csubj",
    "csubjpass",
    "expl",
    "dative",
    "oprd",
    "attr",
    "acomp",
    "xcomp",
    "ccomp",
    "prt",
    "dep",
    "meta",
];

/// Root children allowed before the subject (sentence-initial adverbials and conjunctions).
pub(super) const PRE_SUBJECT_DEPS: &[&str] = &[
    "prep", "advmod", "advcl", "npadvmod", "cc", "punct", "mark", "intj",
];

/// Verbs whose living, counted or study-group subject is where a finding shows rather than who
/// acts ("the subgroup showed an increase", "caregivers developed a disorder", "15% presented
/// undernourishment"; PubMedQA's abstracts, 2026-12-01). Not "develop", whose planners
/// develop scenarios as often as patients develop a disorder.
pub(super) const OBSERVED_IN: &[&str] = &[
    "show",
    "demonstrate",
    "present",
    "exhibit",
    "display",
    "experience",
];

/// Nouns for a way of doing something, which a `by` phrase names as the means of a passive's
/// act rather than its doer (`characterized by the use of inhibitors`, `sequenced by standard
/// methods`).
pub(super) const METHOD_NOUNS: &[&str] = &[
    "method",
    "methodology",
    "technique",
    "procedure",
    "protocol",
    "approach",
    "strategy",
    "means",
    "analysis",
    "assay",
    "measurement",
    "use",
    "application",
    "technology",
];

/// Participles of a change in level, read after `have` as often as adjectives of the object
/// ("have elevated cortisol levels") as perfect verbs.
pub(super) const LEVEL_PARTICIPLES: &[&str] = &[
    "elevated",
    "increased",
    "decreased",
    "reduced",
    "raised",
    "lowered",
    "enhanced",
    "impaired",
    "altered",
    "diminished",
    "heightened",
    "prolonged",
    "improved",
    "depressed",
];

/// Verbs of showing, whose subject may be evidence of any kind (`The analysis showed …`).
pub(super) const SHOWING_VERBS: &[&str] = &[
    "show",
    "demonstrate",
    "reveal",
    "indicate",
    "suggest",
    "confirm",
    "establish",
    "prove",
    "support",
];

/// Verbs whose active form does not passivise well (stative, light or causative verbs).
pub(super) const NO_PASSIVE: &[&str] = &[
    "have",
    "receive",
    "get",
    "let",
    "become",
    "lack",
    // An experiencer subject: "wars were suffered by the city", "a subtle change had been
    // undergone by his whole attitude".
    "suffer",
    "undergo",
    "resemble",
    "cost",
    // Its passive reads as no one writes it ("a relationship with Maggie Pierce is begun by
    // Jackson", "The novel is begun by a terrible murder"): six of six judged rows unnatural
    // (WordNet's examples, BoolQ's, Re-DocRED's and WebNLG's texts, 2026-12-01).
    "begin",
    // "The film concerns the period …": to be about has no passive; "is concerned by" means
    // "worries" (Wikipedia reading 24, 2026-12-01).
    "concern",
    "weigh",
    "mean",
    "equal",
    "total",
    "number",
    "measure",
    "last",
    "fit",
    "suit",
    "contain",
    "include",
    // Stilted in the passive ("Much acclaim … is deserved by the producers", "An Oscar was
    // deserved by …": IMDb's reviews, 2026-12-01).
    "deserve",
    "comprise",
    "span",
    "marry",
    "hold",
    "reach",
    "enter",
    "join",
    "leave",
    "face",
    "run",
    "feature",
    "share",
    "involve",
    "do",
    "possess",
    "own",
    "want",
    "need",
    "like",
    "love",
    "hate",
    "prefer",
    "seem",
    "appear",
    "remain",
    "gain",
    "lose",
    "keep",
    "bear",
    "occupy",
    "host",
    "exceed",
    "average",
    "rank",
    "top",
    "head",
    "serve",
    "cross",
    "border",
    "follow",
    "precede",
    "affect",
    "mark",
    "star",
    "compose",
    "flow",
    "rise",
    "fall",
    "go",
    "come",
    "lie",
    "sit",
    "stand",
    "arrive",
    "return",
    "travel",
    "move",
    "extend",
    "stretch",
    "walk",
    "march",
    "sail",
    "fly",
    "swim",
    "drift",
    "depart",
    // "The country was fled by Sam Sary" (FewRel's sentences, 2026-12-01).
    "flee",
    "escape",
    "vest",
    "deprive",
    "rob",
    "accuse",
    "convict",
    "inform",
    "remind",
    "rid",
    "relieve",
    "strip",
    "cure",
    "warn",
    "notify",
    "assure",
    "suspect",
    "constitute",
    "represent",
    "account",
    "base",
    "put",
    "place",
    "turn",
    "set",
];

/// (verb, object lemma) pairs where the object measures the subject rather than undergoing the
/// verb: "The lake covers 92 acres", "The park covers an area of 50 hectares" (an area is no
/// patient: "92 acre of water is covered by the lake"), "The series has sold over 11 million
/// copies" (a work sells its copies as a car does miles: "copies have been sold by the
/// series" names a seller that is none). Found by the readings of WebNLG's train texts and of
/// GAP's, HotpotQA's and SQuAD's Wikipedia paragraphs (2026-12-01). A distance stays ("Almost
/// 100 miles were covered by the caravan", read natural); an area in "square" units does not
/// ([`super::to_passive`]).
pub(super) const MEASURE_OBJECTS: &[(&str, &[&str])] = &[
    ("cover", &["acre", "hectare", "area"]),
    ("sell", &["copy", "unit"]),
];

/// Verbs whose literal sense acts on a thing, and which with an abstract object (an act, an
/// event, a time, a state, …) are figurative: "Nico Rosberg took victory", "Stewart saw duty",
/// "Paul Simon hit a dry spell", "The river takes a southern course". The passive reads the
/// verb literally ("victory was taken by Nico Rosberg"). Found by the reading of FewRel's
/// Wikipedia sentences (2026-12-01); over every judged row it removes 7, 5 of them unnatural
/// ("A firm course was taken by the government" and "Potshots were taken at the mayor by
/// reporters" were read natural).
pub(super) const LITERAL_WITH_THINGS: &[&str] = &["take", "see", "hit"];

/// Whether `(verb, object)` is one of the `pairs` lists' (verb lemma, object lemmas) entries
/// ([`MEASURE_OBJECTS`], [`IDIOMS`]).
pub(super) fn pairs_with(pairs: &[(&str, &[&str])], verb: &str, object: &str) -> bool {
    pairs
        .iter()
        .any(|(v, objects)| *v == verb && objects.contains(&object))
}

/// Light-verb idioms (verb, object lemma) whose object cannot become a subject.
pub(super) const IDIOMS: &[(&str, &[&str])] = &[
    (
        "take",
        &[
            "place",
            "part",
            "effect",
            "office",
            "advantage",
            "care",
            "charge",
            "hold",
            "shape",
            "root",
            "turn",
            "time",
            "aim",
            "action",
            "note",
            "step",
            "form",
            "look",
            "refuge",
            "power",
            "control",
            "command",
            "lead",
            "way",
        ],
    ),
    (
        "make",
        &[
            "sense",
            "use",
            "progress",
            "way",
            "debut",
            "appearance",
            "appearances",
            "attempt",
            "effort",
            "difference",
            "decision",
            "mistake",
            "money",
            "landfall",
            "contact",
            "turn",
        ],
    ),
    ("pay", &["attention", "tribute", "homage", "visit"]),
    ("give", &["birth", "way", "rise", "chase"]),
    ("play", &["role", "part", "host"]),
    ("commit", &["suicide"]),
    // `The emotional impact defies words` (IMDb's reviews, 2026-12-01).
    (
        "defy",
        &[
            "word",
            "words",
            "description",
            "belief",
            "logic",
            "explanation",
            "imagination",
        ],
    ),
];

/// Verbs that take an object and an infinitive (`enabled X to be achieved`): the infinitive
/// may hang off the object, which the passive would split.
pub(super) const OBJECT_INFINITIVE: &[&str] = &[
    "enable",
    "allow",
    "permit",
    "cause",
    "force",
    "help",
    "encourage",
    "ask",
    "require",
    "lead",
    "invite",
    "persuade",
    "urge",
    "order",
    "tell",
    "teach",
    "expect",
    "inspire",
    "prompt",
    "compel",
    "oblige",
    "instruct",
    "advise",
    "convince",
    "authorize",
    "empower",
];

/// Verbs whose past and participle are the base form although lemminflect lists `-ed`.
pub(super) const CAST_VERBS: &[&str] =
    &["broadcast", "forecast", "telecast", "simulcast", "webcast"];

/// Verbs whose `by` phrase is often not an agent, or whose active reading changes meaning.
pub(super) const NO_ACTIVE: &[&str] = &[
    "locate",
    "situate",
    "know",
    "bear",
    "base",
    "bury",
    "marry",
    "call",
    "name",
    "term",
    "surround",
    "divide",
    "accompany",
    "make",
    // Verbs read almost only in the passive: the active is stilted ("an event in 1988
    // evidences an example of this syndrome").
    "evidence",
    "deem",
    "rumor",
    "rumour",
    "repute",
];

/// Heads whose number depends on an `of` complement (`a number of people are`).
pub(super) const PARTITIVES: &[&str] = &[
    "number",
    "lot",
    "lots",
    "majority",
    "minority",
    "plenty",
    "couple",
    "percent",
    "%",
    "half",
    "rest",
    "bunch",
    "dozen",
    "remainder",
    "part",
    "portion",
    "bulk",
    "most",
    "group",
    "pair",
    "series",
    "set",
    "variety",
    "range",
    "host",
    "total",
    "kind",
    "type",
    "sort",
    "third",
    "quarter",
    "fraction",
    "proportion",
    "share",
    "amount",
];

/// Named-entity types whose capitalised words stay capitalised mid-sentence.
pub(super) const NAME_ENTITIES: &[&str] = &[
    "PERSON",
    "NORP",
    "FAC",
    "ORG",
    "GPE",
    "LOC",
    "PRODUCT",
    "EVENT",
    "WORK_OF_ART",
    "LAW",
    "LANGUAGE",
];

/// Prepositions and adverbial particles that, heading a phrase right after the object, complete
/// the verb (`routed them out of bed`, `drained me of energy`, `carried it off the road`): the
/// passive keeps them beside the participle, before the agent. Scene-setting phrases (`in`,
/// `at`, `on`, …) stay after it, as in the paper's example.
pub(super) const VERB_COMPLEMENT_PREPOSITIONS: &[&str] =
    &["of", "out", "off", "away", "back", "down", "up"];

/// Nouns whose bare form is plural (`the people were`): a plural tag on them is right though
/// the word has no `-s` and is its own lemma.
pub(super) const INVARIANT_PLURALS: &[&str] = &[
    "people",
    "police",
    "cattle",
    "clergy",
    "livestock",
    "personnel",
    "poultry",
    "vermin",
    "folk",
    "offspring",
    "staff",
];

/// Verbs that take an object and a bare infinitive (`made the vessel heel`), where a verb
/// after the object is easily tagged as a noun of it.
pub(super) const BARE_INFINITIVE_VERBS: &[&str] = &[
    "make", "let", "have", "help", "see", "watch", "hear", "feel", "bid",
];

/// Prepositions of place whose phrase, after the object, would read as the agent's once the
/// agent comes before it ("seized by the sales clerk on the counter"): the passive puts such a
/// phrase before the agent instead. `throughout` sets an extent that no reader takes for the
/// agent's, and the paper's own example keeps it last ("is now used by the company throughout
/// the UK").
pub(super) const PLACE_PREPOSITIONS: &[&str] = &[
    "on", "at", "among", "amongst", "in", "within", "near", "under", "inside", "outside", "behind",
    "beside", "beneath", "above", "below", "across", "around",
];

/// Prepositions and nouns of time: a phrase after the object with one of them (`banned the
/// work for a time`, `won the prize in 1957`, `injected it after disinfection`) says when the
/// verb happened, never which of the object's kind was meant, so the passive does not take it
/// into the subject ("The Prix Jean Vigo in 1957 was won by the film").
pub(super) const TIME_PREPOSITIONS: &[&str] = &[
    "during",
    "after",
    "before",
    "since",
    "until",
    "till",
    "throughout",
    "following",
    "upon",
];

/// See [`TIME_PREPOSITIONS`].
pub(super) const TIME_NOUNS: &[&str] = &[
    "time", "while", "moment", "period", "year", "month", "week", "day", "hour", "minute",
    "season", "century", "decade", "night", "morning", "evening", "summer", "winter", "spring",
    "autumn", "fall",
];

/// Adverbs that complete a verb as particles (`held together`, `pushed aside`): after a passive
/// participle they stay after the object of the active verb, not before the verb.
pub(super) const PARTICLE_ADVERBS: &[&str] = &[
    "together", "apart", "away", "back", "up", "down", "out", "off", "open", "shut", "aside",
    "forward", "home", "in", "over", "around", "along", "about", "aback",
];

/// Adjectives that judge what a thing is good for (`make a good teacher`, `make the best
/// lumber`): after `make` in the present or with a modal, an object so qualified names what the
/// subject serves as or becomes, a sense with no passive ("A satisfactory seat is made by the
/// step" reads as built).
pub(super) const SERVE_AS_ADJECTIVES: &[&str] = &[
    "good",
    "better",
    "best",
    "fine",
    "finer",
    "finest",
    "great",
    "greater",
    "greatest",
    "excellent",
    "satisfactory",
    "perfect",
    "ideal",
    "poor",
    "poorer",
    "poorest",
    "wonderful",
    "splendid",
    "useful",
    "handy",
    "suitable",
    "terrible",
    "bad",
    "worse",
    "worst",
    "nice",
    "decent",
    "superb",
    "lovely",
    "fitting",
    "admirable",
    "first-rate",
];

/// Determiners that quantify over a plural (`most criminal cases`): with an indefinite agent
/// in the present, the passive says each is done by some one agent, the active that one agent
/// does them all.
pub(super) const PLURAL_QUANTIFIERS: &[&str] = &[
    "most", "many", "all", "some", "few", "several", "these", "those",
];

/// Verbs of starting, going on and stopping, whose bare -ing object is an activity (`ceased
/// trading`, `began filming`), not a patient.
pub(super) const ASPECTUAL_VERBS: &[&str] = &[
    "begin", "cease", "commence", "continue", "finish", "quit", "resume", "start", "stop",
];

/// Verbs of rising and falling, whose object a number of percent, points or cents measures
/// (`eased 0.15 percent`, `added 10 points`) where other verbs' may be a share held or bought
/// (`owns 40 percent`).
pub(super) const CHANGE_VERBS: &[&str] = &[
    "add", "advance", "climb", "decline", "dip", "drop", "ease", "edge", "fall", "gain", "jump",
    "lose", "plunge", "rally", "rise", "shed", "sink", "slide", "slip", "soar", "surge", "tumble",
];

/// The units of which a number measures how far a subject of [`CHANGE_VERBS`] moved.
pub(super) const CHANGE_UNITS: &[&str] = &["percent", "%", "points", "point", "cents", "cent"];

/// What is told, as *tell*'s only object (`told the truth`, `tells a story`); any other object
/// is the hearer (`told a crowd`).
pub(super) const TOLD_THINGS: &[&str] = &[
    "difference",
    "fortune",
    "joke",
    "lie",
    "news",
    "secret",
    "story",
    "tale",
    "time",
    "truth",
];
