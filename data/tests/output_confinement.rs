//! Nothing outside an output folder is deleted or written: manifests whose entries point
//! elsewhere, and symbolic links planted inside the output, are refused with an error naming
//! them (the second hostile probe's defects 1 and 2).

use std::path::Path;

use arrow::array::RecordBatch;
use metamorph_data::{
    claim_shard, to_batch, Claim, Error, Example, Fingerprint, RecordKind, ShardSpec, Task,
};

fn one_example() -> RecordBatch {
    to_batch(&[Example::new("e1", Task::BoolQ)]).unwrap()
}

/// Writes a complete shard 0/1 of `stage` into `output` with settings `setting`.
fn complete_shard(output: &Path, stage: &str, setting: &str) {
    let fingerprint = Fingerprint::new(1).with_setting("s", setting);
    let Claim::Write(claim) =
        claim_shard(output, stage, ShardSpec::WHOLE, fingerprint, false).unwrap()
    else {
        panic!("expected to write")
    };
    let outputs = claim.outputs(&[RecordKind::Example]).unwrap();
    outputs.write(RecordKind::Example, &one_example()).unwrap();
    outputs.commit().unwrap();
}

fn manifest_path(output: &Path, stage: &str) -> std::path::PathBuf {
    output
        .join("_manifests")
        .join(ShardSpec::WHOLE.manifest_name(stage))
}

#[test]
fn a_manifest_naming_files_elsewhere_deletes_nothing_and_names_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let victim_dir = dir.path().join("victim");
    std::fs::create_dir_all(&victim_dir).unwrap();
    let victim = victim_dir.join("secret.parquet");
    std::fs::write(&victim, b"precious").unwrap();
    for entry in [
        victim.display().to_string(),
        "../victim/secret.parquet".to_string(),
        "example/../../victim/secret.parquet".to_string(),
    ] {
        complete_shard(&output, "read", "a");
        let path = manifest_path(&output, "read");
        let mut manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        manifest["files"][0]["path"] = entry.clone().into();
        std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
        // --force, and a changed setting: both used to delete what the manifest listed.
        for (setting, force) in [("a", true), ("b", false)] {
            let fingerprint = Fingerprint::new(1).with_setting("s", setting);
            let e = claim_shard(&output, "read", ShardSpec::WHOLE, fingerprint, force).unwrap_err();
            let message = e.to_string();
            assert!(matches!(e, Error::Config(_)), "{message}");
            assert!(
                message.contains(&path.display().to_string()) && message.contains(&entry),
                "{message}"
            );
            assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        }
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn a_manifest_of_another_shard_count_naming_files_elsewhere_is_refused_too() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let victim = dir.path().join("victim.parquet");
    std::fs::write(&victim, b"precious").unwrap();
    complete_shard(&output, "read", "a");
    let path = manifest_path(&output, "read");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    manifest["files"][0]["path"] = victim.display().to_string().into();
    std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let shard = ShardSpec::new(0, 2).unwrap();
    let e = claim_shard(&output, "read", shard, Fingerprint::new(2), false).unwrap_err();
    assert!(e.to_string().contains("deletes nothing outside"), "{e}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
}

#[test]
fn a_symlinked_kind_folder_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&output).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, output.join("example")).unwrap();
    let Claim::Write(claim) = claim_shard(
        &output,
        "read",
        ShardSpec::WHOLE,
        Fingerprint::new(1),
        false,
    )
    .unwrap() else {
        panic!("expected to write")
    };
    let e = claim.outputs(&[RecordKind::Example]).err().unwrap();
    let message = e.to_string();
    assert!(
        message.contains("symbolic link")
            && message.contains(&output.join("example").display().to_string()),
        "{message}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_symlinked_manifest_folder_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&output).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, output.join("_manifests")).unwrap();
    let e = claim_shard(
        &output,
        "read",
        ShardSpec::WHOLE,
        Fingerprint::new(1),
        false,
    )
    .unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_shard_count_change_leaves_no_stale_locks() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    complete_shard(&output, "read", "a");
    let locks = |output: &Path| -> Vec<String> {
        std::fs::read_dir(output.join("_manifests"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".lock"))
            .collect()
    };
    assert_eq!(locks(&output).len(), 1);
    let shard = ShardSpec::new(0, 2).unwrap();
    let Claim::Write(claim) =
        claim_shard(&output, "read", shard, Fingerprint::new(2), false).unwrap()
    else {
        panic!("expected to write")
    };
    drop(claim);
    // The 1-shard run's lock is gone; the stage's one turn-taking lock stays (it does not pile
    // up: one per stage).
    let left = locks(&output);
    assert!(
        left.iter()
            .all(|n| n.contains("-of-00002") || n.starts_with("read.shard-count.")),
        "{left:?}"
    );
}
