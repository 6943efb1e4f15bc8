//! The validity step on real assets (all-MiniLM-L6-v2 and en_core_web_sm, fetched into the
//! asset cache on first use): each check catches what it is for, the stage routes failing cases
//! to `rejected`, and a missing encoder is named at load.

use std::sync::{Arc, Mutex, OnceLock};

use metamorph_data::{
    from_batch, to_batch, Case, CharSpan, Edit, Error, Example, Expectation, Pipeline, RecordKind,
    Rejected, StageOptions, Task, Validity,
};
use metamorph_parse::stage::{ParseConfig, ParseStage};
use metamorph_validate::language_model::Continuation;
use metamorph_validate::{Mode, Thresholds, ValidateConfig, ValidateStage, Validator};

/// The `[parse]` pipeline of the default configuration.
fn parser() -> Arc<metamorph_parse::spacy::pipeline::Pipeline> {
    Arc::new(
        ParseStage::try_new(&ParseConfig::default())
            .unwrap()
            .into_pipeline(),
    )
}

fn validator() -> &'static Arc<Validator> {
    static V: OnceLock<Arc<Validator>> = OnceLock::new();
    V.get_or_init(|| Arc::new(Validator::load(&ValidateConfig::default(), parser()).unwrap()))
}

/// A CREST case; `mentions` are character spans of the follow-up (the source's are the same
/// words found in it).
fn coref_case(before: &str, after: &str, mentions: Vec<CharSpan>) -> Case {
    let mut source = Example::new("doc1", Task::Coref);
    source.text = Some(before.into());
    source.clusters = Some(vec![mentions.clone()]);
    let mut followup = source.clone();
    followup.id = "doc1:CREST:0".into();
    followup.text = Some(after.into());
    followup.clusters = Some(vec![mentions]);
    Case::new(
        "crest",
        "CREST",
        vec![source],
        followup,
        &Expectation::SameClusters {
            min_precision: 1.0,
            min_recall: 1.0,
        },
    )
}

/// The tiny Llama GGUF fixture of the models crate.
const TINY_LM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../models/tests/fixtures/causal-lm/llama-tiny.gguf"
);

fn check<'a>(v: &'a Validity, name: &str) -> Option<&'a metamorph_data::CheckScore> {
    v.scores.iter().find(|s| s.check == name)
}

#[test]
fn a_fitting_synonym_passes_and_a_wrong_sense_word_is_caught() {
    let mentions = vec![
        CharSpan { start: 0, end: 4 },
        CharSpan { start: 15, end: 18 },
    ];
    let text = "Anna resigned from her seat in parliament after her party lost.";
    let good = coref_case(
        text,
        "Anna left from her seat in parliament after her party lost.",
        mentions.clone(),
    );
    let bad = coref_case(
        text,
        "Anna resigned from her arse in parliament after her party lost.",
        mentions,
    );
    let v = validator().validate(&[good, bad]).unwrap();
    let (good, bad) = (&v[0], &v[1]);
    let meaning = |v: &Validity| check(v, "meaning").unwrap().score;
    assert!(meaning(good) > meaning(bad), "{good:?}\n{bad:?}");
    assert!(check(good, "spans").unwrap().passed);
    // Structure is off by default (calibration found no use for it); it runs when set.
    assert!(check(good, "structure").is_none());
    assert!(!bad.passed, "{bad:?}");
    assert!(!bad.reasons.is_empty());
}

#[test]
fn the_language_model_reads_the_change() {
    // The default `[validate]` runs SmolLM2-135M (fetched like the other assets).
    let mentions = vec![CharSpan { start: 0, end: 4 }];
    let text = "Anna resigned from her seat in parliament after her party lost the election.";
    let fitting = coref_case(
        text,
        "Anna resigned from her seat in parliament after her party lost the vote.",
        mentions.clone(),
    );
    let garbled = coref_case(
        text,
        "Anna resigned from her seat in parliament after her party lost the an ballot.",
        mentions,
    );
    let v = validator().validate(&[fitting, garbled]).unwrap();
    let lm = |v: &Validity| {
        check(v, "lm")
            .expect("a CREST case has an lm score")
            .clone()
    };
    let (fitting, garbled) = (lm(&v[0]), lm(&v[1]));
    assert!(fitting.score > garbled.score, "{fitting:?} {garbled:?}");
    assert!(fitting.passed, "{fitting:?}");
    assert!(!garbled.passed, "{garbled:?}");
    assert!(
        v[1].reasons
            .iter()
            .any(|r| r.starts_with("lm:") && r.contains("nats")),
        "{:?}",
        v[1].reasons
    );
}

#[test]
fn the_lm_score_is_the_windows_difference_under_the_configured_model() {
    let tiny = TINY_LM;
    let config = ValidateConfig {
        lm: tiny.into(),
        ..ValidateConfig::default()
    };
    let validator = Validator::load(&config, parser()).unwrap();
    let before = "The river rose after the storm.";
    let after = "The river fell after the storm.";
    let v = validator
        .validate(&[coref_case(before, after, vec![])])
        .unwrap()
        .remove(0);
    let lm = check(&v, "lm").expect("an lm score");
    let scorer =
        metamorph_validate::language_model::LmScorer::load(tiny, Default::default()).unwrap();
    let s = scorer.score_texts(&[before, after]).unwrap();
    let want = s[1].total - s[0].total;
    assert!((lm.score - want).abs() < 1e-4, "{} vs {want}", lm.score);
    // Switched off, no model is loaded and no lm score is recorded.
    let off = ValidateConfig {
        lm: "none".into(),
        ..ValidateConfig::default()
    };
    let v = Validator::load(&off, parser())
        .unwrap()
        .validate(&[coref_case(before, after, vec![])])
        .unwrap()
        .remove(0);
    assert!(check(&v, "lm").is_none(), "{v:?}");
}

#[test]
fn a_language_model_that_does_not_load_is_named() {
    let config = ValidateConfig {
        lm: "no/such/model.gguf".into(),
        ..ValidateConfig::default()
    };
    let e = Validator::load(&config, parser()).unwrap_err();
    assert!(matches!(e, Error::Asset { .. }), "{e}");
    assert!(e.to_string().contains("validity language model"), "{e}");
    assert!(e.to_string().contains("no/such/model.gguf"), "{e}");
}

#[test]
fn empty_texts_and_broken_spans_are_rejected_with_a_reason() {
    let empty = coref_case("Anna left.", "", vec![CharSpan { start: 0, end: 4 }]);
    let broken = coref_case(
        "Queen Victoria 's son left early.",
        "Queen Victoria 's son left soon.",
        vec![CharSpan { start: 0, end: 17 }],
    );
    let v = validator().validate(&[empty, broken]).unwrap();
    assert!(!v[0].passed);
    assert!(
        v[0].reasons.iter().any(|r| r.starts_with("text:")),
        "{:?}",
        v[0]
    );
    assert!(!v[1].passed);
    assert!(
        v[1].reasons.iter().any(|r| r.contains("clitic")),
        "{:?}",
        v[1]
    );
}

#[test]
fn a_case_waiting_for_generation_is_an_error_naming_it() {
    let mut case = coref_case("Anna left.", "Anna went.", vec![]);
    case.generation_json = Some("{}".into());
    let e = validator().validate(&[case]).unwrap_err().to_string();
    assert!(e.contains("doc1:CREST:0") && e.contains("generate"), "{e}");
}

#[test]
fn the_stage_sends_failing_cases_to_rejected_and_flag_mode_keeps_them() {
    let ok = coref_case(
        "Anna left the house early.",
        "Anna left the house soon.",
        vec![CharSpan { start: 0, end: 4 }],
    );
    let bad = coref_case("Anna left.", "", vec![CharSpan { start: 0, end: 4 }]);
    let run = |validator: Arc<Validator>| {
        let got: Arc<Mutex<Vec<(RecordKind, usize)>>> = Arc::default();
        let sink = got.clone();
        let batch = to_batch(&[ok.clone(), bad.clone()]).unwrap();
        Pipeline::new(std::iter::once(Ok(batch)))
            .stage(
                Arc::new(ValidateStage::new(validator)),
                StageOptions::default(),
                None,
            )
            .sink(move |b| {
                let kind = RecordKind::of_batch(&b)?;
                if kind == RecordKind::Rejected {
                    let rows: Vec<Rejected> = from_batch(&b, "test")?;
                    assert!(rows[0].0.validity.as_ref().is_some_and(|v| !v.passed));
                } else {
                    let rows: Vec<Case> = from_batch(&b, "test")?;
                    assert!(rows.iter().all(|c| c.validity.is_some()));
                }
                sink.lock().unwrap().push((kind, b.num_rows()));
                Ok(())
            })
            .run()
            .unwrap();
        let mut got = got.lock().unwrap().clone();
        got.sort_by_key(|(k, _)| k.as_str());
        got
    };
    // Thresholds that only an empty text fails, so the routing is what is tested.
    let lenient = ValidateConfig {
        thresholds: Thresholds {
            meaning: Some(-1.0),
            structure: Some(0.0),
            fluency: Some(-2.0),
            sense: Some(-1.0),
            spans: Some(1.0),
            lm: Some(-100.0),
            lm_sentence: Some(-100.0),
            lm_ending: Some(-100.0),
            lm_seam: Some(-100.0),
            lm_end_cut: Some(-100.0),
        },
        ..ValidateConfig::default()
    };
    let rejecting = Validator::load(&lenient, parser()).unwrap();
    assert_eq!(
        run(Arc::new(rejecting)),
        [(RecordKind::Case, 1), (RecordKind::Rejected, 1)]
    );
    let flag = ValidateConfig {
        mode: Mode::Flag,
        ..lenient
    };
    let flagging = Validator::load(&flag, parser()).unwrap();
    assert_eq!(run(Arc::new(flagging)), [(RecordKind::Case, 2)]);
}

#[test]
fn an_encoder_that_does_not_load_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let config = ValidateConfig {
        encoder: dir.path().display().to_string(),
        ..ValidateConfig::default()
    };
    let e = Validator::load(&config, parser()).unwrap_err();
    assert!(matches!(e, Error::Asset { .. }), "{e}");
    assert!(e.to_string().contains("validity encoder"), "{e}");
}

/// The tiny random BERT masked LM of the models crate's parity fixtures.
fn tiny_masked_lm() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models/tests/fixtures/mlm/bert")
        .display()
        .to_string()
}

#[test]
fn a_configured_masked_lm_scores_fluency_by_pseudo_log_likelihood() {
    let config = ValidateConfig {
        masked_lm: Some(tiny_masked_lm()),
        ..ValidateConfig::default()
    };
    // The masked LM's own scale replaces the word-vector threshold.
    assert_eq!(
        config.thresholds_for("crest", "CREST").fluency,
        Some(metamorph_validate::MASKED_LM_FLUENCY)
    );
    let validator = Validator::load(&config, parser()).unwrap();
    let mentions = vec![CharSpan { start: 0, end: 4 }];
    let before = "Anna resigned from her seat in parliament.";
    let after = "Anna left from her seat in parliament.";
    let v = validator
        .validate(&[coref_case(before, after, mentions)])
        .unwrap()
        .remove(0);
    let fluency = check(&v, "fluency").expect("a substitution has a fluency score");
    // The score is the change in mean log10 probability per piece of the replaced words, as
    // the masked LM gives it for each side alone.
    let model = metamorph_models::masked_lm::CandleMaskedLm::load_dir(
        std::path::Path::new(&tiny_masked_lm()),
        "tiny",
        &Default::default(),
    )
    .unwrap();
    let scored = model
        .span_pseudo_log_likelihoods(&[(before, 5..13), (after, 5..9)], 8)
        .unwrap();
    let mean = |(sum, n): (f32, usize)| sum / n as f32 / std::f32::consts::LN_10;
    let want = mean(scored[1]) - mean(scored[0]);
    assert!(
        (fluency.score - want).abs() < 1e-4,
        "{} vs {want}",
        fluency.score
    );
    assert_eq!(fluency.passed, fluency.score >= fluency.threshold);
    if !fluency.passed {
        assert!(
            v.reasons.iter().any(|r| r.contains("masked LM")),
            "{:?}",
            v.reasons
        );
    }
}

#[test]
fn a_masked_lm_that_does_not_load_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let config = ValidateConfig {
        masked_lm: Some(dir.path().display().to_string()),
        ..ValidateConfig::default()
    };
    let e = Validator::load(&config, parser()).unwrap_err();
    assert!(matches!(e, Error::Asset { .. }), "{e}");
    assert!(e.to_string().contains("validity masked LM"), "{e}");
}

/// An NLPLego-SA case: the relation built `parent` (the source) and `child` from one sentence.
fn sentiment_case(parent: &str, child: &str) -> Case {
    let mut source = Example::new("s1:NLPLego-SA:node0", Task::Sentiment);
    source.text = Some(parent.into());
    let mut followup = source.clone();
    followup.id = "s1:NLPLego-SA:0".into();
    followup.text = Some(child.into());
    Case::new(
        "nlplego",
        "NLPLego-SA",
        vec![source],
        followup,
        &Expectation::Directional {
            parent: 0,
            part: 0,
            max_rise: 0.0,
        },
    )
}

#[test]
fn lm_ending_is_the_log_probability_of_the_parents_full_stop() {
    let tiny = TINY_LM;
    let config = ValidateConfig {
        lm: tiny.into(),
        relations: [(
            "NLPLego-SA".to_string(),
            Thresholds {
                lm_ending: Some(0.0),
                ..Thresholds::default()
            },
        )]
        .into(),
        ..ValidateConfig::default()
    };
    let validator = Validator::load(&config, parser()).unwrap();
    let parent = "The film works. It stops me.";
    let child = "The film works. It stops me from going.";
    let v = validator
        .validate(&[sentiment_case(parent, child)])
        .unwrap()
        .remove(0);
    let ending = check(&v, "lm_ending").expect("an lm_ending score");
    // The score is the changed sentence's window with its full stop less the window without
    // it (only the changed sentence: `context_sentences` is 0).
    let scorer =
        metamorph_validate::language_model::LmScorer::load(tiny, Default::default()).unwrap();
    let s = scorer
        .score_texts(&[
            "The film works",
            "The film works.",
            "The film works. It stops me",
            parent,
            "It stops me",
            "It stops me.",
        ])
        .unwrap();
    let want = s[5].total - s[4].total;
    assert!(
        (ending.score - want).abs() < 1e-3,
        "{} vs {want}",
        ending.score
    );
    // A text of several sentences: the lowest of its ends, each read after all before it.
    let whole = scorer.ending_log_probs(&[parent, "no end here"]).unwrap();
    let want = (s[1].total - s[0].total).min(s[3].total - s[2].total);
    assert!(
        (whole[0].unwrap() - want).abs() < 1e-3,
        "{whole:?} vs {want}"
    );
    assert_eq!(whole[1], None);
    // Tokenized text reads as edited text does: the punctuation attached to its word.
    let spaced = scorer
        .ending_log_probs(&["The film works . It stops me ."])
        .unwrap();
    assert!(
        (spaced[0].unwrap() - want).abs() < 1e-3,
        "{spaced:?} vs {want}"
    );
    // A log-probability is at most 0, so a threshold of 0 fails it, with a reason.
    assert!(!ending.passed);
    assert!(
        v.reasons.iter().any(|r| r.starts_with("lm_ending:")),
        "{v:?}"
    );
    // Relations that do not build their source are not read.
    let crest = validator
        .validate(&[coref_case(parent, child, vec![])])
        .unwrap()
        .remove(0);
    assert!(check(&crest, "lm_ending").is_none(), "{crest:?}");
}

/// A validator on the tiny LM with `thresholds` for NLPLego-SA (the built-in ones elsewhere).
fn nlplego_sa_validator(thresholds: Thresholds) -> Validator {
    let config = ValidateConfig {
        lm: TINY_LM.into(),
        relations: [("NLPLego-SA".to_string(), thresholds)].into(),
        ..ValidateConfig::default()
    };
    Validator::load(&config, parser()).unwrap()
}

#[test]
fn lm_seam_reads_the_words_after_a_cut_against_the_dataset_text() {
    let tiny = TINY_LM;
    let validator = nlplego_sa_validator(Thresholds {
        lm_seam: Some(50.0),
        ..Thresholds::default()
    });
    let original = "He spoke loud enough for those at the back to hear him.";
    let parent = "He spoke loud to hear him.";
    let child = "He spoke loud enough to hear him.";
    let mut case = sentiment_case(parent, child);
    case.edits = vec![Edit {
        field: "text".into(),
        start: 13,
        end: 13,
        before: String::new(),
        after: " enough".into(),
    }];
    let without = validator.validate(&[case.clone()]).unwrap().remove(0);
    assert!(check(&without, "lm_seam").is_none(), "{without:?}");
    case.built_from = Some(original.into());
    let v = validator.validate(&[case]).unwrap().remove(0);
    let seam = check(&v, "lm_seam").expect("an lm_seam score");
    // Parent and child both read "to hear" after a gap; the score is the lower gain.
    let scorer =
        metamorph_validate::language_model::LmScorer::load(tiny, Default::default()).unwrap();
    let after_cut = "He spoke loud enough for those at the back";
    let lp = scorer
        .continuation_log_probs(&[
            Continuation::spaced("He spoke loud", "to hear"),
            Continuation::spaced(after_cut, "to hear"),
            Continuation::spaced("He spoke loud enough", "to hear"),
        ])
        .unwrap();
    let (parent_lp, original_lp, child_lp) = (lp[0].unwrap(), lp[1].unwrap(), lp[2].unwrap());
    let want = (parent_lp - original_lp).min(child_lp - original_lp);
    assert!((seam.score - want).abs() < 1e-3, "{} vs {want}", seam.score);
    // The words are read as scoring the whole text would: their tokens' log-probabilities.
    let s = scorer
        .score_texts(&["He spoke loud", "He spoke loud to hear"])
        .unwrap();
    assert!((parent_lp - (s[1].total - s[0].total)).abs() < 1e-3);
    // A gain of at most 50 nats fails a threshold of 50, with a reason.
    assert!(!seam.passed);
    assert!(v.reasons.iter().any(|r| r.starts_with("lm_seam:")), "{v:?}");
}

#[test]
fn lm_end_cut_reads_the_full_stop_against_the_dataset_texts_next_word() {
    let tiny = TINY_LM;
    let validator = nlplego_sa_validator(Thresholds {
        lm_end_cut: Some(50.0),
        ..Thresholds::default()
    });
    let original = "Responsibility turned the spoiled playboy into a serious adult.";
    let parent = "Responsibility turned the playboy.";
    let child = "Responsibility turned the spoiled playboy.";
    let mut case = sentiment_case(parent, child);
    case.edits = vec![Edit {
        field: "text".into(),
        start: 25,
        end: 25,
        before: String::new(),
        after: " spoiled".into(),
    }];
    let without = validator.validate(&[case.clone()]).unwrap().remove(0);
    assert!(check(&without, "lm_end_cut").is_none(), "{without:?}");
    case.built_from = Some(original.into());
    let v = validator.validate(&[case]).unwrap().remove(0);
    let cut = check(&v, "lm_end_cut").expect("an lm_end_cut score");
    // Parent and child both end where the dataset text goes on with "into"; the score is the
    // lower preference for the full stop.
    let scorer =
        metamorph_validate::language_model::LmScorer::load(tiny, Default::default()).unwrap();
    let (short, long) = (
        "Responsibility turned the playboy",
        "Responsibility turned the spoiled playboy",
    );
    let lp = scorer
        .continuation_log_probs(&[
            Continuation::glued(short, "."),
            Continuation::spaced(short, "into"),
            Continuation::glued(long, "."),
            Continuation::spaced(long, "into"),
        ])
        .unwrap();
    let lp: Vec<f32> = lp.into_iter().map(Option::unwrap).collect();
    let want = (lp[0] - lp[1]).min(lp[2] - lp[3]);
    assert!((cut.score - want).abs() < 1e-3, "{} vs {want}", cut.score);
    // The full stop is read glued to the last word, as the text writes it.
    let s = scorer
        .score_texts(&[long, "Responsibility turned the spoiled playboy."])
        .unwrap();
    assert!((lp[2] - (s[1].total - s[0].total)).abs() < 1e-3);
    assert!(!cut.passed);
    assert!(
        v.reasons.iter().any(|r| r.starts_with("lm_end_cut:")),
        "{v:?}"
    );
}
