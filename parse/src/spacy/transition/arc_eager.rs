//! spaCy's arc-eager transition system for dependency parsing (`arc_eager.pyx`, `_state.pxd`).
//!
//! Moves: SHIFT, REDUCE, LEFT-label, RIGHT-label and BREAK (marks the next buffer token as a
//! sentence start). It is non-monotonic like spaCy's: REDUCE on a headless stack top puts it back
//! on the buffer (and marks it unshiftable), and LEFT may replace an existing head. Validity
//! follows spaCy's rules exactly. Feature tokens (8): B0, B1, S0, S1, S2, the leftmost-but-latest
//! left child of B0 and of S0, and the latest right child of S0, as `set_context_tokens`.
//!
//! Reproduced quirk: when an arc is replaced, spaCy only removes it from its head's child list if
//! it is the most recently added one (the other branch edits a copy); the child lists here behave
//! the same, so the L/R features see the same children. Final heads come from the head array.

use std::path::Path;

use super::super::{Doc, LoadError};
use super::moves::{read_actions, Action};
use super::TransitionSystem;

const SHIFT: u8 = 0;
const REDUCE: u8 = 1;
const LEFT: u8 = 2;
const RIGHT: u8 = 3;
const BREAK: u8 = 4;

/// The arc-eager actions of a parser component.
#[derive(Clone, Debug)]
pub struct ArcEager {
    actions: Vec<Action>,
}

/// A parse in progress.
#[derive(Clone, Debug)]
pub struct ArcEagerState {
    length: usize,
    heads: Vec<i32>,
    labels: Vec<u32>,
    stack: Vec<usize>,
    rebuffer: Vec<usize>,
    b_i: usize,
    unshiftable: Vec<bool>,
    sent_starts: Vec<bool>,
    /// Children attached to the left of each head, in attachment order (`-1` = removed).
    left_arcs: Vec<Vec<i32>>,
    /// Children attached to the right of each head.
    right_arcs: Vec<Vec<i32>>,
}

impl ArcEagerState {
    fn new(length: usize) -> Self {
        Self {
            length,
            heads: vec![-1; length],
            labels: vec![0; length],
            stack: Vec::new(),
            rebuffer: Vec::new(),
            b_i: 0,
            unshiftable: vec![false; length],
            sent_starts: vec![false; length],
            left_arcs: vec![Vec::new(); length],
            right_arcs: vec![Vec::new(); length],
        }
    }

    fn s(&self, i: usize) -> i32 {
        if i >= self.stack.len() {
            -1
        } else {
            self.stack[self.stack.len() - 1 - i] as i32
        }
    }

    fn b(&self, i: usize) -> i32 {
        if i < self.rebuffer.len() {
            return self.rebuffer[self.rebuffer.len() - 1 - i] as i32;
        }
        let b = self.b_i + (i - self.rebuffer.len());
        if b >= self.length {
            -1
        } else {
            b as i32
        }
    }

    fn buffer_length(&self) -> usize {
        self.length - self.b_i + self.rebuffer.len()
    }

    fn nth_child(arcs: &[Vec<i32>], head: i32, idx: usize) -> i32 {
        if head < 0 {
            return -1;
        }
        arcs[head as usize]
            .iter()
            .rev()
            .filter(|&&c| c != -1)
            .nth(idx - 1)
            .copied()
            .unwrap_or(-1)
    }

    fn is_sent_start(&self, word: i32) -> bool {
        word >= 0 && (word as usize) < self.length && self.sent_starts[word as usize]
    }

    fn push(&mut self) {
        let b0 = if let Some(b) = self.rebuffer.pop() {
            b
        } else {
            self.b_i += 1;
            self.b_i - 1
        };
        self.stack.push(b0);
    }

    fn add_arc(&mut self, head: usize, child: usize, label: u32) {
        if self.heads[child] >= 0 {
            let old = self.heads[child] as usize;
            let arcs = if old > child {
                &mut self.left_arcs[old]
            } else {
                &mut self.right_arcs[old]
            };
            if arcs.last() == Some(&(child as i32)) {
                arcs.pop();
            }
        }
        if head > child {
            self.left_arcs[head].push(child as i32);
        } else {
            self.right_arcs[head].push(child as i32);
        }
        self.heads[child] = head as i32;
        self.labels[child] = label;
    }
}

impl ArcEager {
    /// Reads a parser component's `moves` file.
    pub fn from_moves(path: &Path) -> Result<Self, LoadError> {
        let actions = read_actions(path, |_, _| true)?;
        if let Some(bad) = actions.iter().find(|a| a.move_code > BREAK) {
            return Err(LoadError::new(
                path,
                format!("unknown arc-eager move {}", bad.move_code),
            ));
        }
        Ok(Self { actions })
    }

    /// A fresh state for a document of `length` tokens.
    pub fn init_state(&self, length: usize) -> ArcEagerState {
        ArcEagerState::new(length)
    }

    fn shift_valid(st: &ArcEagerState) -> bool {
        if st.stack.is_empty() {
            true
        } else if st.buffer_length() < 2 {
            false
        } else {
            let b0 = st.b(0);
            !(st.is_sent_start(b0) || (b0 >= 0 && st.unshiftable[b0 as usize]))
        }
    }

    fn reduce_valid(st: &ArcEagerState) -> bool {
        // spaCy also forbids REDUCE when the stack has one item and B0 cannot start a sentence;
        // that needs preset sentence boundaries, which inference never has.
        !st.stack.is_empty()
    }

    fn arc_valid(st: &ArcEagerState) -> bool {
        !st.stack.is_empty() && st.buffer_length() > 0 && !st.is_sent_start(st.b(0))
    }

    fn break_valid(st: &ArcEagerState) -> bool {
        st.buffer_length() >= 2 && st.b(1) == st.b(0) + 1 && !st.is_sent_start(st.b(1))
    }

    /// Writes heads, labels and sentence starts into `doc`: headless tokens become `ROOT`, and
    /// pseudo-projective labels (`dobj||xcomp`) are decoded afterwards by the caller.
    pub fn set_annotations(&self, state: &ArcEagerState, doc: &mut Doc) {
        for (i, token) in doc.tokens.iter_mut().enumerate() {
            if state.heads[i] < 0 {
                token.head = i;
                token.dep = "ROOT".to_string();
            } else {
                token.head = state.heads[i] as usize;
                token
                    .dep
                    .clone_from(&self.actions[state.labels[i] as usize].label);
            }
        }
    }
}

impl TransitionSystem for ArcEager {
    type State = ArcEagerState;

    fn n_actions(&self) -> usize {
        self.actions.len()
    }

    fn is_final(&self, st: &ArcEagerState) -> bool {
        st.stack.is_empty() && st.buffer_length() == 0
    }

    fn context_tokens(&self, st: &ArcEagerState, ids: &mut [i32]) {
        let (b0, s0) = (st.b(0), st.s(0));
        ids[0] = b0;
        ids[1] = st.b(1);
        ids[2] = s0;
        ids[3] = st.s(1);
        ids[4] = st.s(2);
        ids[5] = ArcEagerState::nth_child(&st.left_arcs, b0, 1);
        ids[6] = ArcEagerState::nth_child(&st.left_arcs, s0, 1);
        ids[7] = ArcEagerState::nth_child(&st.right_arcs, s0, 1);
    }

    fn valid_actions(&self, st: &ArcEagerState, valid: &mut [bool]) {
        let by_move = [
            Self::shift_valid(st),
            Self::reduce_valid(st),
            Self::arc_valid(st),
            Self::arc_valid(st),
            Self::break_valid(st),
        ];
        for (v, action) in valid.iter_mut().zip(&self.actions) {
            *v = by_move[action.move_code as usize];
        }
    }

    fn apply(&self, st: &mut ArcEagerState, action: usize) {
        match self.actions[action].move_code {
            SHIFT => st.push(),
            REDUCE => {
                let s0 = st.stack[st.stack.len() - 1];
                if st.heads[s0] >= 0 || st.stack.len() == 1 {
                    st.stack.pop();
                } else {
                    st.unshiftable[s0] = true;
                    st.rebuffer.push(s0);
                    st.stack.pop();
                }
            }
            LEFT => {
                let (b0, s0) = (st.b(0) as usize, st.s(0) as usize);
                st.add_arc(b0, s0, action as u32);
                st.unshiftable[b0] = false;
                st.stack.pop();
            }
            RIGHT => {
                let (s0, b0) = (st.s(0) as usize, st.b(0) as usize);
                st.add_arc(s0, b0, action as u32);
                st.push();
            }
            BREAK => {
                let b1 = st.b(1) as usize;
                st.sent_starts[b1] = true;
            }
            _ => unreachable!("moves are checked when loading"),
        }
    }

    fn force_final(&self, st: &mut ArcEagerState) {
        st.stack.clear();
        st.rebuffer.clear();
        st.b_i = st.length;
    }
}
