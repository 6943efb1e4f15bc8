//! Loading candle checkpoints: the errors name the source and the file at fault.

use std::path::Path;

use metamorph_data::assets::ModelSource;
use metamorph_data::ConfigFile;
use metamorph_execute::candle::Checkpoint;
use metamorph_execute::{ExecuteConfig, ExecuteStage};

/// Starts the models of an `[execute]` table, with relative paths taken from `base`.
fn start(table: &str, base: &Path) -> Result<(), String> {
    let config = ConfigFile::parse(table, "test config").unwrap();
    let execute: ExecuteConfig = config.section("execute").unwrap();
    ExecuteStage::from_config(&execute, base, true)
        .map(drop)
        .map_err(|e| e.to_string())
}

fn table(model: &str) -> String {
    format!(
        "[[execute.models]]\nname = \"m\"\nkind = \"sentence-similarity\"\nmodel = \"{model}\"\n"
    )
}

/// A directory with the given files, each holding `content`.
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    dir
}

#[test]
fn a_missing_model_directory_is_named() {
    let base = tempfile::tempdir().unwrap();
    let message = start(&table("./no-such-model"), base.path()).unwrap_err();
    assert!(
        message.contains("no-such-model") && message.contains("no such directory"),
        "{message}"
    );
}

#[test]
fn an_unsupported_architecture_names_config_json() {
    let dir = dir_with(&[
        (
            "config.json",
            r#"{"architectures": ["ElectraModel"], "model_type": "electra"}"#,
        ),
        ("tokenizer.json", "{}"),
        ("model.safetensors", ""),
    ]);
    let message = Checkpoint::try_resolve(
        &ModelSource::Local(dir.path().to_path_buf()),
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(message.contains(&dir.path().join("config.json").display().to_string()));
    assert!(
        message.contains("unsupported architecture") && message.contains("ElectraModel"),
        "{message}"
    );
}

#[test]
fn a_missing_tokenizer_or_weights_is_named() {
    let dir = dir_with(&[
        ("config.json", r#"{"model_type": "bert"}"#),
        ("model.safetensors", ""),
    ]);
    let message = start(&table(&dir.path().display().to_string()), Path::new(".")).unwrap_err();
    assert!(message.contains("no tokenizer.json"), "{message}");

    let dir = dir_with(&[
        ("config.json", r#"{"model_type": "bert"}"#),
        ("tokenizer.json", "{}"),
    ]);
    let message = start(&table(&dir.path().display().to_string()), Path::new(".")).unwrap_err();
    assert!(message.contains("no model.safetensors"), "{message}");
}

#[test]
fn a_broken_tokenizer_is_named() {
    // The real checkpoint's config and weights with a tokenizer.json that is not one.
    let asset = metamorph_data::assets::ensure("all-MiniLM-L6-v2").unwrap();
    let dir = dir_with(&[("tokenizer.json", "{\"not\": \"a tokenizer\"}")]);
    for file in ["config.json", "model.safetensors"] {
        std::os::unix::fs::symlink(asset.join(file), dir.path().join(file)).unwrap();
    }
    let message = start(&table(&dir.path().display().to_string()), Path::new(".")).unwrap_err();
    assert!(
        message.contains("tokenizer.json") && message.contains("cannot load the tokenizer"),
        "{message}"
    );
}

#[test]
fn sharded_weights_load_through_their_index() {
    // The single-file checkpoint presented as one shard behind an index.
    let asset = metamorph_data::assets::ensure("all-MiniLM-L6-v2").unwrap();
    let dir = dir_with(&[(
        "model.safetensors.index.json",
        r#"{"metadata": {}, "weight_map": {"embeddings.word_embeddings.weight": "model-00001-of-00001.safetensors"}}"#,
    )]);
    for (from, to) in [
        ("config.json", "config.json"),
        ("tokenizer.json", "tokenizer.json"),
        ("model.safetensors", "model-00001-of-00001.safetensors"),
    ] {
        std::os::unix::fs::symlink(asset.join(from), dir.path().join(to)).unwrap();
    }
    let checkpoint = Checkpoint::try_resolve(
        &ModelSource::Local(dir.path().to_path_buf()),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(
        checkpoint.weights,
        [dir.path().join("model-00001-of-00001.safetensors")]
    );
    assert!(start(&table(&dir.path().display().to_string()), Path::new(".")).is_ok());
}

#[test]
fn a_relative_directory_is_taken_from_the_config_folder() {
    // `models/mini` also reads as a hub repo id; the directory beside the config wins.
    let asset = metamorph_data::assets::ensure("all-MiniLM-L6-v2").unwrap();
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("models/mini");
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::os::unix::fs::symlink(asset.join(file), dir.join(file)).unwrap();
    }
    start(&table("models/mini"), base.path()).unwrap();
}

#[test]
fn config_mistakes_are_config_errors() {
    let no_model = "[[execute.models]]\nname = \"m\"\nkind = \"sentence-similarity\"\n";
    assert!(start(no_model, Path::new("."))
        .unwrap_err()
        .contains("needs `model`"));
    let wrong_task = format!("{}tasks = [\"boolq\"]\n", table("asset:all-MiniLM-L6-v2"));
    assert!(start(&wrong_task, Path::new("."))
        .unwrap_err()
        .contains("only paraphrase"));
    let gpu = format!("{}device = \"cuda:0\"\n", table("asset:all-MiniLM-L6-v2"));
    if !cfg!(feature = "cuda") {
        assert!(start(&gpu, Path::new("."))
            .unwrap_err()
            .contains("--features cuda"));
    }
}
