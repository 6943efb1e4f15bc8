//! spaCy's BILUO entity transition system (`ner.pyx`, `BiluoPushDown`).
//!
//! Moves: BEGIN-label, IN-label, LAST-label, UNIT-label and OUT, each consuming one token.
//! Validity follows spaCy's rules for documents without preset entities: an entity cannot begin
//! on a whitespace token or right before a sentence start, cannot continue across a sentence
//! start (so the parser's sentence boundaries matter), and IN/LAST must keep the open label.
//! Feature tokens (3): B0, the open entity's first token, and the token before B0 inside it.

use std::path::Path;

use super::super::lexeme::is_space;
use super::super::{Doc, EntIob, LoadError};
use super::moves::{read_actions, Action};
use super::TransitionSystem;

const MISSING: u8 = 0;
const BEGIN: u8 = 1;
const IN: u8 = 2;
const LAST: u8 = 3;
const UNIT: u8 = 4;
const OUT: u8 = 5;

/// The BILUO actions of an NER component.
#[derive(Clone, Debug)]
pub struct Biluo {
    actions: Vec<Action>,
}

/// Entity recognition in progress over one document.
#[derive(Clone, Debug)]
pub struct BiluoState {
    length: usize,
    b_i: usize,
    /// Whether token i is whitespace (entities may not start there).
    space: Vec<bool>,
    /// Whether token i starts a sentence (as the parser set it).
    sent_start: Vec<bool>,
    /// Entities so far: (start, end or None while open, action index of its label).
    ents: Vec<(usize, Option<usize>, usize)>,
}

impl BiluoState {
    fn b(&self, i: usize) -> i32 {
        let b = self.b_i + i;
        if b >= self.length {
            -1
        } else {
            b as i32
        }
    }

    fn buffer_length(&self) -> usize {
        self.length - self.b_i
    }

    fn open_entity(&self) -> Option<&(usize, Option<usize>, usize)> {
        self.ents.last().filter(|e| e.1.is_none())
    }

    fn next_starts_sentence(&self) -> bool {
        let b1 = self.b(1);
        b1 >= 0 && self.sent_start[b1 as usize]
    }
}

impl Biluo {
    /// Reads an NER component's `moves` file.
    pub fn from_moves(path: &Path) -> Result<Self, LoadError> {
        let actions = read_actions(path, |m, label| {
            m != MISSING && (m != OUT || label.is_empty())
        })?;
        if let Some(bad) = actions.iter().find(|a| a.move_code > OUT) {
            return Err(LoadError::new(
                path,
                format!("unknown BILUO move {}", bad.move_code),
            ));
        }
        Ok(Self { actions })
    }

    /// A fresh state for `doc`, whose sentence starts must already be set.
    pub fn init_state(&self, doc: &Doc) -> BiluoState {
        BiluoState {
            length: doc.len(),
            b_i: 0,
            space: (0..doc.len())
                .map(|i| is_space(doc.token_text(i)))
                .collect(),
            sent_start: doc.tokens.iter().map(|t| t.sent_start).collect(),
            ents: Vec::new(),
        }
    }

    /// Writes entity IOB codes and types into `doc`.
    pub fn set_annotations(&self, state: &BiluoState, doc: &mut Doc) {
        for token in &mut doc.tokens {
            token.ent_iob = EntIob::O;
            token.ent_type.clear();
        }
        for &(start, end, action) in &state.ents {
            let Some(end) = end else { continue };
            for i in start..end {
                let token = &mut doc.tokens[i];
                token.ent_iob = if i == start { EntIob::B } else { EntIob::I };
                token.ent_type.clone_from(&self.actions[action].label);
            }
        }
    }
}

impl TransitionSystem for Biluo {
    type State = BiluoState;

    fn n_actions(&self) -> usize {
        self.actions.len()
    }

    fn is_final(&self, st: &BiluoState) -> bool {
        st.buffer_length() == 0
    }

    fn context_tokens(&self, st: &BiluoState, ids: &mut [i32]) {
        ids[0] = st.b(0);
        ids[1] = st.open_entity().map_or(-1, |e| e.0 as i32);
        ids[2] = if ids[0] == -1 || ids[1] == -1 {
            -1
        } else {
            ids[0] - 1
        };
    }

    fn valid_actions(&self, st: &BiluoState, valid: &mut [bool]) {
        let open = st.open_entity();
        let b0_space = st.b(0) >= 0 && st.space[st.b(0) as usize];
        for (v, action) in valid.iter_mut().zip(&self.actions) {
            let labelled = !action.label.is_empty();
            let same_label = open.is_some_and(|e| self.actions[e.2].label == action.label);
            *v = match action.move_code {
                BEGIN => {
                    open.is_none()
                        && st.buffer_length() >= 2
                        && labelled
                        && !st.next_starts_sentence()
                        && !b0_space
                }
                IN => {
                    open.is_some()
                        && st.buffer_length() >= 2
                        && labelled
                        && same_label
                        && !st.next_starts_sentence()
                }
                LAST => labelled && open.is_some() && same_label,
                UNIT => labelled && open.is_none() && !b0_space,
                OUT => open.is_none(),
                _ => false,
            };
        }
    }

    fn apply(&self, st: &mut BiluoState, action: usize) {
        let b0 = st.b_i;
        match self.actions[action].move_code {
            BEGIN => st.ents.push((b0, None, action)),
            LAST => {
                if let Some(e) = st.ents.last_mut() {
                    e.1 = Some(b0 + 1);
                }
            }
            UNIT => st.ents.push((b0, Some(b0 + 1), action)),
            _ => {}
        }
        st.b_i += 1;
    }

    fn force_final(&self, st: &mut BiluoState) {
        st.b_i = st.length;
    }
}
