//! Inputs are read only from regular files: a device (`/dev/zero`, `/dev/urandom`), a FIFO or a
//! directory named as a dataset or a config is refused before a byte is read, so a wrong path
//! cannot make a run read forever (a symbolic link to a regular file is fine).

use std::path::Path;

use crate::{Error, Result};

/// The size of the regular file at `path` (symbolic links followed).
///
/// # Errors
/// [`Error::Io`] when it cannot be read; [`Error::Config`] naming the path when it is not a
/// regular file.
pub fn regular_file(path: &Path) -> Result<u64> {
    let metadata = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !metadata.is_file() {
        let what = if metadata.is_dir() {
            "a directory"
        } else {
            "not a regular file (a device, FIFO or socket)"
        };
        return Err(Error::Config(format!(
            "{}: {what}; metamorph reads datasets and configs only from regular files",
            path.display()
        )));
    }
    Ok(metadata.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_directories_are_refused_naming_the_path() {
        let e = regular_file(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/dev/zero") && e.contains("not a regular file"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = regular_file(dir.path()).unwrap_err().to_string();
        assert!(e.contains("a directory"), "{e}");
        let file = dir.path().join("f");
        std::fs::write(&file, b"abc").unwrap();
        assert_eq!(regular_file(&file).unwrap(), 3);
    }
}
