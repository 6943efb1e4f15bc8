//! The two hash functions a spaCy pipeline's weights are keyed by.
//!
//! * [`hash_string`]: spaCy's string hash (`spacy.strings.hash_string`), MurmurHash64A of the UTF-8
//!   bytes with seed 1. Every string attribute (ORTH, NORM, PREFIX, SHAPE, …) and every lookup
//!   table key in a pipeline directory is such a hash.
//! * [`hash_embed_keys`]: thinc's `NumpyOps.hash`, the MurmurHash3 x64-128 of one 64-bit key
//!   split into four 32-bit words; `HashEmbed` selects its four embedding rows with them.

/// spaCy's 64-bit hash of a string: MurmurHash64A over its UTF-8 bytes, seed 1.
pub fn hash_string(s: &str) -> u64 {
    murmur_hash64a(s.as_bytes(), 1)
}

/// spaCy's string id (`spacy.strings.get_string_id`): 0 for the empty string, the fixed id of
/// one of spaCy's built-in symbols (attribute names, POS tags, dependency labels, and a few words
/// such as `number`), else [`hash_string`]. Hashed features and lookup tables are keyed by it.
pub fn string_id(s: &str) -> u64 {
    match super::symbols::SYMBOLS.binary_search_by(|(name, _)| (*name).cmp(s)) {
        Ok(i) => super::symbols::SYMBOLS[i].1,
        Err(_) => hash_string(s),
    }
}

/// MurmurHash64A (Austin Appleby's 64-bit hash for 64-bit platforms), as `murmurhash.hash64`.
pub fn murmur_hash64a(key: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ (key.len() as u64).wrapping_mul(M);
    let mut chunks = key.chunks_exact(8);
    for chunk in &mut chunks {
        let mut k = u64::from_le_bytes(chunk.try_into().expect("chunk of 8 bytes"));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &byte) in tail.iter().enumerate() {
            h ^= u64::from(byte) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// thinc's `MurmurHash3_x86_128_uint64`: four 32-bit keys for one 64-bit id (despite the name,
/// the x64 variant of MurmurHash3-128 specialised to an 8-byte input).
pub fn hash_embed_keys(id: u64, seed: u32) -> [u32; 4] {
    let seed = u64::from(seed);
    let mut h1 = id.wrapping_mul(0x87c3_7b91_1142_53d5);
    h1 = h1.rotate_left(31);
    h1 = h1.wrapping_mul(0x4cf5_ad43_2745_937f);
    h1 ^= seed;
    h1 ^= 8;
    let mut h2 = seed ^ 8;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    [h1 as u32, (h1 >> 32) as u32, h2 as u32, (h2 >> 32) as u32]
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hashes_match_spacy() {
        // Values printed by `spacy.strings.hash_string` (spaCy 3.8.7).
        for (text, expected) in GOLDEN_STRING_HASHES {
            assert_eq!(hash_string(text), *expected, "{text:?}");
        }
    }

    #[test]
    fn symbols_take_their_fixed_ids() {
        assert_eq!(string_id(""), 0);
        assert_eq!(string_id("number"), 432);
        assert_eq!(string_id("IS_ALPHA"), 1);
        assert_eq!(string_id("apple"), hash_string("apple"));
    }

    #[test]
    fn embed_keys_match_thinc() {
        // Values printed by `NumpyOps().hash(numpy.array([id], dtype="uint64"), seed)`.
        for (id, seed, expected) in GOLDEN_EMBED_KEYS {
            assert_eq!(hash_embed_keys(*id, *seed), *expected, "{id} seed {seed}");
        }
    }

    include!("hash_golden.rs");
}
