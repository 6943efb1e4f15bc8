//! spaCy's transition-based parser (`TransitionBasedParser.v2`) with greedy decoding, shared by
//! the dependency parser ([`arc_eager`]) and the entity recogniser ([`ner`]).
//!
//! The model: token vectors → `Linear` to the hidden width → a *precomputable affine* layer that
//! gives, for every token and every feature slot, its contribution to the hidden layer (one GEMM
//! per batch) → per parser state, the sum of its feature tokens' contributions (or the learned
//! padding vector for a missing token), plus bias, max over pieces → `Linear` to action scores.
//! The argmax over the *valid* actions is taken (first on ties, as `arg_max_if_valid`), and all
//! unfinished states of a batch are scored together.

pub mod arc_eager;
pub mod model;
pub mod moves;
pub mod ner;
pub mod nonproj;

pub use model::StateModel;

/// A transition system: what states look like, which tokens a state's features read, which
/// actions are valid, and what they do.
pub trait TransitionSystem {
    /// Per-document parser state.
    type State;

    /// Number of actions (the model's output width).
    fn n_actions(&self) -> usize;

    /// Whether the state needs no more actions.
    fn is_final(&self, state: &Self::State) -> bool;

    /// Writes the token index of every feature slot into `ids` (`-1` for none).
    fn context_tokens(&self, state: &Self::State, ids: &mut [i32]);

    /// Sets `valid[a]` for every action `a`.
    fn valid_actions(&self, state: &Self::State, valid: &mut [bool]);

    /// Applies action `a`.
    fn apply(&self, state: &mut Self::State, action: usize);

    /// Ends the state without further actions (when no action is valid, as spaCy's
    /// `force_final`).
    fn force_final(&self, state: &mut Self::State);
}

/// Runs greedy decoding for every state, scoring the unfinished states of the batch together.
/// `cached[d]` is document `d`'s precomputed feature table from [`StateModel::precompute`].
pub fn greedy_decode<T: TransitionSystem>(
    system: &T,
    model: &StateModel,
    states: &mut [T::State],
    cached: &[Vec<f32>],
) {
    let n_feats = model.n_feats;
    let mut active: Vec<usize> = (0..states.len())
        .filter(|&i| !system.is_final(&states[i]))
        .collect();
    let mut ids = vec![0i32; n_feats];
    let mut valid = vec![false; system.n_actions()];
    let mut hidden = Vec::new();
    let mut scores = Vec::new();
    // Guards against a transition system bug looping forever: every state finishes within
    // a bounded number of steps (spaCy's arc-eager needs at most about 4 per token).
    while !active.is_empty() {
        hidden.clear();
        hidden.resize(active.len() * model.n_hidden, 0.0);
        for (row, &s) in active.iter().enumerate() {
            system.context_tokens(&states[s], &mut ids);
            model.hidden_state(
                &cached[s],
                &ids,
                &mut hidden[row * model.n_hidden..(row + 1) * model.n_hidden],
            );
        }
        model.scores(&hidden, active.len(), &mut scores);
        let n_actions = system.n_actions();
        for (row, &s) in active.iter().enumerate() {
            system.valid_actions(&states[s], &mut valid);
            let row_scores = &scores[row * n_actions..(row + 1) * n_actions];
            let mut best: Option<usize> = None;
            for a in 0..n_actions {
                if valid[a] && best.is_none_or(|b| row_scores[a] > row_scores[b]) {
                    best = Some(a);
                }
            }
            match best {
                Some(a) => system.apply(&mut states[s], a),
                None => system.force_final(&mut states[s]),
            }
        }
        active.retain(|&s| !system.is_final(&states[s]));
    }
}
