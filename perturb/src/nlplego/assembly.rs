//! NLPLego's assembly `τ(p0, B)` (seed-003 §1.4): the derivation tree.
//!
//! The root is the basic sentence `s0` (level 0). Level `i` holds the sentences with adjuncts
//! `b1..bi` inserted — prefixes only, strictly left to right, never subsets — each child being
//! its parent with a variant of `bi` in slot `i`: a one-word substitution ([`AdjunctMutator`])
//! or, as the authors' code always adds, `bi` unchanged. Every node keeps its parent and its edit
//! (which adjunct it inserted and which word it replaced), so every root-to-leaf path is a chain
//! of derivation relations and every level is saved.
//!
//! The tree grows exponentially with the number of adjuncts. A level keeps at most
//! `max_nodes_per_level` nodes, taken round-robin over the parents (each parent's substitutions
//! first, its unchanged insertion last), so every parent keeps descendants and substitutions are
//! preferred; the paper prunes only its MRC trees (beam 4) and expands the others fully.

use metamorph_data::Result;
use metamorph_models::masked_lm::FillOptions;

use super::disassembly::{render, render_spans, Disassembler, Disassembly};
use super::mutation::{AdjunctMutator, Predictions, Substitution};
use super::NlpLegoConfig;
use crate::Resources;

/// Disassembles texts and assembles their derivation trees: what every NLPLego relation runs.
#[derive(Debug)]
pub struct TreeBuilder {
    disassembler: Disassembler,
    mutator: AdjunctMutator,
    max_nodes_per_level: usize,
    config: NlpLegoConfig,
    base_seed: u64,
}

/// Which sentences of a derivation tree a relation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelsRead {
    /// Only the leaves, the whole sentence with every adjunct (NLPLego-MRC).
    Leaves,
    /// Every level: a case pairs a parent with its child (NLPLego-SA, -SSM), so the sentences
    /// with adjuncts missing are read too, and the disassembly is stricter about them.
    Every,
}

impl TreeBuilder {
    /// A builder over the shared parser and lexicons, with `[perturb.nlplego]`'s limits;
    /// `masked_lm` chooses the configured masked LM (when there is one) over WordNet synonyms;
    /// `levels` says which of the tree's sentences the relation reads.
    ///
    /// # Errors
    /// When a resource cannot be loaded or the settings are out of range.
    pub fn new(
        resources: &Resources,
        masked_lm: bool,
        max_nodes_per_level: usize,
        levels: LevelsRead,
    ) -> Result<Self> {
        let config = resources.nlplego_config();
        config.validate()?;
        let mut mutator = AdjunctMutator::synonyms(
            resources.contextual_lexicon()?,
            resources.inflections()?,
            config.synonyms_per_word,
        );
        if masked_lm {
            if let Some(model) = resources.nlplego_masked_lm()? {
                let options = FillOptions {
                    top_k: config.masked_lm_top_k,
                    min_prob: config.masked_lm_min_prob,
                    same_pos: false,
                };
                mutator = mutator.with_masked_lm(model, options);
            }
        }
        let disassembler = Disassembler::new(resources.parser()?, resources.wordnet()?);
        Ok(TreeBuilder {
            disassembler: match levels {
                LevelsRead::Leaves => disassembler,
                LevelsRead::Every => disassembler.reading_inner_levels(),
            },
            mutator,
            max_nodes_per_level,
            config: config.clone(),
            base_seed: resources.seed(),
        })
    }

    /// The builder of NLPLego-SA and -SSM, whose cases pair a parent with its child: the
    /// configured masked LM when there is one, `max_nodes_per_level`, every level read.
    ///
    /// # Errors
    /// As [`TreeBuilder::new`].
    pub fn for_parent_child_pairs(resources: &Resources) -> Result<Self> {
        let max_nodes_per_level = resources.nlplego_config().max_nodes_per_level;
        TreeBuilder::new(resources, true, max_nodes_per_level, LevelsRead::Every)
    }

    /// The same builder mutating with a causal LM's predictions (NLPLego-MRC with
    /// `[perturb.nlplego] lm`; see [`super::mutation`]).
    pub fn with_causal_lm(mut self, predictions: Predictions) -> Self {
        self.mutator = self.mutator.with_causal_lm(predictions);
        self
    }

    /// `[perturb.nlplego]`.
    pub fn config(&self) -> &NlpLegoConfig {
        &self.config
    }

    /// The seed of relation `mr`'s randomness for source `source_id` ([`crate::source_seed`]
    /// from the run's base seed).
    pub fn seed(&self, source_id: &str, mr: &str) -> u64 {
        crate::source_seed(self.base_seed, source_id, mr)
    }

    /// The disassembler.
    pub fn disassembler(&self) -> &Disassembler {
        &self.disassembler
    }

    /// The derivation tree of `text`, `None` when it has no adjunct; `frozen(adjunct, token)`
    /// says which tokens of which adjunct must not change.
    ///
    /// # Errors
    /// As [`Disassembler::disassemble`] and [`DerivationTree::assemble`].
    pub fn build(
        &self,
        text: &str,
        frozen: &dyn Fn(&Disassembly, usize) -> bool,
    ) -> Result<Option<DerivationTree>> {
        let Some(disassembly) = self.disassembler.disassemble(text)? else {
            return Ok(None);
        };
        let frozen_tokens: Vec<bool> = (0..disassembly.parsed.tokens.len())
            .map(|i| frozen(&disassembly, i))
            .collect();
        DerivationTree::assemble(
            disassembly,
            &self.mutator,
            &|i| frozen_tokens[i],
            self.max_nodes_per_level,
        )
        .map(Some)
    }
}

/// What a node changed with respect to its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeEdit {
    /// The adjunct inserted (0-based: `bi` is `i - 1`).
    pub adjunct: usize,
    /// The word replaced in it, if any.
    pub substitution: Option<Substitution>,
}

/// One sentence of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The parent node (`None` for the root).
    pub parent: Option<usize>,
    /// The level: how many adjuncts are inserted.
    pub level: usize,
    /// Every token's text in this node (mutated words replaced; tokens of adjuncts not yet
    /// inserted keep their original text and are not rendered).
    pub words: Vec<String>,
    /// The sentence.
    pub text: String,
    /// The edit from the parent (`None` for the root).
    pub edit: Option<NodeEdit>,
}

/// A derivation tree over one disassembled text.
#[derive(Clone, Debug)]
pub struct DerivationTree {
    /// What it was assembled from.
    pub disassembly: Disassembly,
    /// The nodes, level by level (the root first).
    pub nodes: Vec<Node>,
}

impl DerivationTree {
    /// Assembles the tree of `disassembly`, mutating with `mutator`; tokens for which `frozen`
    /// is true are never replaced.
    ///
    /// # Errors
    /// When the mutator fails (a masked-LM error).
    pub fn assemble(
        disassembly: Disassembly,
        mutator: &AdjunctMutator,
        frozen: &dyn Fn(usize) -> bool,
        max_nodes_per_level: usize,
    ) -> Result<Self> {
        let tokens = &disassembly.parsed.tokens;
        let original: Vec<String> = tokens.iter().map(|t| t.text.clone()).collect();
        let root_included = disassembly.included(0);
        let mut nodes = vec![Node {
            parent: None,
            level: 0,
            text: render(tokens, &root_included, |i| original[i].as_str()),
            words: original.clone(),
            edit: None,
        }];
        let mut previous: Vec<usize> = vec![0];
        for (a, adjunct) in disassembly.adjuncts.iter().enumerate() {
            let level = a + 1;
            let included = disassembly.included(level);
            let eligible: Vec<usize> = adjunct
                .core
                .clone()
                .filter(|&i| !frozen(i) && mutator.is_eligible(tokens, i, adjunct.core.start))
                .collect();
            // Each parent's children as (parent, substitution), substitutions first and the
            // unchanged insertion last; only those a level keeps are rendered.
            let mut per_parent = Vec::with_capacity(previous.len());
            for &p in &previous {
                let (context, spans) =
                    render_spans(tokens, &included, |j| nodes[p].words[j].as_str());
                let mut children = Vec::new();
                for &i in &eligible {
                    let Some(span) = spans[i] else { continue };
                    for word in mutator.replacements(tokens, i, (&context, span))? {
                        children.push((p, Some((i, word))));
                    }
                }
                children.push((p, None));
                per_parent.push(children.into_iter());
            }
            // Round-robin over the parents until the level is full.
            let mut kept = Vec::new();
            'fill: loop {
                let mut took = false;
                for children in &mut per_parent {
                    if kept.len() == max_nodes_per_level {
                        break 'fill;
                    }
                    if let Some(child) = children.next() {
                        kept.push(child);
                        took = true;
                    }
                }
                if !took {
                    break;
                }
            }
            previous.clear();
            for (p, substitution) in kept {
                let mut words = nodes[p].words.clone();
                let substitution = substitution.map(|(i, word)| Substitution {
                    token: i,
                    before: std::mem::replace(&mut words[i], word.clone()),
                    after: word,
                });
                previous.push(nodes.len());
                nodes.push(Node {
                    parent: Some(p),
                    level,
                    text: render(tokens, &included, |j| words[j].as_str()),
                    words,
                    edit: Some(NodeEdit {
                        adjunct: a,
                        substitution,
                    }),
                });
            }
        }
        Ok(DerivationTree { disassembly, nodes })
    }

    /// The number of adjuncts (the leaves' level).
    pub fn depth(&self) -> usize {
        self.disassembly.adjuncts.len()
    }

    /// The nodes of the last level: every adjunct inserted.
    pub fn leaves(&self) -> impl Iterator<Item = (usize, &Node)> {
        let depth = self.depth();
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.level == depth)
    }

    /// The text of the adjunct node `n` inserted, as it reads in `n` (attached commas left
    /// out): what a sentiment model classifies alone. `None` for the root.
    pub fn inserted_adjunct(&self, n: usize) -> Option<String> {
        let node = &self.nodes[n];
        let edit = node.edit.as_ref()?;
        let adjunct = &self.disassembly.adjuncts[edit.adjunct];
        let tokens = &self.disassembly.parsed.tokens;
        let mut out = String::new();
        for i in adjunct.core.clone() {
            out.push_str(&node.words[i]);
            if i + 1 < adjunct.core.end {
                out.push_str(&tokens[i].whitespace);
            }
        }
        Some(out)
    }

    /// The replacements turning the original text into node `n`'s words (only meaningful for
    /// leaves, which have every token): `(token, new word)` in token order.
    pub fn replaced_tokens(&self, n: usize) -> Vec<(usize, &str)> {
        let tokens = &self.disassembly.parsed.tokens;
        self.nodes[n]
            .words
            .iter()
            .enumerate()
            .filter(|(i, w)| **w != tokens[*i].text)
            .map(|(i, w)| (i, w.as_str()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nlplego::disassembly::Disassembler;
    use crate::testing::resources;

    /// The paper's worked example with its second adjunct changed to one with a word WordNet
    /// replaces in context ("quickly" → "promptly"; "that started as a small kitchen fire" has
    /// none: "small" has too many senses, "kitchen" is half of a compound).
    const JACKSONVILLE: &str = "On May 3, downtown Jacksonville was ravaged by a fire that \
                                burned a large market.";

    /// The WordNet tree of [`JACKSONVILLE`], levels of at most `max` nodes.
    fn tree(max: usize) -> DerivationTree {
        tree_frozen(max, &|_| false)
    }

    fn tree_frozen(max: usize, frozen: &dyn Fn(usize) -> bool) -> DerivationTree {
        let r = resources();
        let d = Disassembler::new(r.parser().unwrap(), r.wordnet().unwrap())
            .disassemble(JACKSONVILLE)
            .unwrap()
            .unwrap();
        let m =
            AdjunctMutator::synonyms(r.contextual_lexicon().unwrap(), r.inflections().unwrap(), 3);
        DerivationTree::assemble(d, &m, frozen, max).unwrap()
    }

    #[test]
    fn levels_insert_adjuncts_left_to_right_and_every_node_keeps_its_parent() {
        let t = tree(8);
        assert_eq!(
            t.nodes[0].text,
            "Downtown Jacksonville was ravaged by a fire."
        );
        assert_eq!(t.depth(), 2);
        // Level 1: "On May 3," has no eligible word, so it is inserted unchanged, once.
        let level1: Vec<&Node> = t.nodes.iter().filter(|n| n.level == 1).collect();
        assert_eq!(level1.len(), 1);
        assert_eq!(
            level1[0].text,
            "On May 3, downtown Jacksonville was ravaged by a fire."
        );
        // Level 2: one-word substitutions of "that burned a large market", and the original sentence
        // (the unchanged insertion) last.
        let leaves: Vec<&Node> = t.leaves().map(|(_, n)| n).collect();
        assert_eq!(
            leaves[0].text,
            "On May 3, downtown Jacksonville was ravaged by a fire that burned a big market."
        );
        assert_eq!(leaves.last().unwrap().text, JACKSONVILLE);
        for (n, leaf) in t.leaves() {
            assert_eq!(leaf.parent, Some(1));
            let edit = leaf.edit.as_ref().unwrap();
            assert_eq!(edit.adjunct, 1);
            assert!(t.replaced_tokens(n).len() <= 1, "one word per mutation");
            if let Some(s) = &edit.substitution {
                assert!(leaf.text.contains(&s.after) && s.before != s.after);
                assert!(leaf.text.starts_with("On May 3, downtown Jacksonville"));
            }
        }
        assert_eq!(
            t.inserted_adjunct(1).as_deref(),
            Some("On May 3"),
            "commas stay with the sentence"
        );
    }

    #[test]
    fn a_level_keeps_at_most_the_configured_number_of_nodes() {
        let t = tree(1);
        assert_eq!(t.nodes.iter().filter(|n| n.level == 2).count(), 1);
        // Substitutions come before the unchanged insertion.
        assert!(t
            .leaves()
            .all(|(_, n)| n.edit.as_ref().unwrap().substitution.is_some()));
    }

    /// With a masked LM (the tiny random BERT of the models crate's parity fixtures, floor 0 since its
    /// probabilities are spread thin), each substitution is one of the model's predictions for
    /// the word masked in the *parent* sentence with the adjunct inserted, and verbs are
    /// eligible.
    #[test]
    fn masked_lm_substitutions_are_predicted_in_the_parent_context() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/tests/fixtures/mlm/bert");
        let mut config = crate::PerturbConfig::default();
        config.nlplego.masked_lm = Some(fixture.display().to_string());
        config.nlplego.masked_lm_min_prob = 0.0;
        config.nlplego.masked_lm_top_k = 50;
        let resources = Resources::from_config(&config);
        let builder = TreeBuilder::new(&resources, true, 64, LevelsRead::Every).unwrap();
        let model = resources.nlplego_masked_lm().unwrap().unwrap();
        let t = builder.build(JACKSONVILLE, &|_, _| false).unwrap().unwrap();
        let mut checked = 0;
        for node in &t.nodes {
            let Some(NodeEdit {
                adjunct,
                substitution: Some(s),
            }) = &node.edit
            else {
                continue;
            };
            let parent = &t.nodes[node.parent.unwrap()];
            let included = t.disassembly.included(adjunct + 1);
            let (context, spans) = render_spans(&t.disassembly.parsed.tokens, &included, |j| {
                parent.words[j].as_str()
            });
            let options = FillOptions {
                top_k: 50,
                min_prob: 0.0,
                same_pos: false,
            };
            let predicted: Vec<String> = model
                .substitutes(&context, spans[s.token].unwrap(), &options, None)
                .unwrap()
                .into_iter()
                .map(|c| c.word.to_lowercase())
                .collect();
            assert!(
                predicted.contains(&s.after.to_lowercase()),
                "{} not among {predicted:?}",
                s.after
            );
            checked += 1;
        }
        assert!(checked > 0, "the fixture proposed no substitution");
        // "burned" (a verb of the second adjunct) may be replaced by the masked LM.
        let tokens = &t.disassembly.parsed.tokens;
        let burned = tokens.iter().position(|t| t.text == "burned").unwrap();
        let mutator = &builder.mutator;
        assert!(mutator.uses_masked_lm() && mutator.is_eligible(tokens, burned, 0));
    }

    #[test]
    fn frozen_tokens_are_never_replaced() {
        let t = tree_frozen(8, &|_| true);
        assert_eq!(t.nodes.len(), 3, "one unchanged insertion per level");
        assert_eq!(t.nodes[2].text, JACKSONVILLE);
    }
}
