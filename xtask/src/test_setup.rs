//! `cargo xtask test`: the README's test command. It sets up what the tests of real components
//! need — Debian's `chromium` for the report tests, the one-node Slurm of
//! `deploy/slurm/local-cluster.sh` for the cluster recipe, a virtualenv with `pyarrow` and
//! `polars` for the Parquet interop test — wherever it can, then runs `cargo test --workspace`.
//! What cannot be set up (no root, no `apt-get`, no network) is said up front, and those tests
//! still print `SKIPPED`, visibly.
//!
//! Decisions: system packages only as root through `apt-get` (never `sudo`: CI runs as root,
//! a user's machine is not ours to change); the virtualenv lives in `target/venv-interop`, so
//! `cargo clean` removes it and nothing outside the clone changes; its `bin/` goes first on the
//! tests' `PATH`, so their `python3` has pyarrow and polars (the test models need only the
//! standard library); a cluster the command started is stopped when the tests end.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one setup step found or did, for the summary printed before the tests run.
pub struct Readiness {
    /// The component (`chromium`, `slurm`, `pyarrow+polars`).
    pub component: &'static str,
    /// Whether its tests will run.
    pub ready: bool,
    /// What was found or done, or why not.
    pub note: String,
}

fn on_path(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Installs Debian `packages` with apt-get (refreshing the package lists once if the first
/// attempt fails). `Err` says why not.
fn apt_install(packages: &[&str]) -> Result<(), String> {
    if !is_root() {
        return Err("not root, so no system packages are installed".into());
    }
    if !on_path("apt-get") {
        return Err("no apt-get on this machine".into());
    }
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output()
    };
    let first = install().map_err(|e| format!("cannot run apt-get: {e}"))?;
    if first.status.success() {
        return Ok(());
    }
    let _ = Command::new("apt-get")
        .args(["update", "-qq"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .output();
    let second = install().map_err(|e| format!("cannot run apt-get: {e}"))?;
    if second.status.success() {
        Ok(())
    } else {
        Err(format!(
            "apt-get install {} failed: {}",
            packages.join(" "),
            String::from_utf8_lossy(&second.stderr).trim()
        ))
    }
}

/// Headless Chromium for the report tests.
pub fn chromium() -> Readiness {
    let found =
        crate::report_check::find_chromium(std::env::var_os("CHROMIUM"), std::env::var_os("PATH"));
    let (ready, note) = match found {
        Ok(path) => (true, format!("found {}", path.display())),
        Err(_) => match apt_install(&["chromium"]) {
            Ok(()) => (true, "installed Debian's chromium".into()),
            Err(why) => (false, why),
        },
    };
    Readiness {
        component: "chromium",
        ready,
        note,
    }
}

/// The one-node Slurm cluster; `started` is set when this call started it (stop it after).
pub fn slurm(root: &Path, started: &mut bool) -> Readiness {
    let script = root.join("deploy/slurm/local-cluster.sh");
    let running = Command::new(&script)
        .arg("status")
        .output()
        .is_ok_and(|o| o.status.success());
    let (ready, note) = if running {
        (true, "a one-node cluster is running".to_string())
    } else if !is_root() {
        (
            on_path("sbatch"),
            "not root: the Slurm test starts the cluster itself if it can".into(),
        )
    } else {
        match Command::new(&script).arg("start").output() {
            Ok(o) if o.status.success() => {
                *started = true;
                (
                    true,
                    "started the one-node cluster of local-cluster.sh".into(),
                )
            }
            Ok(o) => (
                false,
                format!(
                    "local-cluster.sh start failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                ),
            ),
            Err(e) => (false, format!("cannot run {}: {e}", script.display())),
        }
    };
    Readiness {
        component: "slurm",
        ready,
        note,
    }
}

/// A virtualenv with pyarrow and polars under `target/`; its `bin/` when ready.
pub fn interop_venv(root: &Path) -> (Readiness, Option<PathBuf>) {
    let venv = root.join("target/venv-interop");
    let python = venv.join("bin/python3");
    let has = |python: &Path| {
        Command::new(python)
            .args(["-c", "import pyarrow, polars"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let mut note = "found in target/venv-interop".to_string();
    if !has(&python) {
        let run = |program: &Path, args: &[&str]| -> Result<(), String> {
            let output = Command::new(program)
                .args(args)
                .output()
                .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
            if output.status.success() {
                return Ok(());
            }
            Err(format!(
                "`{} {}` failed: {}",
                program.display(),
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ))
        };
        let venv_arg = venv.display().to_string();
        let made = if python.is_file() {
            Ok(())
        } else {
            run(Path::new("python3"), &["-m", "venv", &venv_arg])
        };
        note = match made.and_then(|()| {
            run(
                &python,
                &["-m", "pip", "install", "--quiet", "pyarrow", "polars"],
            )
        }) {
            Ok(()) => "installed pyarrow and polars into target/venv-interop".into(),
            Err(why) => why,
        };
    }
    let ready = has(&python);
    (
        Readiness {
            component: "pyarrow+polars",
            ready,
            note,
        },
        ready.then(|| venv.join("bin")),
    )
}
