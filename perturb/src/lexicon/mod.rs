//! Lexical resources the relations use.

pub mod entity_pool;
pub mod first_names;
pub mod frames;
pub mod gender;
pub mod geography;
pub mod in_context;
pub mod inflect;
pub mod wordnet;

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
