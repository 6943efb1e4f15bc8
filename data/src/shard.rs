//! Shards: which part of the rows a stage process handles (`--shard i/n`), and where its output
//! goes.
//!
//! Rows are assigned by a stable 64-bit FNV-1a hash of their shard key (the example id, or a
//! case's first source id), not by file or position. That keeps every case of a source in the
//! same shard as the source itself, and gives the same assignment whatever the input file layout.

use std::fmt;
use std::str::FromStr;

use crate::record::RecordKind;

/// One shard out of `count`, written `i/n` on the command line with `1 <= i <= n`.
///
/// ```
/// use metamorph_data::ShardSpec;
///
/// let shard: ShardSpec = "2/4".parse().unwrap();
/// assert_eq!((shard.index(), shard.count()), (1, 4));
/// assert_eq!(shard.file_name(), "part-00002-of-00004.parquet");
/// // Every key belongs to exactly one of the four shards.
/// let owners = (0..4).filter(|&i| ShardSpec::new(i, 4).unwrap().contains("boolq-17")).count();
/// assert_eq!(owners, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShardSpec {
    index: usize,
    count: usize,
}

impl ShardSpec {
    /// The whole input as a single shard.
    pub const WHOLE: ShardSpec = ShardSpec { index: 0, count: 1 };

    /// Shard `index` (0-based) of `count`; `None` unless `index < count`.
    pub fn new(index: usize, count: usize) -> Option<Self> {
        (index < count).then_some(ShardSpec { index, count })
    }

    /// 0-based index.
    pub fn index(self) -> usize {
        self.index
    }

    /// Number of shards.
    pub fn count(self) -> usize {
        self.count
    }

    /// True when a row with shard key `key` belongs to this shard.
    pub fn contains(self, key: &str) -> bool {
        self.count == 1 || (fnv1a(key.as_bytes()) % self.count as u64) as usize == self.index
    }

    /// The output file name of this shard for records of `kind`:
    /// `part-00001-of-00004.parquet`.
    pub fn file_name(self) -> String {
        format!("part-{:05}-of-{:05}.parquet", self.index + 1, self.count)
    }

    /// The name of the manifest that marks this shard of `stage` complete.
    pub fn manifest_name(self, stage: &str) -> String {
        format!("{}.json", self.manifest_stem(stage))
    }

    /// `<stage>.part-00001-of-00004`: the stem of this shard's manifest and lock file names.
    pub fn manifest_stem(self, stage: &str) -> String {
        format!("{stage}.part-{:05}-of-{:05}", self.index + 1, self.count)
    }

    /// The shard a file name of [`ShardSpec::file_name`]'s form, or a manifest name, belongs
    /// to: `part-00002-of-00004.parquet` → 2/4; `None` for other names.
    pub fn of_file_name(name: &str) -> Option<ShardSpec> {
        let start = name.find("part-")?;
        let rest = &name[start + "part-".len()..];
        let (index, rest) = rest.split_once("-of-")?;
        let count: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let (index, count): (usize, usize) = (index.parse().ok()?, count.parse().ok()?);
        ShardSpec::new(index.checked_sub(1)?, count)
    }

    /// The folder of `kind` records under an output directory.
    pub fn kind_dir(output: &std::path::Path, kind: RecordKind) -> std::path::PathBuf {
        output.join(kind.as_str())
    }
}

impl Default for ShardSpec {
    fn default() -> Self {
        ShardSpec::WHOLE
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

impl FromStr for ShardSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid shard `{s}`: expected i/n with 1 <= i <= n, e.g. 1/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: usize = i.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if i == 0 || n == 0 {
            return Err(bad());
        }
        ShardSpec::new(i - 1, n).ok_or_else(bad)
    }
}

/// 64-bit FNV-1a: tiny, stable across platforms and releases (unlike `DefaultHasher`).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_one_based_specs() {
        let s: ShardSpec = "2/4".parse().unwrap();
        assert_eq!((s.index(), s.count()), (1, 4));
        assert_eq!(s.to_string(), "2/4");
        for bad in ["0/4", "5/4", "1", "a/b", "1/0", ""] {
            assert!(
                bad.parse::<ShardSpec>().is_err(),
                "{bad} should be rejected"
            );
        }
    }

    #[test]
    fn file_names_give_back_their_shard() {
        let shard = ShardSpec::new(2, 7).unwrap();
        assert_eq!(ShardSpec::of_file_name(&shard.file_name()), Some(shard));
        assert_eq!(
            ShardSpec::of_file_name(&shard.manifest_name("judge")),
            Some(shard)
        );
        for other in [
            "x.parquet",
            "part-00000-of-00002.parquet",
            "part-3-of-2",
            "part-a-of-2",
        ] {
            assert_eq!(ShardSpec::of_file_name(other), None, "{other}");
        }
    }

    #[test]
    fn every_key_lands_in_exactly_one_shard() {
        let shards: Vec<ShardSpec> = (0..3).map(|i| ShardSpec::new(i, 3).unwrap()).collect();
        let mut sizes = [0usize; 3];
        for k in 0..3000 {
            let key = format!("example-{k}");
            let owners: Vec<usize> = shards
                .iter()
                .filter(|s| s.contains(&key))
                .map(|s| s.index())
                .collect();
            assert_eq!(owners.len(), 1);
            sizes[owners[0]] += 1;
        }
        assert!(
            sizes.iter().all(|&n| n > 800),
            "unbalanced shards: {sizes:?}"
        );
    }

    #[test]
    fn fnv_matches_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
    }
}
