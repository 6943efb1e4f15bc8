//! What a shard's output was made from, so that resuming never passes off old results as new.
//!
//! A [`Fingerprint`] records the tool version, the shard count, the SHA-256 of every input
//! file's contents and a hash of each setting that shapes the output (a config table, a
//! command-line override). A completed shard's manifest carries the fingerprint it was made
//! with; a re-run compares it with its own and redoes the shard when anything differs, logging
//! what changed (see [`Fingerprint::changes_from`]). Inputs are hashed by content, not by
//! modification time, so copying an output tree to another machine does not force a redo,
//! while editing a dataset in place does.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::assets::sha256_file;
use crate::Result;

/// The inputs, settings and tool a shard's output was made from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The metamorph version that wrote the shard.
    pub tool: String,
    /// How many shards the run split its rows into.
    pub shards: usize,
    /// Input file (as named on the command line or in the config) → SHA-256 of its contents.
    pub inputs: BTreeMap<String, String>,
    /// Setting (`[perturb]`, `--model`, …) → SHA-256 of its text.
    pub settings: BTreeMap<String, String>,
}

impl Fingerprint {
    /// A fingerprint for a run of `shards` shards by this build, with no inputs or settings yet.
    pub fn new(shards: usize) -> Self {
        Fingerprint {
            tool: env!("CARGO_PKG_VERSION").to_string(),
            shards,
            ..Fingerprint::default()
        }
    }

    /// Adds an input file, hashed by content.
    ///
    /// # Errors
    /// [`crate::Error::Io`] naming the file if it cannot be read.
    pub fn with_input(mut self, path: &Path) -> Result<Self> {
        self.inputs
            .insert(path.display().to_string(), sha256_file(path)?);
        Ok(self)
    }

    /// Adds a setting under `name`, hashed from its text (e.g. a config table serialised as
    /// TOML, or a flag's value).
    pub fn with_setting(mut self, name: &str, text: &str) -> Self {
        self.settings
            .insert(name.to_string(), to_hex(&Sha256::digest(text.as_bytes())));
        self
    }

    /// What differs between `self` and the fingerprint `old` of an earlier run, one short
    /// phrase each (`input data/boolq.jsonl changed`, `[perturb] changed`, …); empty when they
    /// are equal.
    pub fn changes_from(&self, old: &Fingerprint) -> Vec<String> {
        let mut changes = Vec::new();
        if self.tool != old.tool {
            changes.push(format!("metamorph {} → {}", old.tool, self.tool));
        }
        if self.shards != old.shards {
            changes.push(format!("{} → {} shards", old.shards, self.shards));
        }
        changes.extend(map_changes("input", &old.inputs, &self.inputs));
        changes.extend(map_changes("setting", &old.settings, &self.settings));
        changes
    }
}

/// The entries of `new` that are missing from, added to or changed in `old`, as phrases.
fn map_changes(
    what: &str,
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut changes = Vec::new();
    for (name, hash) in new {
        match old.get(name) {
            None => changes.push(format!("{what} {name} added")),
            Some(old_hash) if old_hash != hash => changes.push(format!("{what} {name} changed")),
            Some(_) => {}
        }
    }
    for name in old.keys().filter(|name| !new.contains_key(*name)) {
        changes.push(format!("{what} {name} removed"));
    }
    changes
}

/// `bytes` as lower-case hexadecimal (how every SHA-256 in metamorph is written).
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_fingerprints_have_no_changes_and_each_difference_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("d.jsonl");
        std::fs::write(&data, "a\n").unwrap();
        let make = || {
            Fingerprint::new(2)
                .with_input(&data)
                .unwrap()
                .with_setting("[perturb]", "relations = [\"MR1-3\"]")
        };
        let old = make();
        assert!(make().changes_from(&old).is_empty());

        std::fs::write(&data, "b\n").unwrap();
        let mut new = make().with_setting("[perturb]", "relations = [\"all\"]");
        new.shards = 4;
        new.tool = "9.9.9".into();
        let changes = new.changes_from(&old);
        assert_eq!(
            changes,
            [
                format!("metamorph {} → 9.9.9", env!("CARGO_PKG_VERSION")),
                "2 → 4 shards".to_string(),
                format!("input {} changed", data.display()),
                "setting [perturb] changed".to_string(),
            ]
        );
        let other = Fingerprint::new(2).with_setting("--model", "x");
        assert_eq!(
            other.changes_from(&old),
            [
                format!("input {} removed", data.display()),
                "setting --model added".to_string(),
                "setting [perturb] removed".to_string(),
            ]
        );
    }
}
