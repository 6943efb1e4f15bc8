//! The pipeline (`metamorph run`, `cargo xtask pipeline`) end to end, as a user runs it: outputs, resume, interruption and bad
//! input. The model under test is the protocol test program of the execute crate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use metamorph::{run_pipeline, PipelineOptions};
use metamorph_data::{from_batch, read_shard, Example, ShardSpec, Verdict};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Writes a config for `dataset` (path, format) with the test model in `mode`.
fn config(dir: &Path, datasets: &[(&str, &Path, &str)], mode: &[&str], shards: usize) -> PathBuf {
    let script = root().join("execute/tests/fixtures/test_model.py");
    let mut command = vec!["python3".to_string(), script.display().to_string()];
    command.extend(mode.iter().map(|s| s.to_string()));
    let mut text = format!("[pipeline]\noutput = \"out\"\nshards = {shards}\nbatch_size = 8\n\n");
    for (name, path, format) in datasets {
        text.push_str(&format!(
            "[[pipeline.datasets]]\nname = \"{name}\"\npath = {:?}\nformat = \"{format}\"\n\n",
            path.display().to_string()
        ));
    }
    text.push_str(&format!(
        "[perturb]\nrelations = [\"MR1-3\"]\n\n[execute]\ncache = false\n\n[[execute.models]]\nname = \"keyword\"\ncommand = {command:?}\nbatch_size = 4\ntimeout_secs = 60\n"
    ));
    // These tests count every MR1-3 case through the stages; the validity step, which may set
    // some aside, is tested where its counts are checked (the NLPLego and relation runs below).
    text.push_str("\n[validate]\nenabled = false\n");
    let path = dir.join("metamorph.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Replaces `from` with `to` in the config file at `cfg`.
fn edit_config(cfg: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(cfg).unwrap();
    assert!(text.contains(from), "{from:?} is not in the config");
    std::fs::write(cfg, text.replace(from, to)).unwrap();
}

fn boolq_sample() -> PathBuf {
    root().join("data/samples/boolq.jsonl")
}

fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "parquet")
                || path.to_string_lossy().contains(".tmp-")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn read<R: metamorph_data::Record>(pattern: &Path) -> Vec<R> {
    let files = metamorph_data::expand_inputs(&[pattern.display().to_string()]).unwrap();
    let mut rows = Vec::new();
    for f in files {
        for batch in read_shard(&f, ShardSpec::WHOLE, 100).unwrap() {
            rows.extend(from_batch::<R>(&batch.unwrap(), "test").unwrap());
        }
    }
    rows
}

#[test]
fn runs_every_stage_then_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["keyword"],
        2,
    );
    // Several perturb and judge workers must give the same result as one.
    edit_config(
        &cfg,
        "batch_size = 8\n",
        "batch_size = 8\nworkers = { perturb = 2, judge = 2 }\n",
    );
    let report = run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    assert_eq!((report.units_run, report.units_skipped), (2, 0));

    let out = dir.path().join("out/boolq");
    let examples: Vec<Example> = read(&out.join("example/*.parquet"));
    let sample = std::fs::read_to_string(root().join("data/samples/boolq.jsonl")).unwrap();
    assert_eq!(examples.len(), sample.lines().count());
    // The sources MR1-3 made a case for: each holds an order word, and most questions that
    // hold one do (the relation leaves states, abilities and a word on a noun alone).
    let cases: Vec<metamorph_data::Case> = read(&out.join("case/*.parquet"));
    let with_order_word: Vec<&Example> = examples
        .iter()
        .filter(|e| {
            let q = e.question.as_deref().unwrap();
            q.split_whitespace().any(|w| w == "before" || w == "after")
        })
        .collect();
    let order_word_questions = with_order_word.len();
    let with_order_word: Vec<&Example> = with_order_word
        .into_iter()
        .filter(|e| cases.iter().any(|c| c.sources[0].question == e.question))
        .collect();
    assert!(with_order_word.len() * 4 >= order_word_questions * 3);
    assert!(cases.iter().all(|c| {
        let q = c.sources[0].question.as_deref().unwrap();
        q.split_whitespace().any(|w| w == "before" || w == "after")
    }));
    let verdicts: Vec<Verdict> = read(&out.join("verdict/*.parquet"));
    assert_eq!(verdicts.len(), with_order_word.len());
    // The keyword model says yes iff "before" is in the question, so MR1-3 holds on every
    // applicable case, and a source whose first order word is "after" is not applicable.
    let eligible = with_order_word
        .iter()
        .filter(|e| {
            let q = e.question.as_deref().unwrap();
            q.split_whitespace().any(|w| w == "before")
        })
        .count();
    let summary = &report.summary.relations[0];
    assert_eq!(
        (summary.mr.as_str(), summary.cases as usize),
        ("MR1-3", with_order_word.len())
    );
    assert_eq!(summary.applicable as usize, eligible);
    assert_eq!(summary.violations, 0);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report.summary_path).unwrap()).unwrap();
    assert_eq!(json["relations"][0]["mr"], "MR1-3");
    assert_eq!(json["relations"][0]["applicable"], eligible as u64);
    assert_eq!(json["schema_version"], metamorph_judge::SUMMARY_VERSION);
    assert_eq!(report.report_path, dir.path().join("out/report.html"));
    let html = std::fs::read_to_string(&report.report_path).unwrap();
    assert!(html.contains("mt4mrc · MR1-3") && !html.contains("http"));

    // Second run: nothing is redone, files are untouched.
    let before: Vec<_> = parquet_files(&out)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .collect();
    let again = run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    assert_eq!((again.units_run, again.units_skipped), (0, 2));
    let after: Vec<_> = parquet_files(&out)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .collect();
    assert_eq!(before, after);
    assert_eq!(again.summary, report.summary);
}

#[test]
fn a_configured_generate_stage_sits_between_perturb_and_execute() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["keyword"],
        1,
    );
    let model = root().join("generate/tests/fixtures/bart-tiny");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str(&format!(
        "\n[generate.decomposition]\nkind = \"candle\"\nmodel = {:?}\nmax_new_tokens = 8\n",
        model.display().to_string()
    ));
    std::fs::write(&cfg, text).unwrap();
    let report = run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    assert_eq!(report.units_run, 1);
    // MR1-3 asks for no generation: its cases pass generate unchanged, are written once (by
    // generate, not also by perturb) and are judged.
    let out = dir.path().join("out/boolq");
    let cases: Vec<metamorph_data::Case> = read(&out.join("case/*.parquet"));
    let verdicts: Vec<Verdict> = read(&out.join("verdict/*.parquet"));
    assert!(!cases.is_empty());
    assert!(cases.iter().all(|c| c.generation_json.is_none()));
    let mut ids: Vec<&str> = cases.iter().map(|c| c.case_id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), cases.len());
    assert_eq!(verdicts.len(), cases.len());
    // A bad [generate] fails at start-up, naming the table.
    edit_config(&cfg, "max_new_tokens = 8", "max_new_tokens = 8\nbeams = 2");
    let e = run_pipeline(
        &cfg,
        &PipelineOptions {
            force: true,
            ..PipelineOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("[generate]") && e.contains("beams"), "{e}");
}

#[test]
fn an_interrupted_run_leaves_no_partial_file_and_the_next_run_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["slow", "0.15"],
        1,
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_metamorph"))
        .args(["run", "--quiet", "--config"])
        .arg(&cfg)
        .spawn()
        .unwrap();
    // Wait until the run is writing (temporary files exist), then stop it as Ctrl-C would.
    let started = Instant::now();
    while parquet_files(&dir.path().join("out")).is_empty()
        && started.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert_eq!(exit.code(), Some(130), "interrupted runs exit with 130");
    let left = parquet_files(&dir.path().join("out"));
    assert!(left.is_empty(), "partial files left behind: {left:?}");

    let fast = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["keyword"],
        1,
    );
    let report = run_pipeline(&fast, &PipelineOptions::default()).unwrap();
    assert_eq!(report.units_run, 1);
}

#[test]
fn bad_inputs_fail_with_one_clear_message_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str, &str); 4] = [
        ("bad.jsonl", b"{\"question\": \"is it\", \"passage\": \"p\"}\n{\"question\": 1, \"passage\": \"p\"}\n", "boolq", "bad.jsonl:line 2: field `question`"),
        ("squad.json", br#"{"data": [{"title": "T", "paragraphs": [{"qas": []}]}]}"#, "squad", "squad.json:data[0].paragraphs[0]: field `context`"),
        ("empty.jsonl", b"", "boolq", "empty.jsonl:line 1"),
        ("blob.jsonl", &[0x89, b'P', b'N', b'G', 0, 0, 0xff], "boolq", "binary"),
    ];
    for (name, bytes, format, expected) in cases {
        let data = dir.path().join(name);
        std::fs::write(&data, bytes).unwrap();
        let cfg = config(dir.path(), &[("d", &data, format)], &["keyword"], 1);
        let output = Command::new(env!("CARGO_BIN_EXE_metamorph"))
            .args(["run", "--quiet", "--config"])
            .arg(&cfg)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(
            parquet_files(&dir.path().join("out")).is_empty(),
            "{name}: output left behind"
        );
    }
}

#[test]
fn unknown_relation_and_missing_dataset_are_config_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["keyword"],
        1,
    );
    edit_config(&cfg, "\"MR1-3\"", "\"MR9-9\"");
    let message = run_pipeline(&cfg, &PipelineOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("unknown relation `MR9-9`"), "{message}");

    let cfg = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["keyword"],
        1,
    );
    edit_config(
        &cfg,
        "batch_size = 8\n",
        "batch_size = 8\nworkers = { report = 2 }\n",
    );
    let message = run_pipeline(&cfg, &PipelineOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("[pipeline.workers] `report`"), "{message}");

    let missing = dir.path().join("nowhere.jsonl");
    let cfg = config(dir.path(), &[("boolq", &missing, "boolq")], &["keyword"], 1);
    let message = run_pipeline(&cfg, &PipelineOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("nowhere.jsonl"), "{message}");
}

#[test]
fn dataset_and_model_names_are_checked_before_any_stage_runs() {
    let dir = tempfile::tempdir().unwrap();
    let sample = boolq_sample();
    let refused = |datasets: &[(&str, &Path, &str)], edit: Option<(&str, &str)>| {
        let cfg = config(dir.path(), datasets, &["keyword"], 1);
        if let Some((from, to)) = edit {
            edit_config(&cfg, from, to);
        }
        let message = run_pipeline(&cfg, &PipelineOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            !dir.path().join("out").exists(),
            "nothing may be written: {message}"
        );
        message
    };
    let message = refused(&[("../../x", &sample, "boolq")], None);
    assert!(message.contains("dataset name \"../../x\""), "{message}");
    let message = refused(
        &[("boolq", &sample, "boolq"), ("boolq", &sample, "boolq")],
        None,
    );
    assert!(
        message.contains("dataset name `boolq` is used twice"),
        "{message}"
    );
    let twice = "[[execute.models]]\nname = \"keyword\"";
    let message = refused(
        &[("boolq", &sample, "boolq")],
        Some((
            "[[execute.models]]",
            &format!("{twice}\ncommand = [\"true\"]\n\n[[execute.models]]"),
        )),
    );
    assert!(
        message.contains("model name `keyword` is used twice"),
        "{message}"
    );
}

#[test]
fn outputs_read_unmodified_in_pyarrow_and_polars() {
    let has_pyarrow = Command::new("python3")
        .args(["-c", "import pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyarrow {
        metamorph_data::shared_data::skipped(
            "pyarrow is not installed (pip install pyarrow polars to run this check)",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["keyword"],
        2,
    );
    run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    let out = Command::new("python3")
        .arg(root().join("scripts/check_parquet_interop.py"))
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // example, parsed, case, prediction and verdict files of two shards.
    assert!(stdout.contains("10 files read"), "{stdout}");
}

#[test]
fn relation_datasets_get_their_own_entity_pool_and_the_keyword_baseline_judges_them() {
    let dir = tempfile::tempdir().unwrap();
    let model = root().join("examples/models/relation_keywords.py");
    let text = format!(
        "[pipeline]\noutput = \"out\"\nshards = 2\nbatch_size = 8\n\n\
         [[pipeline.datasets]]\nname = \"tacred\"\npath = {:?}\nformat = \"tacred\"\n\n\
         [perturb]\nrelations = [\"sit4re\"]\n\n\
         [[execute.models]]\nname = \"relation-keywords\"\ncommand = [\"python3\", {:?}]\n\
         tasks = [\"relation\"]\nbatch_size = 16\ntimeout_secs = 60\n",
        root()
            .join("data/samples/tacred.json")
            .display()
            .to_string(),
        model.display().to_string(),
    );
    let cfg = dir.path().join("metamorph.toml");
    std::fs::write(&cfg, text).unwrap();
    let report = run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    // The pool was built from the dataset's own gold spans, under the dataset's output folder.
    let pool_path = dir.path().join("out/tacred/entity_pool.json");
    let pool = metamorph_perturb::lexicon::entity_pool::EntityPool::load_json(&pool_path).unwrap();
    assert_eq!(pool.source(), "gold");
    assert!(pool.count("PERSON", "Tim Cook") >= 1);
    let counts = |mr: &str| {
        report
            .perturb_counts
            .iter()
            .find(|c| c.mr == mr)
            .unwrap_or_else(|| panic!("{mr} counted"))
            .clone()
    };
    for mr in [
        "MR-R1", "MR-R2", "MR-R3", "MR-R4", "MR-S1", "MR-S2", "MR-C1", "MR-C2",
    ] {
        let c = counts(mr);
        assert_eq!(c.sources, 44, "{mr}");
        assert!(c.cases > 0, "{mr}: {c:?}");
    }
    // Every relation's cases were judged by the relation model.
    for mr in ["MR-R1", "MR-S2", "MR-C1"] {
        let row = report
            .summary
            .relations
            .iter()
            .find(|r| r.mr == mr)
            .unwrap_or_else(|| panic!("{mr} in the summary"));
        assert_eq!(row.model, "relation-keywords");
        assert_eq!(row.cases + rejected(&report.summary, mr), counts(mr).cases);
    }
}

/// `examples/configs/bpb.toml`: Break-Perturb-Build end to end on the bundled DROP sample with
/// the edit question builder and SmolLM2 as the QA model under test. Contrast sets are built
/// from BREAK decompositions, every perturbed question the builder writes replaces the source
/// question (no open request reaches execute; those it cannot write are dropped), every case
/// that reaches execute is judged, and the summary reports consistency.
#[test]
fn bpb_contrast_sets_run_through_generate_to_the_consistency_metric() {
    let dir = tempfile::tempdir().unwrap();
    let options = PipelineOptions {
        output: Some(dir.path().join("out")),
        ..PipelineOptions::default()
    };
    let report = run_pipeline(&root().join("examples/configs/bpb.toml"), &options).unwrap();
    let cases = |mr: &str| {
        report
            .perturb_counts
            .iter()
            .find(|c| c.family == "bpb" && c.mr == mr)
            .map_or(0, |c| c.cases)
    };
    assert!(cases("ORIG") >= 3, "{:?}", report.perturb_counts);
    assert!(cases("AppendBool") > 0 && cases("ChangeLast") > 0);
    // PruneStep's answers come from the evaluator, whose context steps SmolLM2 answers; on
    // these four passages it locates none of them in the passage, so there may be none (the
    // evaluator has tests of its own in perturb).
    let judged: u64 = report
        .summary
        .relations
        .iter()
        .filter(|r| r.family == "bpb")
        .map(|r| r.cases)
        .sum();
    let made: u64 = report.perturb_counts.iter().map(|c| c.cases).sum();
    // The original questions need no building; perturbed ones the rules cannot write are
    // dropped by generate.
    assert!(
        judged <= made && judged >= cases("ORIG") + 3,
        "{judged} judged of {made} made"
    );
    let overall = report
        .summary
        .consistency
        .iter()
        .find(|c| c.family == "bpb" && c.mr.is_none())
        .expect("bpb consistency");
    assert_eq!(overall.groups, cases("ORIG"));
    assert!(overall.consistent <= overall.groups);
    // The generated questions replaced the source question in every perturbed case.
    let case_dir = dir.path().join("out/drop/case");
    for file in std::fs::read_dir(case_dir).unwrap() {
        for batch in read_shard(&file.unwrap().path(), ShardSpec::WHOLE, 256).unwrap() {
            for case in from_batch::<metamorph_data::Case>(&batch.unwrap(), "test").unwrap() {
                assert_eq!(case.generation().unwrap(), None, "{}", case.case_id);
                if case.mr != "ORIG" {
                    assert_ne!(case.followup.question, case.sources[0].question);
                }
            }
        }
    }
}

#[test]
fn nlplego_runs_its_three_oracles_on_the_bundled_samples() {
    let dir = tempfile::tempdir().unwrap();
    let options = PipelineOptions {
        output: Some(dir.path().join("out")),
        ..PipelineOptions::default()
    };
    let report = run_pipeline(&root().join("examples/configs/nlplego.toml"), &options).unwrap();
    for (mr, model) in [
        ("NLPLego-MRC", "squad-sliding-window-baseline"),
        ("NLPLego-SA", "sentiment-lexicon-baseline"),
        ("NLPLego-SSM", "minilm-paraphrase"),
    ] {
        let made = report
            .perturb_counts
            .iter()
            .find(|c| c.family == "nlplego" && c.mr == mr)
            .map_or(0, |c| c.cases);
        assert!(made > 0, "{mr}: {:?}", report.perturb_counts);
        let judged = report
            .summary
            .relations
            .iter()
            .find(|r| r.mr == mr)
            .unwrap_or_else(|| panic!("{mr} has no verdicts"));
        assert_eq!(judged.model, model);
        assert_eq!(
            judged.cases + rejected(&report.summary, mr),
            made,
            "{mr}: every case the validity step kept gets a verdict"
        );
        assert!(judged.applicable > 0, "{mr}");
    }
    // The sentiment cases' sources (parent sentence, adjunct alone) were predicted too.
    let predictions: Vec<metamorph_data::Prediction> =
        read(&dir.path().join("out/sentiment/prediction/*.parquet"));
    assert!(predictions
        .iter()
        .any(|p| p.example_id.contains(":NLPLego-SA:adjunct")));
    assert!(predictions.iter().all(|p| p.probabilities.is_some()));
}

#[test]
fn the_validity_step_scores_every_case_and_sets_the_failing_ones_aside() {
    let dir = tempfile::tempdir().unwrap();
    let options = PipelineOptions {
        output: Some(dir.path().join("out")),
        ..PipelineOptions::default()
    };
    // The bundled run's config: every family, the validity step on by default.
    let report = run_pipeline(&root().join("metamorph.toml"), &options).unwrap();
    let validity = &report.summary.validity;
    assert!(!validity.is_empty());
    for c in report.perturb_counts.iter().filter(|c| c.cases > 0) {
        let v = validity
            .iter()
            .find(|v| v.mr == c.mr)
            .unwrap_or_else(|| panic!("{} has no validity counts", c.mr));
        assert_eq!(v.generated, c.cases, "{}", c.mr);
        assert_eq!(v.checked, v.generated, "{}: every case is checked", c.mr);
        assert_eq!(v.passed + v.rejected, v.checked, "{}", c.mr);
    }
    // The rejected cases are on disk with their scores and reasons.
    let rejected: Vec<metamorph_data::Rejected> =
        read(&dir.path().join("out/*/rejected/*.parquet"));
    let total: u64 = validity.iter().map(|v| v.rejected).sum();
    assert!(total > 0, "{validity:?}");
    assert_eq!(rejected.len() as u64, total);
    for metamorph_data::Rejected(case) in &rejected {
        let v = case
            .validity
            .as_ref()
            .expect("a rejected case carries its validity");
        assert!(!v.passed && !v.reasons.is_empty(), "{v:?}");
    }
    // The cases that went on carry a passing validity.
    let kept: Vec<metamorph_data::Case> = read(&dir.path().join("out/boolq/case/*.parquet"));
    assert!(kept
        .iter()
        .all(|c| c.validity.as_ref().is_some_and(|v| v.passed)));
}

/// The `part-*` files in `dir` (one record kind's folder), by name.
fn part_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_changed_shard_count_input_or_setting_redoes_the_units_instead_of_mixing_results() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("boolq.jsonl");
    std::fs::copy(boolq_sample(), &data).unwrap();
    let cfg = config(dir.path(), &[("boolq", &data, "boolq")], &["keyword"], 2);
    let run = || run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    let first = run();
    assert_eq!((first.units_run, first.units_skipped), (2, 0));
    let cases = first.summary.relations[0].cases;
    // The questions MR1-3 made a case for on the whole file.
    let case_questions: Vec<String> =
        read::<metamorph_data::Case>(&dir.path().join("out/boolq/case/*.parquet"))
            .into_iter()
            .filter_map(|c| c.sources[0].question.clone())
            .collect();

    // Four shards instead of two: the two old parts go, nothing is counted twice.
    edit_config(&cfg, "shards = 2", "shards = 4");
    let second = run();
    assert_eq!((second.units_run, second.units_skipped), (4, 0));
    assert_eq!(second.summary.relations[0].cases, cases);
    let verdicts = part_names(&dir.path().join("out/boolq/verdict"));
    assert_eq!(verdicts.len(), 4, "{verdicts:?}");
    assert!(verdicts.iter().all(|n| n.ends_with("-of-00004.parquet")));

    // The same dataset name and path with other contents: redone, not the old results.
    let text = std::fs::read_to_string(&data).unwrap();
    let first_lines: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    std::fs::write(&data, &first_lines).unwrap();
    let third = run();
    assert_eq!((third.units_run, third.units_skipped), (4, 0));
    let expected = first_lines
        .lines()
        .filter(|l| {
            let question = serde_json::from_str::<serde_json::Value>(l).unwrap()["question"]
                .as_str()
                .unwrap()
                .to_string();
            case_questions.contains(&question)
        })
        .count();
    assert!(expected > 0 && expected < cases as usize);
    assert_eq!(third.summary.relations[0].cases as usize, expected);

    // Nothing changed: nothing is redone.
    let fourth = run();
    assert_eq!((fourth.units_run, fourth.units_skipped), (0, 4));
    // A stage's table changed: redone.
    edit_config(&cfg, "timeout_secs = 60", "timeout_secs = 61");
    let fifth = run();
    assert_eq!((fifth.units_run, fifth.units_skipped), (4, 0));
}

#[test]
fn a_dataset_whose_task_no_model_answers_is_skipped_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let sentiment = root().join("data/samples/sentiment.tsv");
    let cfg = config(
        dir.path(),
        &[
            ("boolq", &boolq_sample(), "boolq"),
            ("sst", &sentiment, "sentiment-tsv"),
        ],
        &["keyword"],
        1,
    );
    // First every task is answered: both datasets run.
    let both = run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    assert_eq!((both.units_run, both.summary.verdict_files), (2, 2));
    assert!(both.datasets_unanswered.is_empty());
    // The model answers BoolQ only now: the sentiment dataset is skipped before anything is
    // cleared or run, and the report leaves its old folder out.
    edit_config(
        &cfg,
        "batch_size = 4\n",
        "batch_size = 4\ntasks = [\"boolq\"]\n",
    );
    let report = run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    assert_eq!(report.datasets_unanswered, ["sst"]);
    assert_eq!(report.units_run, 1);
    assert_eq!(report.summary.verdict_files, 1);
    assert_eq!(report.summary.relations[0].mr, "MR1-3");
    // A fresh output never gets the skipped dataset's files.
    let fresh = PipelineOptions {
        output: Some(dir.path().join("fresh")),
        ..PipelineOptions::default()
    };
    let report = run_pipeline(&cfg, &fresh).unwrap();
    assert_eq!(report.datasets_unanswered, ["sst"]);
    assert!(parquet_files(&dir.path().join("fresh/sst")).is_empty());
}

#[test]
fn overlapping_runs_into_one_output_share_the_units_and_agree() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[("boolq", &boolq_sample(), "boolq")],
        &["slow", "0.2"],
        2,
    );
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_metamorph"))
            .args(["run", "--quiet", "--config"])
            .arg(&cfg)
            .env("NO_COLOR", "1")
            .output()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        std::thread::sleep(Duration::from_millis(300));
        let b = s.spawn(spawn);
        (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
    });
    let mut run = 0;
    for out in [&a, &b] {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = stdout
            .lines()
            .find(|l| l.contains("unit(s) run"))
            .unwrap_or_else(|| panic!("no summary line in {stdout}"));
        let units: usize = line
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        run += units;
    }
    assert_eq!(run, 2, "each unit is run by one of the two processes");
    // Both report the same summary: the whole run, whichever finished last.
    let report = run_pipeline(&cfg, &PipelineOptions::default()).unwrap();
    assert_eq!((report.units_run, report.units_skipped), (0, 2));
    let verdicts: Vec<Verdict> = read(&dir.path().join("out/boolq/verdict/*.parquet"));
    assert_eq!(verdicts.len() as u64, report.summary.relations[0].cases);
}

/// Cases of relation `mr` the validity step set aside (they get no verdict).
fn rejected(summary: &metamorph_judge::Summary, mr: &str) -> u64 {
    summary
        .validity
        .iter()
        .find(|v| v.mr == mr)
        .map_or(0, |v| v.rejected)
}
