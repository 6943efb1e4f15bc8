//! [`Validator`]: the four checks over a batch of cases, each batched across the cases (one
//! encoder call for every changed window, one parser call for every window to re-parse).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use metamorph_data::assets::ModelSource;
use metamorph_data::{Case, CheckScore, Error, ParsedText, Result, Validity};
use metamorph_models::masked_lm::CandleMaskedLm;
use metamorph_models::{cosine, device, Checkpoint, EncoderOptions, ModelOptions, SentenceEncoder};
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_parse::stage::{ParseConfig, ParseStage};

use crate::config::{builds_source, relation_kind, Thresholds, ValidateConfig};
use crate::language_model::{change_scores, ChangeScores, Continuation, LmScorer};
use crate::spans::broken_span;
use crate::structure::{kept, signature};
use crate::window::{changes, Change, FIELDS};
use crate::word_fit::{neighbours, WordFit, WordVectors};

/// Most words on either side of a substitution the fluency check treats as one.
const MAX_SUBSTITUTION_WORDS: usize = 3;
/// Content words either side of a substitution it is compared with.
const NEIGHBOURS: usize = 3;

/// Scores cases; shareable across worker threads.
pub struct Validator {
    config: ValidateConfig,
    encoder: SentenceEncoder,
    vectors: WordVectors,
    /// The fluency check's masked LM, when `[validate] masked_lm` is set.
    masked_lm: Option<CandleMaskedLm>,
    /// The causal LM of the `lm` checks, unless `[validate] lm = "none"`.
    lm: Option<LmScorer>,
    parser: Parser,
}

/// The spaCy pipeline of the re-parse, given or loaded on first use (most runs' checks need
/// none: `structure` is off by default and only coreference mentions are re-parsed).
enum Parser {
    Given(Arc<Pipeline>),
    Lazy(
        ParseConfig,
        OnceLock<std::result::Result<Arc<Pipeline>, String>>,
    ),
}

impl Parser {
    fn get(&self) -> Result<Arc<Pipeline>> {
        match self {
            Parser::Given(p) => Ok(p.clone()),
            Parser::Lazy(config, slot) => slot
                .get_or_init(|| {
                    ParseStage::try_new(config)
                        .map(|s| Arc::new(s.into_pipeline()))
                        .map_err(|e| e.to_string())
                })
                .clone()
                .map_err(|message| Error::Model {
                    model: config.model.clone(),
                    message: format!("the validity step's re-parse: {message}"),
                }),
        }
    }
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Validator {
    /// Loads the configured encoder (and its word vectors) and uses `parser` for re-parsing.
    ///
    /// # Errors
    /// [`Error::Config`] for a bad `[validate]` table; [`Error::Asset`] naming the encoder or
    /// the file of it that does not load.
    pub fn load(config: &ValidateConfig, parser: Arc<Pipeline>) -> Result<Self> {
        Self::load_with(config, Parser::Given(parser))
    }

    /// [`Validator::load`], loading the `[parse]` pipeline only when a check first needs it.
    ///
    /// # Errors
    /// As [`Validator::load`]; a pipeline that does not load fails the first batch that needs
    /// it, naming the pipeline.
    pub fn load_lazy(config: &ValidateConfig, parse: &ParseConfig) -> Result<Self> {
        Self::load_with(config, Parser::Lazy(parse.clone(), OnceLock::new()))
    }

    fn load_with(config: &ValidateConfig, parser: Parser) -> Result<Self> {
        config.check()?;
        let source: ModelSource = config
            .encoder
            .parse()
            .map_err(|e| Error::Config(format!("[validate] encoder: {e}")))?;
        let in_context = named_asset(format!("validity encoder `{}`", config.encoder));
        let checkpoint =
            Checkpoint::try_resolve(&source, &Default::default()).map_err(&in_context)?;
        let options = EncoderOptions::default()
            .with_device(device(&config.device)?)
            .with_batch_size(config.batch_size);
        let encoder =
            SentenceEncoder::try_new(&config.encoder, &checkpoint, options).map_err(&in_context)?;
        let vectors = WordVectors::load(&checkpoint).map_err(&in_context)?;
        let masked_lm = match &config.masked_lm {
            Some(spec) => {
                let source: ModelSource = spec
                    .parse()
                    .map_err(|e| Error::Config(format!("[validate] masked_lm: {e}")))?;
                let options = ModelOptions {
                    device: device(&config.device)?,
                    ..ModelOptions::default()
                };
                let model = CandleMaskedLm::from_source(&source, &Default::default(), &options)
                    .map_err(named_asset(format!("validity masked LM `{spec}`")))?;
                Some(model)
            }
            None => None,
        };
        let lm = match config.lm_model() {
            Some(spec) => {
                let options = metamorph_models::LmOptions {
                    device: device(&config.device)?,
                    ..Default::default()
                };
                Some(
                    LmScorer::load(spec, options)
                        .map_err(named_asset(format!("validity language model `{spec}`")))?,
                )
            }
            None => None,
        };
        Ok(Validator {
            config: config.clone(),
            encoder,
            vectors,
            masked_lm,
            lm,
            parser,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ValidateConfig {
        &self.config
    }

    /// The validity of each of `cases`, in order.
    ///
    /// # Errors
    /// [`Error::Schema`] naming a case whose follow-up the generate stage has not written yet;
    /// encoder or parser failures naming the model.
    pub fn validate(&self, cases: &[Case]) -> Result<Vec<Validity>> {
        for case in cases {
            if case.generation_json.is_some() {
                return Err(Error::Schema {
                    context: format!("case `{}`", case.case_id),
                    message: "its follow-up still waits for the generate stage: validate \
                              after generate"
                        .into(),
                });
            }
        }
        let plans: Vec<Plan> = cases
            .iter()
            .map(|case| Plan {
                thresholds: self.config.thresholds_for(&case.family, &case.mr),
                changes: changes(case, self.config.context_sentences),
            })
            .collect();
        let t0 = std::time::Instant::now();
        let (meaning, sense) = self.embed_checks(&plans)?;
        let t1 = std::time::Instant::now();
        let parses = self.reparse(cases, &plans)?;
        let likelihoods = self.likelihood_fluency(&plans)?;
        let lm_scores = self.lm_checks(cases, &plans)?;
        let endings = self.lm_ending_check(cases, &plans)?;
        let seams = self.lm_seam_check(cases, &plans)?;
        let end_cuts = self.lm_end_cut_check(cases, &plans)?;
        let t2 = std::time::Instant::now();
        let mut fit = WordFit::new(&self.vectors);
        let mut out = Vec::with_capacity(cases.len());
        for (i, (case, plan)) in cases.iter().zip(&plans).enumerate() {
            let mut v = Validity::default();
            if let Some(field) = empty_field(case) {
                record(
                    &mut v,
                    "text",
                    0.0,
                    1.0,
                    format!("the follow-up's `{field}` is empty"),
                );
            }
            let t = plan.thresholds;
            if let (Some(threshold), Some(&score)) = (t.meaning, meaning.get(&i)) {
                record(
                    &mut v,
                    "meaning",
                    score,
                    threshold,
                    format!("the changed sentences' similarity {score:.2} is under {threshold:.2}"),
                );
            }
            if let (Some(threshold), Some(&score)) = (t.sense, sense.get(&i)) {
                record(
                    &mut v,
                    "sense",
                    score,
                    threshold,
                    format!(
                        "a substituted word reads {score:.2} alike in its sentence before and \
                         after, under {threshold:.2}"
                    ),
                );
            }
            let case_parses = &parses[i];
            if let Some(threshold) = t.structure {
                let scores: Vec<(f32, &str)> = case_parses
                    .iter()
                    .map(|(field, before, after)| {
                        (kept(&signature(before), &signature(after)), field.as_str())
                    })
                    .collect();
                if let Some(&(score, field)) = scores.iter().min_by(|a, b| a.0.total_cmp(&b.0)) {
                    record(
                        &mut v,
                        "structure",
                        score,
                        threshold,
                        format!(
                            "the changed `{field}` sentence keeps {:.0}% of its core structure \
                             (root and arguments), under {:.0}%",
                            score * 100.0,
                            threshold * 100.0
                        ),
                    );
                }
            }
            if let (Some(threshold), Some(scores)) = (t.fluency, likelihoods.as_ref()) {
                let worst = scores[i].iter().min_by(|a, b| a.0.total_cmp(&b.0));
                if let Some((score, before, after)) = worst {
                    record(
                        &mut v,
                        "fluency",
                        *score,
                        threshold,
                        format!(
                            "{after:?} is {:.1}× less likely per word piece to the masked LM \
                             than {before:?}",
                            10f32.powf(-score)
                        ),
                    );
                }
            } else if let Some(threshold) = t.fluency {
                let worst = plan
                    .changes
                    .iter()
                    .filter_map(|c| substitution_fit(&mut fit, c))
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                if let Some((score, before, after)) = worst {
                    record(
                        &mut v,
                        "fluency",
                        score,
                        threshold,
                        format!(
                            "{after:?} fits its neighbours {:.2} worse than {before:?}",
                            -score
                        ),
                    );
                }
            }
            if let Some(scores) = &lm_scores[i] {
                if let Some(threshold) = t.lm {
                    record(
                        &mut v,
                        "lm",
                        scores.lm,
                        threshold,
                        format!(
                            "the changed words make the sentence {:.1} nats less likely to the \
                             language model (at most {:.1} allowed)",
                            -scores.lm, -threshold
                        ),
                    );
                }
                if let Some(threshold) = t.lm_sentence {
                    record(
                        &mut v,
                        "lm_sentence",
                        scores.lm_sentence,
                        threshold,
                        format!(
                            "a changed sentence read whole averages {:.2} nats per token, \
                             under {threshold:.2} (cut short or garbled)",
                            scores.lm_sentence
                        ),
                    );
                }
            }
            if let (Some(threshold), Some(score)) = (t.lm_ending, endings[i]) {
                record(
                    &mut v,
                    "lm_ending",
                    score,
                    threshold,
                    format!(
                        "a sentence of the source ends where the language model gives its \
                         punctuation {score:.1} nats, under {threshold:.1} (cut short)"
                    ),
                );
            }
            if let (Some(threshold), Some(score)) = (t.lm_seam, seams[i]) {
                record(
                    &mut v,
                    "lm_seam",
                    score,
                    threshold,
                    format!(
                        "where a phrase was cut from the dataset text, the words after the gap \
                         are {:.1} nats less likely to the language model than after the text's \
                         own words (at most {:.1} allowed: a seam)",
                        -score, -threshold
                    ),
                );
            }
            if let (Some(threshold), Some(score)) = (t.lm_end_cut, end_cuts[i]) {
                record(
                    &mut v,
                    "lm_end_cut",
                    score,
                    threshold,
                    format!(
                        "a sentence ends where the dataset text went on, and the language \
                         model expects the text's next word {:.1} nats more than the sentence's \
                         end (at most {:.1} allowed: a complement cut off)",
                        -score, -threshold
                    ),
                );
            }
            if let Some(threshold) = t.spans {
                // Offsets of a re-parsed window are relative to the window: mentions are
                // tested for a verb head only where the window is the whole `text`.
                let whole_text = case_parses
                    .iter()
                    .find(|(field, _, after)| {
                        field == "text" && case.followup.text.as_deref() == Some(&after.text)
                    })
                    .map(|(_, _, after)| after);
                let broken = broken_span(&case.followup, whole_text);
                let score = if broken.is_some() { 0.0 } else { 1.0 };
                record(
                    &mut v,
                    "spans",
                    score,
                    threshold,
                    broken.unwrap_or_default(),
                );
            }
            v.passed = v.scores.iter().all(|s| s.passed);
            out.push(v);
        }
        tracing::debug!(
            cases = cases.len(),
            embed_ms = (t1 - t0).as_millis() as u64,
            parse_ms = (t2 - t1).as_millis() as u64,
            rest_ms = t2.elapsed().as_millis() as u64,
            "validated"
        );
        Ok(out)
    }

    /// Per case (by index): the lowest similarity of a changed window before and after
    /// (meaning) and of a substituted word before and after, each read in its sentence
    /// (sense), from one encoder pass over the distinct windows.
    fn embed_checks(&self, plans: &[Plan]) -> Result<(HashMap<usize, f32>, HashMap<usize, f32>)> {
        let mut items: Vec<(&str, std::ops::Range<usize>)> = Vec::new();
        let mut index: HashMap<(&str, usize, usize), usize> = HashMap::new();
        let mut pairs = Vec::new();
        for (i, plan) in plans.iter().enumerate() {
            let t = plan.thresholds;
            if t.meaning.is_none() && t.sense.is_none() {
                continue;
            }
            for change in &plan.changes {
                let a = intern(&mut index, &mut items, &change.source, &change.source_words);
                let b = intern(
                    &mut index,
                    &mut items,
                    &change.followup,
                    &change.followup_words,
                );
                pairs.push((i, a, b, is_substitution(change)));
            }
        }
        let embeddings = self.encoder.embed_with_spans(&items)?;
        let (mut meaning, mut sense): (HashMap<usize, f32>, HashMap<usize, f32>) =
            Default::default();
        let lowest = |map: &mut HashMap<usize, f32>, i: usize, x: f32| {
            map.entry(i).and_modify(|s| *s = s.min(x)).or_insert(x);
        };
        for (i, a, b, substitution) in pairs {
            let ((text_a, word_a), (text_b, word_b)) = (&embeddings[a], &embeddings[b]);
            lowest(&mut meaning, i, cosine(text_a, text_b));
            if substitution {
                lowest(&mut sense, i, cosine(word_a, word_b));
            }
        }
        Ok((meaning, sense))
    }

    /// Per case: `(field, source window parse, follow-up window parse)` for each change, when a
    /// check needs them (structure, or spans of a coreference text).
    fn reparse(
        &self,
        cases: &[Case],
        plans: &[Plan],
    ) -> Result<Vec<Vec<(String, ParsedText, ParsedText)>>> {
        let mut texts: Vec<&str> = Vec::new();
        let mut wanted: Vec<Vec<(&str, usize, usize)>> = Vec::with_capacity(plans.len());
        for (case, plan) in cases.iter().zip(plans) {
            let needs = plan.thresholds.structure.is_some()
                || (plan.thresholds.spans.is_some() && case.followup.clusters.is_some());
            let mut mine = Vec::new();
            if needs {
                for change in &plan.changes {
                    texts.push(&change.source);
                    texts.push(&change.followup);
                    mine.push((change.field.as_str(), texts.len() - 2, texts.len() - 1));
                }
            }
            wanted.push(mine);
        }
        if texts.is_empty() {
            return Ok(vec![Vec::new(); cases.len()]);
        }
        let parser = self.parser.get()?;
        let docs = parser.process(&texts).map_err(|e| {
            let metamorph_parse::spacy::pipeline::TextError::TooLong { index, .. } = &e;
            let case = wanted
                .iter()
                .position(|w| w.iter().any(|&(_, a, b)| a == *index || b == *index))
                .map_or("?", |c| cases[c].case_id.as_str());
            Error::Model {
                model: parser.name().to_string(),
                message: format!("re-parsing the changed sentences of case `{case}`: {e}"),
            }
        })?;
        Ok(wanted
            .into_iter()
            .map(|mine| {
                mine.into_iter()
                    .map(|(field, a, b)| {
                        (
                            field.to_string(),
                            metamorph_parse::to_parsed_text("", field, &docs[a]),
                            metamorph_parse::to_parsed_text("", field, &docs[b]),
                        )
                    })
                    .collect()
            })
            .collect())
    }
}

impl Validator {
    /// Per case: the lowest `lm` and `lm_sentence` scores over its changed windows, when one
    /// of the two checks applies to it (every distinct window scored once, in one batch).
    fn lm_checks(&self, cases: &[Case], plans: &[Plan]) -> Result<Vec<Option<ChangeScores>>> {
        let Some(lm) = &self.lm else {
            return Ok(vec![None; cases.len()]);
        };
        let mut texts: Vec<&str> = Vec::new();
        let mut wanted: Vec<(usize, usize, bool)> = Vec::new();
        for (i, (case, plan)) in cases.iter().zip(plans).enumerate() {
            let t = plan.thresholds;
            if t.lm.is_none() && t.lm_sentence.is_none() {
                continue;
            }
            let rebuilt = relation_kind(&case.mr) == "rebuilt";
            for change in &plan.changes {
                texts.push(&change.source);
                texts.push(&change.followup);
                wanted.push((i, texts.len() - 2, rebuilt));
            }
        }
        let mut out: Vec<Option<ChangeScores>> = vec![None; cases.len()];
        if texts.is_empty() {
            return Ok(out);
        }
        let scores = lm.score_texts(&texts)?;
        for (i, a, rebuilt) in wanted {
            let s = change_scores(scores[a], scores[a + 1], rebuilt);
            out[i] = Some(match out[i] {
                Some(o) => ChangeScores {
                    lm: o.lm.min(s.lm),
                    lm_sentence: o.lm_sentence.min(s.lm_sentence),
                },
                None => s,
            });
        }
        Ok(out)
    }
}

impl Validator {
    /// Per case: the lowest log-probability that a sentence of its source windows ends where
    /// it does, when `lm_ending` applies to it (the relation built the source); every distinct
    /// window read once, all in one batch.
    fn lm_ending_check(&self, cases: &[Case], plans: &[Plan]) -> Result<Vec<Option<f32>>> {
        let Some(lm) = &self.lm else {
            return Ok(vec![None; cases.len()]);
        };
        let parts: Vec<(usize, &str)> = cases
            .iter()
            .zip(plans)
            .enumerate()
            .filter(|(_, (case, plan))| {
                plan.thresholds.lm_ending.is_some() && builds_source(&case.mr)
            })
            .flat_map(|(i, (_, plan))| plan.changes.iter().map(move |c| (i, c.source.as_str())))
            .collect();
        lm.lowest_endings(cases.len(), &parts)
    }
}

impl Validator {
    /// Per case: the lowest log-probability gain of the words after a seam ([`crate::seam`])
    /// in its edited fields' source and follow-up windows, when `lm_seam` applies to it (the
    /// relation built the source from a dataset text the case carries); `None` without a
    /// seam. Every distinct continuation is read once, all in one batch.
    fn lm_seam_check(&self, cases: &[Case], plans: &[Plan]) -> Result<Vec<Option<f32>>> {
        let Some(lm) = &self.lm else {
            return Ok(vec![None; cases.len()]);
        };
        let mut owners: Vec<usize> = Vec::new();
        let mut found: Vec<crate::seam::Seam> = Vec::new();
        for (i, text, original) in built_texts(cases, plans, |t| t.lm_seam.is_some()) {
            for seam in crate::seam::seams(text, original) {
                owners.push(i);
                found.push(seam);
            }
        }
        let pairs: Vec<[Continuation; 2]> = found
            .iter()
            .map(|s| {
                [
                    Continuation::spaced(&s.prefix, &s.words),
                    Continuation::spaced(&s.original_prefix, &s.words),
                ]
            })
            .collect();
        lowest_differences(lm, cases.len(), &owners, &pairs)
    }
}

impl Validator {
    /// Per case: the lowest `log p(full stop) − log p(the dataset text's next word)` after the
    /// words of a text in its edited fields' source and follow-up windows that ends at a cut
    /// ([`crate::seam::end_cut`]), when `lm_end_cut` applies to it; `None` without such an
    /// end. Every distinct continuation is read once, all in one batch.
    fn lm_end_cut_check(&self, cases: &[Case], plans: &[Plan]) -> Result<Vec<Option<f32>>> {
        let Some(lm) = &self.lm else {
            return Ok(vec![None; cases.len()]);
        };
        let mut owners: Vec<usize> = Vec::new();
        let mut found: Vec<crate::seam::EndCut> = Vec::new();
        for (i, text, original) in built_texts(cases, plans, |t| t.lm_end_cut.is_some()) {
            if let Some(cut) = crate::seam::end_cut(text, original) {
                owners.push(i);
                found.push(cut);
            }
        }
        let pairs: Vec<[Continuation; 2]> = found
            .iter()
            .map(|cut| {
                [
                    Continuation::glued(&cut.prefix, &cut.punctuation),
                    Continuation::spaced(&cut.prefix, &cut.next),
                ]
            })
            .collect();
        lowest_differences(lm, cases.len(), &owners, &pairs)
    }
}

/// Per case (of `cases` in all): the lowest `log p(a) − log p(b)` over the pairs `[a, b]` it
/// owns (`owners[k]` owns `pairs[k]`), every continuation read in one batch; `None` for a case
/// with no pair whose both sides could be scored.
fn lowest_differences(
    lm: &LmScorer,
    cases: usize,
    owners: &[usize],
    pairs: &[[Continuation<'_>; 2]],
) -> Result<Vec<Option<f32>>> {
    let log_probs = lm.continuation_log_probs(pairs.as_flattened())?;
    let mut out: Vec<Option<f32>> = vec![None; cases];
    for (k, &owner) in owners.iter().enumerate() {
        if let (Some(a), Some(b)) = (log_probs[2 * k], log_probs[2 * k + 1]) {
            let difference = a - b;
            out[owner] = Some(out[owner].map_or(difference, |o: f32| o.min(difference)));
        }
    }
    Ok(out)
}

/// The windows (source and follow-up, of the edited fields) of the cases whose relation built
/// its source from the dataset text the case carries, with the case's index and that text,
/// where `applies` holds for the case's thresholds.
fn built_texts<'a>(
    cases: &'a [Case],
    plans: &'a [Plan],
    applies: impl Fn(&Thresholds) -> bool + 'a,
) -> impl Iterator<Item = (usize, &'a str, &'a str)> + 'a {
    cases
        .iter()
        .zip(plans)
        .enumerate()
        .filter(move |(_, (case, plan))| applies(&plan.thresholds) && builds_source(&case.mr))
        .filter_map(|(i, (case, plan))| Some((i, case, plan, case.built_from.as_deref()?)))
        .flat_map(|(i, case, plan, original)| {
            plan.changes
                .iter()
                .filter(|change| case.edits.iter().any(|e| e.field == change.field))
                .flat_map(move |change| {
                    [change.source.as_str(), change.followup.as_str()]
                        .map(|text| (i, text, original))
                })
        })
}

/// What the checks of one case need.
struct Plan {
    thresholds: Thresholds,
    changes: Vec<Change>,
}

/// Adds a check's result to `v`, with `reason` when it failed.
fn record(v: &mut Validity, check: &str, score: f32, threshold: f32, reason: String) {
    let passed = score >= threshold;
    v.scores.push(CheckScore {
        check: check.into(),
        score,
        threshold,
        passed,
    });
    if !passed {
        v.reasons.push(format!("{check}: {reason}"));
    }
}

/// The first text field the follow-up has but left empty.
fn empty_field(case: &Case) -> Option<&'static str> {
    FIELDS.into_iter().find(|&f| {
        crate::window::field_text(&case.followup, f).is_some_and(|t| t.trim().is_empty())
    })
}

/// A substitution's fluency score, with the replaced and the new words.
type ScoredSubstitution = (f32, String, String);

impl Validator {
    /// With a masked LM configured, each case's word substitutions scored by the change in
    /// pseudo-log-likelihood: the substituted words' mean log10 probability per word piece in
    /// the follow-up's window minus the replaced words' in the source's, with both sides'
    /// words. All substitutions of the batch go through the model together. `None` without a
    /// masked LM.
    fn likelihood_fluency(&self, plans: &[Plan]) -> Result<Option<Vec<Vec<ScoredSubstitution>>>> {
        let Some(model) = &self.masked_lm else {
            return Ok(None);
        };
        let mut requests: Vec<(&str, std::ops::Range<usize>)> = Vec::new();
        let mut owners: Vec<(usize, &Change)> = Vec::new();
        for (i, plan) in plans.iter().enumerate() {
            if plan.thresholds.fluency.is_none() {
                continue;
            }
            for change in plan.changes.iter().filter(|c| is_substitution(c)) {
                requests.push((change.source.as_str(), change.source_words.clone()));
                requests.push((change.followup.as_str(), change.followup_words.clone()));
                owners.push((i, change));
            }
        }
        let scored = model.span_pseudo_log_likelihoods(&requests, self.config.batch_size)?;
        let mut out = vec![Vec::new(); plans.len()];
        for (pair, (i, change)) in scored.chunks(2).zip(owners) {
            let [(before_sum, before_pieces), (after_sum, after_pieces)] = [pair[0], pair[1]];
            if before_pieces == 0 || after_pieces == 0 {
                continue;
            }
            let per_piece = |sum: f32, n: usize| sum / n as f32 / std::f32::consts::LN_10;
            let score = per_piece(after_sum, after_pieces) - per_piece(before_sum, before_pieces);
            out[i].push((
                score,
                change.before().trim().to_string(),
                change.after().trim().to_string(),
            ));
        }
        Ok(Some(out))
    }
}

/// An [`Error::Asset`] naming the model it belongs to (`name (file)`); other errors unchanged.
fn named_asset(name: String) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::Asset {
            name: file,
            message,
        } => Error::Asset {
            name: format!("{name} ({file})"),
            message,
        },
        other => other,
    }
}

/// The fit gain of a word substitution (1–3 words replaced by 1–3 words), with both sides.
fn substitution_fit(fit: &mut WordFit<'_>, change: &Change) -> Option<(f32, String, String)> {
    if !is_substitution(change) {
        return None;
    }
    let (before, after) = (change.before(), change.after());
    let around = neighbours(&change.source, change.source_words.clone(), NEIGHBOURS);
    let gain = fit.gain(before.trim(), after.trim(), &around)?;
    Some((gain, before.trim().to_string(), after.trim().to_string()))
}

/// The index of `(text, chars)` in `items` (the characters as a byte range of the text),
/// appended on first sight: one encoder pass embeds each distinct window and word once.
fn intern<'a>(
    index: &mut HashMap<(&'a str, usize, usize), usize>,
    items: &mut Vec<(&'a str, std::ops::Range<usize>)>,
    text: &'a str,
    chars: &std::ops::Range<usize>,
) -> usize {
    *index
        .entry((text, chars.start, chars.end))
        .or_insert_with(|| {
            let byte = |c: usize| text.char_indices().nth(c).map_or(text.len(), |(b, _)| b);
            items.push((text, byte(chars.start)..byte(chars.end)));
            items.len() - 1
        })
}

/// Whether a change replaces 1–3 words by 1–3 words (what the word checks read).
fn is_substitution(change: &Change) -> bool {
    let words = |s: String| s.split_whitespace().count();
    (1..=MAX_SUBSTITUTION_WORDS).contains(&words(change.before()))
        && (1..=MAX_SUBSTITUTION_WORDS).contains(&words(change.after()))
}
