//! Throughput batching shared by the candle task models.
//!
//! A `predict` call turns each example into one or more rows (a classification input is one row;
//! a long QA context is several windows), and [`Batcher::run`] feeds the rows to the model:
//!
//! * **Tokenization overlaps the forward pass**: a scoped worker thread encodes the examples in
//!   chunks of [`BatchOptions::with_chunk`] and hands each finished chunk over a bounded channel,
//!   so chunk *k + 1* is tokenized while the model runs chunk *k*. A failure on either side stops
//!   the other (the channel closes) and the first error is returned.
//! * **Length buckets packed to a token budget** ([`pack`]): within a chunk the rows are sorted
//!   by length and cut into consecutive batches whose padded size (rows × widest row) stays
//!   within `max_tokens`, with at most `max_rows` rows; a row longer than the budget alone makes
//!   its own batch. Among those cuts the packer takes the one with the fewest padded tokens
//!   plus a fixed cost per forward pass ([`BatchOptions::with_batch_cost`]), so a bucket is
//!   split where lengths jump and kept whole where they are close. (Filling every batch up to
//!   the budget instead wasted 42% of the computed tokens on the 200 MiniLM test sentences;
//!   the cost-based cut, 7%.) Short rows travel in many-row batches, long ones in few-row
//!   ones.
//! * **Padding waste is measured**: every call logs (tracing, info) its rows, batches, real and
//!   padded tokens and the waste `1 − real / padded`, and the totals accumulate in
//!   [`PaddingStats`], which the models expose.
//!
//! Identical examples are already run once by the execute stage; windows of one QA example are
//! distinct rows and are not deduplicated.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use metamorph_data::{Error, Result};

/// One model input row: token ids and token type ids (attention mask 1 on every token).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Token ids, special tokens included.
    pub ids: Vec<u32>,
    /// Token type (segment) ids, as long as `ids`.
    pub type_ids: Vec<u32>,
}

/// A padded batch of rows, row-major `[rows, width]`.
#[derive(Debug)]
pub struct Batch {
    /// Token ids, padded with the model's pad id.
    pub ids: Vec<u32>,
    /// Token type ids, padded with 0.
    pub type_ids: Vec<u32>,
    /// Attention mask: 1 on real tokens, 0 on padding.
    pub mask: Vec<u32>,
    /// The real length of every row.
    pub lengths: Vec<usize>,
    /// Padded width.
    pub width: usize,
}

impl Batch {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.lengths.len()
    }
}

/// How rows are packed into batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchOptions {
    max_tokens: usize,
    max_rows: usize,
    batch_cost: usize,
    chunk: usize,
}

impl Default for BatchOptions {
    /// 8192 padded tokens (e.g. 64 rows of 128 or 21 windows of 384), 64 rows, a forward pass
    /// worth 128 tokens, chunks of 256 examples.
    fn default() -> Self {
        BatchOptions {
            max_tokens: 8192,
            max_rows: 64,
            batch_cost: 128,
            chunk: 256,
        }
    }
}

impl BatchOptions {
    /// Padded tokens (rows × width) per batch (default 8192; 0 is taken as 1).
    pub fn with_max_tokens(mut self, max_tokens: usize) -> Self {
        self.max_tokens = max_tokens.max(1);
        self
    }

    /// Rows per batch at most (default 64; 0 is taken as 1).
    pub fn with_max_rows(mut self, max_rows: usize) -> Self {
        self.max_rows = max_rows.max(1);
        self
    }

    /// What one more forward pass costs, in tokens (default 128): the packer splits a bucket
    /// only where that saves more padding than this. Raise it where each pass has a large
    /// fixed cost (GPUs), lower it on CPUs.
    pub fn with_batch_cost(mut self, tokens: usize) -> Self {
        self.batch_cost = tokens;
        self
    }

    /// Examples tokenized per chunk (default 256; 0 is taken as 1): rows are sorted into length
    /// buckets within a chunk, and the next chunk is tokenized while this one runs.
    pub fn with_chunk(mut self, chunk: usize) -> Self {
        self.chunk = chunk.max(1);
        self
    }

    /// Padded tokens per batch.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Rows per batch.
    pub fn max_rows(&self) -> usize {
        self.max_rows
    }
}

/// Packs rows of the given `lengths` into batches: indices into `lengths`, sorted by length
/// (ties in input order) and cut into consecutive runs so that `rows × longest ≤ max_tokens`
/// and `rows ≤ max_rows` (a row longer than `max_tokens` is a batch of its own), choosing the
/// cuts that minimise the padded tokens plus `batch_cost` tokens per batch (dynamic
/// programming over the sorted rows, O(rows × max_rows)).
pub fn pack(
    lengths: &[usize],
    max_tokens: usize,
    max_rows: usize,
    batch_cost: usize,
) -> Vec<Vec<usize>> {
    let max_rows = max_rows.max(1);
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| lengths[i]);
    let sorted: Vec<usize> = order.iter().map(|&i| lengths[i]).collect();
    // best[i]: the cheapest packing of the first i sorted rows; take[i]: its last batch's size.
    let n = sorted.len();
    let mut best = vec![usize::MAX; n + 1];
    let mut take = vec![0usize; n + 1];
    best[0] = 0;
    for i in 1..=n {
        // The batch ending at row i - 1 is as wide as that row.
        let width = sorted[i - 1];
        for rows in 1..=max_rows.min(i) {
            if rows > 1 && rows * width > max_tokens {
                break;
            }
            let cost = best[i - rows]
                .saturating_add(rows * width)
                .saturating_add(batch_cost);
            // Ties go to the larger batch (fewer forward passes).
            if cost <= best[i] {
                best[i] = cost;
                take[i] = rows;
            }
        }
    }
    let mut batches = Vec::new();
    let mut end = n;
    while end > 0 {
        let start = end - take[end];
        batches.push(order[start..end].to_vec());
        end = start;
    }
    batches.reverse();
    batches
}

/// Padding totals of a model since it was loaded.
#[derive(Debug, Default)]
pub struct PaddingStats {
    rows: AtomicU64,
    batches: AtomicU64,
    real_tokens: AtomicU64,
    padded_tokens: AtomicU64,
}

/// A snapshot of [`PaddingStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaddingReport {
    /// Rows run.
    pub rows: u64,
    /// Forward passes.
    pub batches: u64,
    /// Tokens of the rows themselves.
    pub real_tokens: u64,
    /// Tokens the model computed, padding included (Σ rows × width).
    pub padded_tokens: u64,
}

impl PaddingReport {
    /// The share of computed tokens that were padding, `1 − real / padded` (0 when nothing ran).
    pub fn waste(&self) -> f64 {
        if self.padded_tokens == 0 {
            0.0
        } else {
            1.0 - self.real_tokens as f64 / self.padded_tokens as f64
        }
    }
}

impl PaddingStats {
    /// The totals so far.
    pub fn report(&self) -> PaddingReport {
        PaddingReport {
            rows: self.rows.load(Ordering::Relaxed),
            batches: self.batches.load(Ordering::Relaxed),
            real_tokens: self.real_tokens.load(Ordering::Relaxed),
            padded_tokens: self.padded_tokens.load(Ordering::Relaxed),
        }
    }

    fn add(&self, report: &PaddingReport) {
        self.rows.fetch_add(report.rows, Ordering::Relaxed);
        self.batches.fetch_add(report.batches, Ordering::Relaxed);
        self.real_tokens
            .fetch_add(report.real_tokens, Ordering::Relaxed);
        self.padded_tokens
            .fetch_add(report.padded_tokens, Ordering::Relaxed);
    }
}

/// What one example became: its rows and whatever post-processing needs (`meta`).
pub struct Encoded<M> {
    /// The model input rows of the example.
    pub rows: Vec<Row>,
    /// Data the post-processing needs (offsets, windows, …).
    pub meta: M,
}

/// An example's `meta` with the model output of each of its rows, in row order.
pub struct Output<M> {
    /// The `meta` the encoder returned.
    pub meta: M,
    /// One output per row (what `forward` returned for it).
    pub rows: Vec<Vec<f32>>,
}

/// Runs examples through a model in packed batches, tokenizing on a worker thread.
#[derive(Debug)]
pub struct Batcher {
    name: String,
    options: BatchOptions,
    pad_id: u32,
    stats: PaddingStats,
}

impl Batcher {
    /// A batcher for the model `name` (used in logs) padding with `pad_id`.
    pub fn new(name: &str, options: BatchOptions, pad_id: u32) -> Self {
        Batcher {
            name: name.to_string(),
            options,
            pad_id,
            stats: PaddingStats::default(),
        }
    }

    /// The packing settings.
    pub fn options(&self) -> BatchOptions {
        self.options
    }

    /// Padding totals since the model was loaded.
    pub fn stats(&self) -> PaddingReport {
        self.stats.report()
    }

    /// Encodes every item with `encode` (on a worker thread), runs the rows in packed batches
    /// through `forward` (on the calling thread; it returns one output per batch row) and gives
    /// each item's `meta` back with its rows' outputs, in input order.
    ///
    /// # Errors
    /// The first error of `encode` or `forward`; [`Error::Model`] if `forward` returns the
    /// wrong number of outputs.
    pub fn run<X, M, E, F>(&self, items: &[X], encode: E, mut forward: F) -> Result<Vec<Output<M>>>
    where
        X: Sync,
        M: Send,
        E: Fn(&X) -> Result<Encoded<M>> + Sync,
        F: FnMut(&Batch) -> Result<Vec<Vec<f32>>>,
    {
        let started = Instant::now();
        let mut outputs: Vec<Output<M>> = Vec::with_capacity(items.len());
        let mut call = PaddingReport::default();
        std::thread::scope(|scope| -> Result<()> {
            let (sender, receiver) = crossbeam_channel::bounded::<Result<Vec<Encoded<M>>>>(1);
            let encode = &encode;
            let chunk = self.options.chunk;
            scope.spawn(move || {
                for part in items.chunks(chunk) {
                    let encoded = part.iter().map(encode).collect::<Result<Vec<_>>>();
                    let failed = encoded.is_err();
                    // A closed channel means the model side failed: stop tokenizing.
                    if sender.send(encoded).is_err() || failed {
                        return;
                    }
                }
            });
            for encoded in receiver {
                let encoded = encoded?;
                let report = self.run_chunk(encoded, &mut forward, &mut outputs)?;
                call.rows += report.rows;
                call.batches += report.batches;
                call.real_tokens += report.real_tokens;
                call.padded_tokens += report.padded_tokens;
            }
            Ok(())
        })?;
        self.stats.add(&call);
        tracing::debug!(
            model = %self.name,
            examples = items.len(),
            rows = call.rows,
            batches = call.batches,
            real_tokens = call.real_tokens,
            padded_tokens = call.padded_tokens,
            padding_waste = call.waste(),
            elapsed_ms = started.elapsed().as_secs_f64() * 1e3,
            "predicted"
        );
        Ok(outputs)
    }

    /// Packs and runs the rows of one chunk, appending one [`Output`] per example.
    fn run_chunk<M, F>(
        &self,
        encoded: Vec<Encoded<M>>,
        forward: &mut F,
        outputs: &mut Vec<Output<M>>,
    ) -> Result<PaddingReport>
    where
        F: FnMut(&Batch) -> Result<Vec<Vec<f32>>>,
    {
        // Flatten: row r belongs to example owner[r].
        let mut rows: Vec<Row> = Vec::new();
        let mut owner: Vec<usize> = Vec::new();
        let first = outputs.len();
        for (k, e) in encoded.into_iter().enumerate() {
            owner.extend(std::iter::repeat_n(first + k, e.rows.len()));
            rows.extend(e.rows);
            outputs.push(Output {
                meta: e.meta,
                rows: Vec::new(),
            });
        }
        let lengths: Vec<usize> = rows.iter().map(|r| r.ids.len()).collect();
        let mut results: Vec<Option<Vec<f32>>> = vec![None; rows.len()];
        let mut report = PaddingReport::default();
        for members in pack(
            &lengths,
            self.options.max_tokens,
            self.options.max_rows,
            self.options.batch_cost,
        ) {
            let width = members.iter().map(|&i| lengths[i]).max().unwrap_or(0);
            let mut batch = Batch {
                ids: Vec::with_capacity(members.len() * width),
                type_ids: Vec::with_capacity(members.len() * width),
                mask: Vec::with_capacity(members.len() * width),
                lengths: Vec::with_capacity(members.len()),
                width,
            };
            for &i in &members {
                let row = &rows[i];
                let pad = width - row.ids.len();
                batch.ids.extend_from_slice(&row.ids);
                batch.ids.extend(std::iter::repeat_n(self.pad_id, pad));
                batch.type_ids.extend_from_slice(&row.type_ids);
                batch.type_ids.extend(std::iter::repeat_n(0, pad));
                batch.mask.extend(std::iter::repeat_n(1, row.ids.len()));
                batch.mask.extend(std::iter::repeat_n(0, pad));
                batch.lengths.push(row.ids.len());
            }
            let out = forward(&batch)?;
            if out.len() != members.len() {
                return Err(Error::Model {
                    model: self.name.clone(),
                    message: format!(
                        "the forward pass returned {} outputs for {} rows",
                        out.len(),
                        members.len()
                    ),
                });
            }
            for (&i, o) in members.iter().zip(out) {
                results[i] = Some(o);
            }
            report.rows += members.len() as u64;
            report.batches += 1;
            report.real_tokens += batch.lengths.iter().sum::<usize>() as u64;
            report.padded_tokens += (members.len() * width) as u64;
        }
        // Rows were flattened in example order, so pushing in row order keeps each example's
        // rows in order.
        for (r, result) in results.into_iter().enumerate() {
            let output = result.expect("pack returns every row exactly once");
            outputs[owner[r]].rows.push(output);
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn packing_keeps_every_row_once_within_budget(
            lengths in proptest::collection::vec(1usize..600, 0..200),
            max_tokens in 1usize..5000,
            max_rows in 1usize..80,
            batch_cost in 0usize..1000,
        ) {
            let batches = pack(&lengths, max_tokens, max_rows, batch_cost);
            let mut seen: Vec<usize> = batches.iter().flatten().copied().collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
            let mut previous_widest = 0;
            for batch in &batches {
                prop_assert!(!batch.is_empty());
                prop_assert!(batch.len() <= max_rows);
                let widths: Vec<usize> = batch.iter().map(|&i| lengths[i]).collect();
                let widest = *widths.iter().max().unwrap();
                // Within budget unless a single over-long row.
                prop_assert!(batch.len() * widest <= max_tokens || batch.len() == 1);
                // Buckets: sorted within and across batches.
                prop_assert!(widths.windows(2).all(|w| w[0] <= w[1]));
                prop_assert!(widths[0] >= previous_widest);
                previous_widest = widest;
            }
        }

        #[test]
        fn packing_costs_no_more_than_filling_each_batch(
            lengths in proptest::collection::vec(1usize..600, 1..200),
            max_tokens in 1usize..5000,
            max_rows in 1usize..80,
            batch_cost in 0usize..1000,
        ) {
            // Greedy filling (sorted, a batch closed only when the next row breaks the budget or
            // the row cap) is one feasible packing; the packer's is at least as cheap.
            let cost = |batches: &[Vec<usize>]| -> usize {
                batches
                    .iter()
                    .map(|b| b.len() * b.iter().map(|&i| lengths[i]).max().unwrap() + batch_cost)
                    .sum()
            };
            let mut sorted: Vec<usize> = (0..lengths.len()).collect();
            sorted.sort_by_key(|&i| lengths[i]);
            let mut greedy: Vec<Vec<usize>> = Vec::new();
            for i in sorted {
                let fits = greedy.last().is_some_and(|b: &Vec<usize>| {
                    b.len() < max_rows && (b.len() + 1) * lengths[i] <= max_tokens
                });
                match greedy.last_mut() {
                    Some(b) if fits => b.push(i),
                    _ => greedy.push(vec![i]),
                }
            }
            prop_assert!(cost(&pack(&lengths, max_tokens, max_rows, batch_cost)) <= cost(&greedy));
        }
    }

    #[test]
    fn buckets_split_where_lengths_jump() {
        // Ten short rows and two long ones: one batch of each, not one padded batch.
        let mut lengths = vec![10; 10];
        lengths.extend([200, 210]);
        let batches = pack(&lengths, 8192, 64, 128);
        assert_eq!(batches.len(), 2);
        assert_eq!(batches[0].len(), 10);
        assert_eq!(batches[1], [10, 11]);
        // With a forward pass dearer than the padding, they share one batch.
        assert_eq!(pack(&lengths, 8192, 64, 5000).len(), 1);
        // Identical lengths: as few batches as the budget and the row cap allow.
        assert_eq!(pack(&[100; 100], 1000, 64, 0).len(), 10);
        assert_eq!(pack(&[10; 100], 1 << 20, 64, 0).len(), 2);
    }

    #[test]
    fn run_pads_batches_and_returns_rows_in_example_order() {
        let batcher = Batcher::new(
            "t",
            BatchOptions::default()
                .with_max_tokens(12)
                .with_max_rows(8)
                .with_chunk(2),
            9,
        );
        // Example k has k+1 rows of lengths 1..=k+1 holding the value 10k + j.
        let items: Vec<usize> = (0..5).collect();
        let outputs = batcher
            .run(
                &items,
                |&k| {
                    Ok(Encoded {
                        rows: (0..=k)
                            .map(|j| Row {
                                ids: vec![(10 * k + j) as u32; j + 1],
                                type_ids: vec![1; j + 1],
                            })
                            .collect(),
                        meta: k,
                    })
                },
                |batch| {
                    assert!(batch.rows() * batch.width <= 12 || batch.rows() == 1);
                    Ok((0..batch.rows())
                        .map(|r| {
                            let row = &batch.ids[r * batch.width..(r + 1) * batch.width];
                            let len = batch.lengths[r];
                            assert!(row[len..].iter().all(|&id| id == 9));
                            assert_eq!(
                                batch.mask[r * batch.width..(r + 1) * batch.width]
                                    .iter()
                                    .sum::<u32>() as usize,
                                len
                            );
                            vec![row[0] as f32, len as f32]
                        })
                        .collect())
                },
            )
            .unwrap();
        for (k, output) in outputs.iter().enumerate() {
            assert_eq!(output.meta, k);
            let expected: Vec<Vec<f32>> = (0..=k)
                .map(|j| vec![(10 * k + j) as f32, (j + 1) as f32])
                .collect();
            assert_eq!(output.rows, expected);
        }
        let stats = batcher.stats();
        assert_eq!(stats.rows, 15);
        assert_eq!(
            stats.real_tokens,
            (1..=5).map(|k| k * (k + 1) / 2).sum::<usize>() as u64
        );
        assert!(stats.padded_tokens >= stats.real_tokens);
        assert!((0.0..1.0).contains(&stats.waste()));
    }

    #[test]
    fn errors_on_either_side_stop_the_run() {
        let batcher = Batcher::new("t", BatchOptions::default().with_chunk(1), 0);
        let items: Vec<u32> = (0..50).collect();
        let err = batcher
            .run(
                &items,
                |&k| {
                    if k == 3 {
                        Err(Error::Model {
                            model: "t".into(),
                            message: "bad example 3".into(),
                        })
                    } else {
                        Ok(Encoded {
                            rows: vec![Row {
                                ids: vec![k],
                                type_ids: vec![0],
                            }],
                            meta: (),
                        })
                    }
                },
                |b| Ok(vec![vec![]; b.rows()]),
            )
            .map(|_| ())
            .unwrap_err();
        assert!(err.to_string().contains("bad example 3"), "{err}");
        let err = batcher
            .run(
                &items,
                |&k| {
                    Ok(Encoded {
                        rows: vec![Row {
                            ids: vec![k],
                            type_ids: vec![0],
                        }],
                        meta: (),
                    })
                },
                |_| {
                    Err(Error::Model {
                        model: "t".into(),
                        message: "forward failed".into(),
                    })
                },
            )
            .map(|_| ())
            .unwrap_err();
        assert!(err.to_string().contains("forward failed"), "{err}");
    }
}
