//! The GPU path's automation: NVIDIA's CUDA 13.0 toolchain from its PyPI wheels and the cuda
//! build (`cargo xtask cuda`), and the GPU kit (`cargo xtask gpu-kit`): one folder that a
//! machine with a driver and PyTorch but no Rust runs (`python3 run.py`).
//!
//! Decisions recorded here:
//! * **Toolchain from wheels, every piece pinned to 13.0.** Unpinned, pip mixes 13.0 `ptxas`
//!   with newer NVVM whose PTX it rejects, and the lent machines' driver speaks CUDA 13.0. The
//!   wheels are downloaded by package name into `$METAMORPH_HOME/downloads/cuda13/` and
//!   unpacked into `$METAMORPH_HOME/assets/cuda13/`; a marker written last makes the
//!   step idempotent.
//! * **Link without a GPU.** candle-core turns on cudarc's `dynamic-linking`, so the linker
//!   wants `libcuda.so` (the driver, which no wheel ships) and unversioned names of the
//!   runtime libraries (the wheels ship `libcublas.so.13` and so on). The toolkit folder gets
//!   those symlinks and a link stub `lib/stubs/libcuda.so` (SONAME `libcuda.so.1`) that
//!   defines every `cu*` function cudarc declares, compiled with the system C compiler from
//!   the names in cudarc's own bindings. At run time the binary loads the real driver.
//! * **Its own target directory** (`target/cuda/`): the cuda build never invalidates the CPU
//!   build the tests share, and `LIBRARY_PATH` (not `RUSTFLAGS`) carries the link paths.
//! * **One stripped binary in the kit** (`gpu-kit`, profile `gpu-kit`: release without debug
//!   info), xz-compressed, because what a lent machine receives is limited to 64 MiB.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

/// The wheels of the toolchain, by package name and pinned version.
pub const CUDA_WHEELS: [&str; 8] = [
    "nvidia-cuda-nvcc==13.0.*",
    "nvidia-nvvm==13.0.*",
    "nvidia-cuda-crt==13.0.*",
    "nvidia-cuda-runtime==13.0.*",
    "nvidia-cuda-cccl==13.0.*",
    "nvidia-cublas==13.0.*",
    "nvidia-cuda-nvrtc==13.0.*",
    "nvidia-curand==10.4.*",
];

/// Compute capability the kernels are built for when no GPU is there to ask (H100: 9.0).
pub const DEFAULT_COMPUTE_CAP: &str = "90";

/// Runtime libraries that the linker looks for under their unversioned names.
const VERSIONED_LIBS: [(&str, &str); 5] = [
    ("libcublas.so", "libcublas.so.13"),
    ("libcublasLt.so", "libcublasLt.so.13"),
    ("libcudart.so", "libcudart.so.13"),
    ("libnvrtc.so", "libnvrtc.so.13"),
    ("libcurand.so", "libcurand.so.10"),
];

/// An unpacked CUDA toolchain: `root` holds `bin/nvcc`, `include/`, `lib/`, `nvvm/`.
#[derive(Clone, Debug)]
pub struct CudaToolkit {
    /// `…/assets/cuda13/nvidia/cu13`.
    pub root: PathBuf,
}

impl CudaToolkit {
    /// Downloads and unpacks the toolchain under `home` unless it is already complete, then
    /// makes the link stub for cudarc's driver functions (`cudarc_sys`: cudarc's
    /// `src/driver/sys/mod.rs`).
    ///
    /// # Errors
    /// When pip cannot download a wheel, unpacking fails or the C compiler fails.
    pub fn ensure(home: &Path, cudarc_sys: &Path) -> Result<Self> {
        let folder = home.join("assets").join("cuda13");
        let root = folder.join("nvidia").join("cu13");
        let marker = folder.join(".complete");
        if !marker.is_file() {
            let downloads = home.join("downloads").join("cuda13");
            std::fs::create_dir_all(&downloads)
                .with_context(|| format!("creating {}", downloads.display()))?;
            eprintln!("cuda: downloading the CUDA 13.0 toolchain wheels (about 700 MB)");
            let status = Command::new("python3")
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(["--no-deps", "--only-binary=:all:", "--dest"])
                .arg(&downloads)
                .args(CUDA_WHEELS)
                .status()
                .context("running `python3 -m pip download`")?;
            ensure!(
                status.success(),
                "pip could not download the CUDA wheels ({status})"
            );
            if folder.exists() {
                std::fs::remove_dir_all(&folder)?;
            }
            std::fs::create_dir_all(&folder)?;
            for wheel in std::fs::read_dir(&downloads)? {
                let wheel = wheel?.path();
                if wheel.extension().is_some_and(|e| e == "whl") {
                    unzip(&wheel, &folder)?;
                }
            }
            ensure!(
                root.join("bin").join("nvcc").is_file(),
                "the wheels in {} hold no nvidia/cu13/bin/nvcc",
                downloads.display()
            );
            for dir in ["bin", "nvvm/bin"] {
                for entry in std::fs::read_dir(root.join(dir))? {
                    make_executable(&entry?.path())?;
                }
            }
            std::fs::write(&marker, CUDA_WHEELS.join("\n"))?;
        }
        let toolkit = CudaToolkit { root };
        toolkit.link_names()?;
        toolkit.driver_stub(cudarc_sys)?;
        Ok(toolkit)
    }

    /// `lib/libX.so → libX.so.N` for the libraries cudarc links.
    fn link_names(&self) -> Result<()> {
        let lib = self.root.join("lib");
        for (name, versioned) in VERSIONED_LIBS {
            let link = lib.join(name);
            if std::fs::symlink_metadata(&link).is_err() {
                ensure!(
                    lib.join(versioned).is_file(),
                    "{} is missing",
                    lib.join(versioned).display()
                );
                std::os::unix::fs::symlink(versioned, &link)
                    .with_context(|| format!("linking {}", link.display()))?;
            }
        }
        Ok(())
    }

    /// `lib/stubs/libcuda.so`: every `cu*` function of cudarc's driver bindings as an empty
    /// body, SONAME `libcuda.so.1`, so the binary links here and loads the real driver there.
    fn driver_stub(&self, cudarc_sys: &Path) -> Result<()> {
        let stubs = self.root.join("lib").join("stubs");
        let library = stubs.join("libcuda.so");
        if library.is_file() {
            return Ok(());
        }
        let bindings = std::fs::read_to_string(cudarc_sys).with_context(|| {
            format!("reading cudarc's driver bindings {}", cudarc_sys.display())
        })?;
        let names = driver_functions(&bindings);
        ensure!(
            names.len() > 100,
            "{} declares only {} cu* functions: not cudarc's driver bindings?",
            cudarc_sys.display(),
            names.len()
        );
        std::fs::create_dir_all(&stubs)?;
        let source = stubs.join("libcuda_stub.c");
        let body: String = names
            .iter()
            .map(|n| format!("void {n}(void) {{}}\n"))
            .collect();
        std::fs::write(&source, body)?;
        let tmp = stubs.join("libcuda.so.tmp");
        let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
            .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
            .arg(&tmp)
            .arg(&source)
            .status()
            .context("running the C compiler (cc) for the driver link stub")?;
        ensure!(
            status.success(),
            "cc failed on {} ({status})",
            source.display()
        );
        std::fs::rename(&tmp, &library)?;
        Ok(())
    }

    /// The environment of a cuda build: `CUDA_ROOT`, `nvcc` on `PATH`, the compute capability
    /// (`CUDA_COMPUTE_CAP`, default 90 unless already set) and `LIBRARY_PATH` for the linker.
    pub fn build_env(&self) -> Vec<(&'static str, OsString)> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.root.join("bin")];
        paths.extend(std::env::split_paths(&path));
        let lib = self.root.join("lib");
        let library_path = std::env::join_paths([lib.clone(), lib.join("stubs")])
            .expect("no separator in the toolkit's path");
        vec![
            ("CUDA_ROOT", self.root.clone().into_os_string()),
            ("CUDA_PATH", self.root.clone().into_os_string()),
            ("PATH", std::env::join_paths(paths).expect("PATH entries")),
            (
                "CUDA_COMPUTE_CAP",
                std::env::var_os("CUDA_COMPUTE_CAP").unwrap_or_else(|| DEFAULT_COMPUTE_CAP.into()),
            ),
            ("LIBRARY_PATH", library_path),
        ]
    }
}

/// The `cu*` functions an `extern "C"` block of cudarc's bindings declares, sorted, unique.
pub fn driver_functions(bindings: &str) -> Vec<String> {
    let mut names: Vec<String> = bindings
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("fn cu"))
        .filter_map(|rest| {
            let end = rest.find('(')?;
            let name = &rest[..end];
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                .then(|| format!("cu{name}"))
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

fn unzip(wheel: &Path, into: &Path) -> Result<()> {
    let status = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(wheel)
        .arg(into)
        .status()
        .context("running `python3 -m zipfile`")?;
    ensure!(status.success(), "could not unpack {}", wheel.display());
    Ok(())
}

fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if path.is_file() {
        let mut permissions = std::fs::metadata(path)?.permissions();
        permissions.set_mode(permissions.mode() | 0o755);
        std::fs::set_permissions(path, permissions)?;
    }
    Ok(())
}

/// What goes into a kit besides the binary.
#[derive(Clone, Debug)]
pub struct KitSources {
    /// The workspace root (fixtures, `scripts/gpu_kit/`).
    pub workspace: PathBuf,
    /// `case` Parquet files for the pipeline run and their `cases.json` ([`perturb_cases`]).
    pub cases: PathBuf,
    /// A folder with the bert-base-uncased `tokenizer.json` (all-MiniLM-L6-v2's).
    pub tokenizer: PathBuf,
}

/// What [`perturb_cases`] made (`cases.json`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct PerturbedCases {
    /// BoolQ sources read (the file's questions times `copies`).
    pub sources: usize,
    /// How many times the file's questions were repeated.
    pub copies: usize,
    /// Cases written.
    pub cases: u64,
    /// Seconds parse and perturb took (the pipeline without models).
    pub seconds: f64,
    /// Cores of the machine that made them.
    pub cores: usize,
}

/// Parses and perturbs `copies` repetitions of the BoolQ questions in `boolq` (MT4MRC, no
/// model) with the in-process pipeline in `work/`, and returns the folder of the `case`
/// Parquet files, with a `cases.json` ([`PerturbedCases`]) beside them.
///
/// The GPU kit's pipeline run starts from these: MT4MRC's substitution checks read
/// all-MiniLM-L6-v2 and WordNet, whose files do not fit the 64 MiB a lent GPU machine
/// receives beside the binary, so parse and perturb run where the assets are and the GPU
/// machine runs the model stages, execute and judge.
///
/// # Errors
/// When the file cannot be read or the pipeline fails.
pub fn perturb_cases(boolq: &Path, copies: usize, work: &Path) -> Result<PathBuf> {
    if work.exists() {
        std::fs::remove_dir_all(work)?;
    }
    std::fs::create_dir_all(work)?;
    let text =
        std::fs::read_to_string(boolq).with_context(|| format!("reading {}", boolq.display()))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut repeated = String::new();
    for copy in 0..copies {
        for (n, line) in lines.iter().enumerate() {
            let mut record: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("{} line {}", boolq.display(), n + 1))?;
            let id = match record.get("idx") {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => n.to_string(),
            };
            record["idx"] = serde_json::Value::from(format!("{id}-copy{copy}"));
            repeated.push_str(&record.to_string());
            repeated.push('\n');
        }
    }
    std::fs::write(work.join("boolq.jsonl"), repeated)?;
    let config = work.join("perturb.toml");
    std::fs::write(
        &config,
        "[pipeline]\noutput = \"out\"\nshards = 1\nbatch_size = 256\n\n\
         [[pipeline.datasets]]\nname = \"boolq\"\npath = \"boolq.jsonl\"\nformat = \"boolq\"\n\n\
         [perturb]\nrelations = [\"mt4mrc\"]\n",
    )?;
    let started = std::time::Instant::now();
    let options = metamorph::PipelineOptions {
        output: None,
        force: true,
        progress: false,
        no_cache: true,
    };
    let report = metamorph::run_pipeline(&config, &options)?;
    let made = PerturbedCases {
        sources: lines.len() * copies,
        copies,
        // What `case/` holds: every case perturb made but those the validity step rejected.
        cases: report.perturb_counts.iter().map(|c| c.cases).sum::<u64>()
            - report
                .summary
                .validity
                .iter()
                .map(|v| v.rejected)
                .sum::<u64>(),
        seconds: started.elapsed().as_secs_f64(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let cases_dir = work.join("out").join("boolq").join("case");
    std::fs::write(
        cases_dir.join("cases.json"),
        serde_json::to_string_pretty(&made)?,
    )?;
    Ok(cases_dir)
}

/// Fixture folders copied into the kit's `fixtures/`: (source under the workspace, name).
const KIT_FIXTURES: [(&str, &str); 6] = [
    ("models/tests/fixtures/encoders", "encoders"),
    ("models/tests/fixtures/encoder-variants", "encoder-variants"),
    ("models/tests/fixtures/mlm", "mlm"),
    ("generate/tests/fixtures/bart-tiny", "bart-tiny"),
    ("generate/tests/fixtures/t5-tiny", "t5-tiny"),
    ("models/tests/fixtures/causal-lm", "causal-lm"),
];

/// Writes the kit into `out` (replacing it): `run.py`, `README.md`, `bin/gpu-kit` (xz-compressed,
/// `bin/gpu-kit.xz`, when `compress`: a minute on two cores), `fixtures/`, `data/cases/` and
/// `tokenizer/`. Returns the kit's size in bytes.
///
/// # Errors
/// When a source is missing or a file cannot be written.
pub fn assemble(binary: &Path, sources: &KitSources, out: &Path, compress: bool) -> Result<u64> {
    ensure!(binary.is_file(), "no binary at {}", binary.display());
    let tmp = out.with_extension("tmp");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)?;
    }
    std::fs::create_dir_all(tmp.join("bin"))?;
    let script = sources.workspace.join("scripts").join("gpu_kit");
    for name in ["run.py", "README.md"] {
        copy(&script.join(name), &tmp.join(name))?;
    }
    if compress {
        let packed = std::fs::File::create(tmp.join("bin").join("gpu-kit.xz"))?;
        let status = Command::new("xz")
            .args(["-9", "--stdout", "--threads=0"])
            .arg(binary)
            .stdout(packed)
            .status()
            .context("running xz")?;
        ensure!(
            status.success(),
            "xz failed on {} ({status})",
            binary.display()
        );
    } else {
        copy(binary, &tmp.join("bin").join("gpu-kit"))?;
    }
    for (from, name) in KIT_FIXTURES {
        copy_tree(
            &sources.workspace.join(from),
            &tmp.join("fixtures").join(name),
        )?;
    }
    copy_tree(&sources.cases, &tmp.join("data").join("cases"))?;
    // The BoolQ questions of the language-model step (`run.py --only lm`).
    copy(
        &sources.workspace.join("data/samples/boolq.jsonl"),
        &tmp.join("data").join("boolq.jsonl"),
    )?;
    ensure!(
        tmp.join("data").join("cases").join("cases.json").is_file(),
        "{} has no cases.json (make it with perturb_cases)",
        sources.cases.display()
    );
    std::fs::create_dir_all(tmp.join("tokenizer"))?;
    for name in [
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "vocab.txt",
    ] {
        let file = sources.tokenizer.join(name);
        if file.is_file() {
            copy(&file, &tmp.join("tokenizer").join(name))?;
        }
    }
    ensure!(
        tmp.join("tokenizer").join("tokenizer.json").is_file(),
        "no tokenizer.json in {}",
        sources.tokenizer.display()
    );
    if out.exists() {
        std::fs::remove_dir_all(out)?;
    }
    std::fs::rename(&tmp, out)?;
    tree_size(out)
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    if !from.is_dir() {
        bail!("{} is not a folder", from.display());
    }
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        let target = to.join(path.file_name().expect("a directory entry has a name"));
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            copy(&path, &target)?;
        }
    }
    Ok(())
}

fn tree_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            tree_size(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_functions_reads_extern_declarations_only() {
        let bindings = "pub unsafe fn cuInit(flags: u32) -> CUresult {\n\
                        extern \"C\" {\n    fn cuInit(Flags: u32) -> CUresult;\n}\n\
                        extern \"C\" {\n    fn cuMemAlloc_v2(p: *mut u64, n: usize) -> CUresult;\n}\n\
                        extern \"C\" {\n    fn cuInit(Flags: u32) -> CUresult;\n}\n\
                        type _F = unsafe extern \"C\" fn(u32) -> CUresult;\n";
        assert_eq!(driver_functions(bindings), ["cuInit", "cuMemAlloc_v2"]);
    }
}
