//! The annotated document every pipeline component reads and writes.

/// A tokenised text and its annotations, filled in component by component.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc {
    /// The original text.
    pub text: String,
    /// Tokens in order; their byte ranges tile `text` together with their trailing spaces.
    pub tokens: Vec<Token>,
}

/// Entity IOB code, as spaCy's `ent_iob_`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EntIob {
    /// Not annotated (`""`).
    #[default]
    Missing,
    /// Inside an entity (`"I"`).
    I,
    /// Outside any entity (`"O"`).
    O,
    /// Beginning of an entity (`"B"`).
    B,
}

impl EntIob {
    /// spaCy's string form: `""`, `"I"`, `"O"` or `"B"`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntIob::Missing => "",
            EntIob::I => "I",
            EntIob::O => "O",
            EntIob::B => "B",
        }
    }
}

/// One token and its annotations. Strings are empty until the component that sets them ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Token {
    /// Byte offset of the token's first byte in [`Doc::text`].
    pub start: usize,
    /// Byte offset one past its last byte.
    pub end: usize,
    /// Whether one space follows the token (spaCy's `whitespace_ == " "`).
    pub whitespace: bool,
    /// The norm set by a tokenizer special case, which overrides the lexeme's norm.
    pub norm_exception: Option<String>,
    /// Fine-grained tag (`tag_`).
    pub tag: String,
    /// Universal POS (`pos_`).
    pub pos: String,
    /// Morphological features in spaCy's canonical form, e.g. `Number=Sing|Person=3`.
    pub morph: String,
    /// Lemma (`lemma_`).
    pub lemma: String,
    /// Dependency label (`dep_`).
    pub dep: String,
    /// Index of the syntactic head; the token itself for a root.
    pub head: usize,
    /// Entity IOB code.
    pub ent_iob: EntIob,
    /// Entity label, empty outside entities.
    pub ent_type: String,
    /// Whether the token starts a sentence.
    pub sent_start: bool,
}

impl Doc {
    /// The verbatim text of token `i`.
    pub fn token_text(&self, i: usize) -> &str {
        let t = &self.tokens[i];
        &self.text[t.start..t.end]
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the document has no tokens.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Sentences as token ranges `[start, end)`, from the tokens' `sent_start` flags.
    pub fn sentences(&self) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        for i in 1..self.tokens.len() {
            if self.tokens[i].sent_start {
                out.push(start..i);
                start = i;
            }
        }
        if !self.tokens.is_empty() {
            out.push(start..self.tokens.len());
        }
        out
    }
}
