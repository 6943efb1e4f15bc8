//! The stage runner: a source of record batches and a chain of [`Stage`]s joined by bounded
//! crossbeam channels, each stage on its own worker threads.
//!
//! * **Backpressure**: every channel holds at most `capacity` batches, so a slow stage (the model)
//!   throttles the reader instead of letting batches pile up in memory.
//! * **Failure**: the first error (or Ctrl-C) raises a shared abort flag; every thread stops at its
//!   next batch, channels close, and [`Pipeline::run`] returns that first error wrapped in the
//!   name of the stage that raised it.
//! * **Pass-through**: a batch whose record kind a stage does not consume is forwarded unchanged,
//!   so a later stage still sees it (the judge sees the cases that went through `execute`).
//! * **Observability**: a `tracing` span per stage, row and batch counters per stage, an
//!   `indicatif` display on a terminal and periodic log lines otherwise.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use arrow::array::RecordBatch;
use crossbeam_channel::{bounded, Receiver, Sender};

use crate::record::RecordKind;
use crate::{Error, Result};

/// A step of the pipeline: record batches in, record batches out.
///
/// `process` may be called from several worker threads at once (hence `&self`); a stage that
/// keeps state across batches guards it itself. `finish` is called once, after every input batch
/// has been processed, for stages that hold back output (aggregations).
pub trait Stage: Send + Sync {
    /// The stage's name, used in logs, errors and output manifests.
    fn name(&self) -> &str;

    /// The record kinds this stage reads; other kinds pass through untouched.
    fn consumes(&self) -> &[RecordKind];

    /// The record kinds this stage creates (those its outputs are written for).
    fn produces(&self) -> &[RecordKind];

    /// Processes one batch of a consumed kind, sending results through `emit`.
    ///
    /// # Errors
    /// Any error stops the whole pipeline.
    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()>;

    /// Called once after the last batch.
    ///
    /// # Errors
    /// Any error stops the whole pipeline.
    fn finish(&self, _emit: &mut Emitter<'_>) -> Result<()> {
        Ok(())
    }

    /// What the stage's models or generators did so far (predictions, cache hits, requests,
    /// tokens), recorded in the shard's manifest; none by default.
    fn usage(&self) -> Vec<crate::usage::ModelUsage> {
        Vec::new()
    }
}

/// Receives the batches a stage emits: a tap (usually a Parquet writer) for the kinds the stage
/// produces, then the next stage's channel.
pub struct Emitter<'a> {
    stage: &'a StageRun,
    tx: &'a Sender<RecordBatch>,
    shared: &'a Shared,
}

impl Emitter<'_> {
    /// Sends a batch downstream (blocking while the channel is full).
    ///
    /// # Errors
    /// [`Error::Interrupted`] when the pipeline is stopping; the tap's error if writing fails.
    pub fn emit(&mut self, batch: RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.shared.aborted() {
            return Err(Error::Interrupted);
        }
        let kind = RecordKind::of_batch(&batch)?;
        if self.stage.produces.contains(&kind) {
            self.stage
                .counters
                .rows_out
                .fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
            if let Some(tap) = &self.stage.tap {
                tap(kind, &batch)?;
            }
        }
        self.tx.send(batch).map_err(|_| Error::Interrupted)
    }
}

/// Called with every batch of a kind a stage produces (e.g. to write it to Parquet).
pub type Tap = Box<dyn Fn(RecordKind, &RecordBatch) -> Result<()> + Send + Sync>;

/// Per-stage counters, readable while the pipeline runs.
#[derive(Debug, Default)]
pub struct StageCounters {
    /// Batches received.
    pub batches_in: AtomicU64,
    /// Rows received (all kinds, including passed-through ones).
    pub rows_in: AtomicU64,
    /// Rows produced (kinds the stage produces).
    pub rows_out: AtomicU64,
    /// Time spent inside `process`/`finish`, in microseconds, summed over workers.
    pub busy_micros: AtomicU64,
}

/// Runtime settings of one stage.
#[derive(Clone, Copy, Debug)]
pub struct StageOptions {
    /// Worker threads calling `process` (default 1).
    pub workers: usize,
    /// Capacity, in batches, of the channel feeding the stage (default 4).
    pub capacity: usize,
}

impl Default for StageOptions {
    fn default() -> Self {
        StageOptions {
            workers: 1,
            capacity: 4,
        }
    }
}

struct StageRun {
    stage: Arc<dyn Stage>,
    options: StageOptions,
    consumes: Vec<RecordKind>,
    produces: Vec<RecordKind>,
    tap: Option<Tap>,
    counters: Arc<StageCounters>,
}

struct Shared {
    abort: AtomicBool,
    first_error: Mutex<Option<Error>>,
    cancel: CancelToken,
}

impl Shared {
    fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed) || self.cancel.is_cancelled()
    }

    fn fail(&self, error: Error) {
        let mut slot = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
        // Keep the first real error; an interruption caused by it is only a symptom.
        let replace = match &*slot {
            None => true,
            Some(existing) => existing.is_interrupted() && !error.is_interrupted(),
        };
        if replace {
            *slot = Some(error);
        }
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// A cancellation flag shared by everything in one run; [`CancelToken::install_ctrl_c`] ties it
/// to SIGINT/SIGTERM.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A fresh, uncancelled token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Requests cancellation.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once cancellation was requested.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The process-wide token cancelled by Ctrl-C / SIGTERM (the handler is installed once).
    pub fn install_ctrl_c() -> CancelToken {
        CTRL_C_TOKEN
            .get_or_init(|| {
                let token = CancelToken::new();
                let handler_token = token.clone();
                let installed = ctrlc::set_handler(move || {
                    if handler_token.is_cancelled() {
                        // Model processes lead their own groups: stop them on the way out.
                        let stopped = crate::process_groups::stop_all();
                        eprintln!("second interrupt: exiting now (stopped {stopped} model process group(s))");
                        std::process::exit(130);
                    }
                    eprintln!(
                        "interrupt: stopping after the current batches (press again to force)"
                    );
                    handler_token.cancel();
                });
                if let Err(e) = installed {
                    tracing::warn!("could not install the Ctrl-C handler: {e}");
                }
                token
            })
            .clone()
    }
}

/// The token of [`CancelToken::install_ctrl_c`], once installed.
static CTRL_C_TOKEN: OnceLock<CancelToken> = OnceLock::new();

/// Whether Ctrl-C / SIGTERM asked this process to stop (false until
/// [`CancelToken::install_ctrl_c`] installed the handler): for long work outside a pipeline run
/// — hashing inputs, reading a dataset to build a pool — to stop too.
pub fn interrupt_requested() -> bool {
    CTRL_C_TOKEN.get().is_some_and(CancelToken::is_cancelled)
}

/// What a finished run reports, per stage.
#[derive(Clone, Debug)]
pub struct StageReport {
    /// Stage name.
    pub name: String,
    /// Batches received.
    pub batches_in: u64,
    /// Rows received.
    pub rows_in: u64,
    /// Rows produced.
    pub rows_out: u64,
    /// Time spent in the stage's own code.
    pub busy: Duration,
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Rows read from the source.
    pub source_rows: u64,
    /// One entry per stage, in order.
    pub stages: Vec<StageReport>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

type Source = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// A source feeding a chain of stages.
pub struct Pipeline {
    source: Source,
    source_capacity: usize,
    stages: Vec<StageRun>,
    sink: Option<Box<dyn FnMut(RecordBatch) -> Result<()> + Send>>,
    cancel: CancelToken,
    progress: bool,
    label: String,
}

impl Pipeline {
    /// A pipeline reading batches from `source`.
    pub fn new(source: impl Iterator<Item = Result<RecordBatch>> + Send + 'static) -> Self {
        Pipeline {
            source: Box::new(source),
            source_capacity: 4,
            stages: Vec::new(),
            sink: None,
            cancel: CancelToken::new(),
            progress: true,
            label: "pipeline".into(),
        }
    }

    /// Appends a stage with its options and an optional tap for the kinds it produces.
    pub fn stage(mut self, stage: Arc<dyn Stage>, options: StageOptions, tap: Option<Tap>) -> Self {
        let consumes = stage.consumes().to_vec();
        let produces = stage.produces().to_vec();
        self.stages.push(StageRun {
            stage,
            options: StageOptions {
                workers: options.workers.max(1),
                capacity: options.capacity.max(1),
            },
            consumes,
            produces,
            tap,
            counters: Arc::new(StageCounters::default()),
        });
        self
    }

    /// Receives every batch that leaves the last stage (default: dropped).
    pub fn sink(mut self, sink: impl FnMut(RecordBatch) -> Result<()> + Send + 'static) -> Self {
        self.sink = Some(Box::new(sink));
        self
    }

    /// Stops the run when `token` is cancelled.
    pub fn cancel_token(mut self, token: CancelToken) -> Self {
        self.cancel = token;
        self
    }

    /// Capacity of the channel after the source (default 4).
    pub fn source_capacity(mut self, capacity: usize) -> Self {
        self.source_capacity = capacity.max(1);
        self
    }

    /// Shows progress (bars on a terminal, log lines otherwise); default on.
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }

    /// A label for progress and logs (e.g. the dataset and shard).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Runs to completion.
    ///
    /// # Errors
    /// The first error any stage (or the source, or the sink) returned, wrapped in
    /// [`Error::Stage`]; [`Error::Interrupted`] if cancelled.
    pub fn run(self) -> Result<RunReport> {
        let Pipeline {
            mut source,
            source_capacity,
            stages,
            mut sink,
            cancel,
            progress,
            label,
        } = self;
        let started = Instant::now();
        let shared = Shared {
            abort: AtomicBool::new(false),
            first_error: Mutex::new(None),
            cancel,
        };
        let source_rows = AtomicU64::new(0);
        let display = progress.then(|| Progress::start(&label, &stages));

        std::thread::scope(|scope| {
            let (first_tx, mut rx) = bounded::<RecordBatch>(source_capacity);
            let shared = &shared;
            let source_rows = &source_rows;
            scope.spawn(move || {
                let _span = tracing::info_span!("source").entered();
                let tx = first_tx;
                for batch in source.by_ref() {
                    if shared.aborted() {
                        break;
                    }
                    match batch {
                        Ok(batch) => {
                            source_rows.fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
                            if tx.send(batch).is_err() {
                                break;
                            }
                        }
                        Err(e) => {
                            shared.fail(e.in_stage("read"));
                            break;
                        }
                    }
                }
            });
            for run in &stages {
                let (tx, next_rx) = bounded::<RecordBatch>(run.options.capacity);
                let input = std::mem::replace(&mut rx, next_rx);
                scope.spawn(move || run_stage(run, input, tx, shared));
            }
            let sink_rx = rx;
            let _span = tracing::info_span!("sink").entered();
            for batch in sink_rx.iter() {
                if shared.aborted() {
                    break;
                }
                if let Some(sink) = sink.as_mut() {
                    if let Err(e) = sink(batch) {
                        shared.fail(e.in_stage("sink"));
                        break;
                    }
                }
            }
            drop(sink_rx);
        });

        if let Some(display) = display {
            display.finish();
        }
        // After Ctrl-C, whatever failed on the way down (a model process that got the signal
        // too, a closed channel) is a consequence: report the interruption.
        if shared.cancel.is_cancelled() {
            return Err(Error::Interrupted);
        }
        if let Some(error) = shared
            .first_error
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        {
            return Err(error);
        }
        let report = RunReport {
            source_rows: source_rows.load(Ordering::Relaxed),
            stages: stages
                .iter()
                .map(|s| StageReport {
                    name: s.stage.name().to_string(),
                    batches_in: s.counters.batches_in.load(Ordering::Relaxed),
                    rows_in: s.counters.rows_in.load(Ordering::Relaxed),
                    rows_out: s.counters.rows_out.load(Ordering::Relaxed),
                    busy: Duration::from_micros(s.counters.busy_micros.load(Ordering::Relaxed)),
                })
                .collect(),
            elapsed: started.elapsed(),
        };
        for s in &report.stages {
            tracing::debug!(
                stage = %s.name,
                rows_in = s.rows_in,
                rows_out = s.rows_out,
                busy_ms = s.busy.as_millis() as u64,
                "stage done"
            );
        }
        Ok(report)
    }
}

fn run_stage(
    run: &StageRun,
    input: Receiver<RecordBatch>,
    tx: Sender<RecordBatch>,
    shared: &Shared,
) {
    let name = run.stage.name();
    let span = tracing::info_span!("stage", name);
    std::thread::scope(|scope| {
        for worker in 0..run.options.workers {
            let input = input.clone();
            let tx = tx.clone();
            let span = span.clone();
            scope.spawn(move || {
                let _entered = tracing::info_span!(parent: &span, "worker", worker).entered();
                let mut emit = Emitter {
                    stage: run,
                    tx: &tx,
                    shared,
                };
                for batch in input.iter() {
                    if shared.aborted() {
                        break;
                    }
                    run.counters.batches_in.fetch_add(1, Ordering::Relaxed);
                    run.counters
                        .rows_in
                        .fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
                    let result = match RecordKind::of_batch(&batch) {
                        Ok(kind) if run.consumes.contains(&kind) => {
                            let t = Instant::now();
                            let r = run.stage.process(batch, &mut emit);
                            run.counters
                                .busy_micros
                                .fetch_add(t.elapsed().as_micros() as u64, Ordering::Relaxed);
                            r
                        }
                        Ok(_) => tx.send(batch).map_err(|_| Error::Interrupted),
                        Err(e) => Err(e),
                    };
                    if let Err(e) = result {
                        shared.fail(e.in_stage(name));
                        break;
                    }
                }
            });
        }
    });
    // All workers are done: the input is drained (or the run is aborting).
    drop(input);
    if !shared.aborted() {
        let _entered = span.enter();
        let mut emit = Emitter {
            stage: run,
            tx: &tx,
            shared,
        };
        let t = Instant::now();
        if let Err(e) = run.stage.finish(&mut emit) {
            shared.fail(e.in_stage(name));
        }
        run.counters
            .busy_micros
            .fetch_add(t.elapsed().as_micros() as u64, Ordering::Relaxed);
    }
}

/// Progress display: one bar per stage on a terminal, a log line every 10 s otherwise.
struct Progress {
    stop: Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(label: &str, stages: &[StageRun]) -> Progress {
        let (stop, stopped) = bounded::<()>(1);
        let counters: Vec<(String, Arc<StageCounters>)> = stages
            .iter()
            .map(|s| (s.stage.name().to_string(), s.counters.clone()))
            .collect();
        let label = label.to_string();
        let terminal = std::io::stderr().is_terminal();
        let thread = std::thread::spawn(move || {
            let tick = Duration::from_millis(200);
            if terminal {
                let multi = indicatif::MultiProgress::new();
                let style = indicatif::ProgressStyle::with_template(
                    "{prefix:>12.cyan.bold} {spinner} {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner());
                let bars: Vec<_> = counters
                    .iter()
                    .map(|(name, _)| {
                        let bar = multi.add(indicatif::ProgressBar::new_spinner());
                        bar.set_style(style.clone());
                        bar.set_prefix(name.clone());
                        bar
                    })
                    .collect();
                while stopped.recv_timeout(tick).is_err() {
                    for (bar, (_, c)) in bars.iter().zip(&counters) {
                        bar.set_message(format!(
                            "{label}: {} rows in, {} rows out",
                            c.rows_in.load(Ordering::Relaxed),
                            c.rows_out.load(Ordering::Relaxed)
                        ));
                        bar.tick();
                    }
                }
                for bar in bars {
                    bar.finish_and_clear();
                }
            } else {
                let mut last = Instant::now();
                while stopped.recv_timeout(tick).is_err() {
                    if last.elapsed() >= Duration::from_secs(10) {
                        last = Instant::now();
                        for (name, c) in &counters {
                            tracing::info!(
                                %label,
                                stage = %name,
                                rows_in = c.rows_in.load(Ordering::Relaxed),
                                rows_out = c.rows_out.load(Ordering::Relaxed),
                                "progress"
                            );
                        }
                    }
                }
            }
        });
        Progress {
            stop,
            thread: Some(thread),
        }
    }

    fn finish(mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
