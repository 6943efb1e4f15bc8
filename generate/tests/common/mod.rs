//! Helpers shared by the binary tests: case shards in and out, log text.

use std::path::Path;

use metamorph_data::{
    from_batch, read_shard, to_batch, Case, ParquetShardWriter, RecordKind, ShardSpec,
};

/// Writes `cases` as the one input shard `<dir>/in/case/…`.
pub fn write_cases(dir: &Path, cases: &[Case]) {
    let path = dir.join("in/case/part-00001-of-00001.parquet");
    let mut w = ParquetShardWriter::try_new(&path, RecordKind::Case).unwrap();
    w.write(&to_batch(cases).unwrap()).unwrap();
    w.commit().unwrap();
}

/// The cases the binary wrote under `<dir>/out/case`, by id.
pub fn read_cases(dir: &Path) -> Vec<Case> {
    let mut out: Vec<Case> = std::fs::read_dir(dir.join("out/case"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .flat_map(|p| {
            read_shard(&p, ShardSpec::WHOLE, 64)
                .unwrap()
                .flat_map(|b| from_batch::<Case>(&b.unwrap(), "test").unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort_by(|a, b| a.case_id.cmp(&b.case_id));
    out
}

/// Log text without terminal colour codes.
pub fn plain_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    let mut rest = text.as_ref();
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = rest.find('m').map_or("", |m| &rest[m + 1..]);
    }
    out.push_str(rest);
    out
}
