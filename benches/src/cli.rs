//! What the side-by-side binaries (`encoder-vs-torch`, `generate-vs-torch`) share: reading
//! comma-separated size lists and taking the median of timed runs.

/// `"1,8,32"` → `[1, 8, 32]`.
///
/// # Errors
/// A message naming the entry that is not a number.
pub fn list(value: &str) -> Result<Vec<usize>, String> {
    value
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|e| format!("`{s}`: {e}")))
        .collect()
}

/// The median of `times` (the mean of the middle two for an even count).
pub fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_medians() {
        assert_eq!(list("1,8,,32").unwrap(), [1, 8, 32]);
        assert!(list("1,x").unwrap_err().contains("`x`"));
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
