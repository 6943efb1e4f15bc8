//! Lexical resources the relations use.

pub mod entity_pool;
pub mod first_names;
pub mod frames;
pub mod gender;
pub mod geography;
pub mod in_context;
pub mod inflect;
pub mod lm_choice;
pub mod place_senses;
pub mod wordnet;

/// The value in `cell`, loaded by `load` on first call; `lock` keeps two threads from loading
/// it at once, and a failed load is retried on the next call.
pub(crate) fn load_once<T>(
    cell: &'static std::sync::OnceLock<T>,
    lock: &'static std::sync::Mutex<()>,
    load: impl FnOnce() -> metamorph_data::Result<T>,
) -> metamorph_data::Result<&'static T> {
    if let Some(value) = cell.get() {
        return Ok(value);
    }
    let _guard = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(value) = cell.get() {
        return Ok(value);
    }
    let loaded = load()?;
    Ok(cell.get_or_init(|| loaded))
}

/// Reads a JSON file into `T`; a parse error names the file, line and column.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(
    path: &std::path::Path,
) -> metamorph_data::Result<T> {
    let bytes = std::fs::read(path).map_err(|e| metamorph_data::Error::io(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        metamorph_data::Error::malformed(
            path,
            format!("line {} column {}", e.line(), e.column()),
            "-",
            e.to_string(),
        )
    })
}
