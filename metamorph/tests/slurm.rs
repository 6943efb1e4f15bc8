//! `deploy/slurm-array.sbatch` on a real Slurm: every stage of a cluster run as a 3-task job
//! array into one output, whose merged summary must equal `cargo xtask pipeline`'s on the same
//! data, models and shard count.
//!
//! Runs where Slurm is installed (Debian's `slurmctld`, `slurmd`, `slurm-client`, `munge`;
//! `deploy/slurm/local-cluster.sh start` installs and starts them), and says that it skipped
//! elsewhere. A cluster the script already started is used as it is; otherwise the test
//! starts one (as root) and stops it at the end.

use std::path::{Path, PathBuf};
use std::process::Command;

use metamorph::{run_pipeline, PipelineOptions};
use metamorph_judge::Summary;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn cluster_script() -> PathBuf {
    root().join("deploy/slurm/local-cluster.sh")
}

fn on_path(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A running one-node cluster; stopped on drop if this test started it.
struct Cluster {
    conf: PathBuf,
    started_here: bool,
}

impl Cluster {
    /// The cluster, or `None` (having said why) when Slurm is not installed or cannot start.
    fn up() -> Option<Cluster> {
        let skip = |why: &str| {
            metamorph_data::shared_data::skipped(why);
            None
        };
        if !on_path("sbatch") {
            return skip(
                "Slurm is not installed (`deploy/slurm/local-cluster.sh start`, as root, \
                 installs Debian's packages and starts a one-node cluster)",
            );
        }
        let dir = std::env::var_os("METAMORPH_SLURM_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/tmp/metamorph-slurm"));
        let conf = dir.join("slurm.conf");
        let status = Command::new(cluster_script()).arg("status").output().ok()?;
        if status.status.success() {
            return Some(Cluster {
                conf,
                started_here: false,
            });
        }
        let start = Command::new(cluster_script()).arg("start").output().ok()?;
        if !start.status.success() {
            return skip(&format!(
                "Slurm is installed but `local-cluster.sh start` failed: {}",
                String::from_utf8_lossy(&start.stderr).trim()
            ));
        }
        Some(Cluster {
            conf,
            started_here: true,
        })
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.started_here {
            let _ = Command::new(cluster_script()).arg("stop").output();
        }
    }
}

/// The folder of the stage binaries `cargo test --workspace` built beside this test.
fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    for stage in ["read", "parse", "perturb", "validate", "execute", "judge"] {
        let bin = dir.join(format!("metamorph-{stage}"));
        assert!(
            bin.is_file(),
            "{} is missing: run this test through `cargo test --workspace`, which builds it",
            bin.display()
        );
    }
    dir
}

#[test]
fn a_three_task_array_per_stage_matches_the_pipeline() {
    let Some(cluster) = Cluster::up() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sample = root().join("data/samples/boolq.jsonl");
    let model = root().join("execute/tests/fixtures/test_model.py");
    let config = dir.path().join("metamorph.toml");
    std::fs::write(
        &config,
        format!(
            "[pipeline]\noutput = \"pipeline\"\nshards = 3\n\n[[pipeline.datasets]]\n\
             name = \"boolq\"\npath = {:?}\nformat = \"boolq\"\n\n[perturb]\n\
             relations = [\"mt4mrc\"]\n\n[execute]\ncache = false\n\n[[execute.models]]\nname = \"keyword\"\n\
             command = [\"python3\", {:?}, \"keyword\"]\n",
            sample.display().to_string(),
            model.display().to_string()
        ),
    )
    .unwrap();
    let pipeline = run_pipeline(&config, &PipelineOptions::default()).unwrap();
    assert!(pipeline.summary.relations.len() > 1);

    let out = dir.path().join("cluster");
    let glob = |kind: &str| out.join(kind).join("*.parquet").display().to_string();
    let validated = out.join("validated");
    let validated_cases = validated.join("case/*.parquet").display().to_string();
    let bins = bin_dir();
    // The validity step reads perturb's cases and writes beside them, in `validated/`; the
    // report counts a case met both unchecked and checked once, as checked.
    let stages: [(&str, String, Option<String>, &Path); 6] = [
        ("read", sample.display().to_string(), None, &out),
        ("parse", glob("example"), None, &out),
        ("perturb", glob("example"), Some(glob("parsed")), &out),
        ("validate", glob("case"), None, &validated),
        ("execute", validated_cases.clone(), None, &out),
        ("judge", validated_cases, Some(glob("prediction")), &out),
    ];
    for (stage, input, input2, output) in stages {
        let mut submit = Command::new("sbatch");
        submit
            .args(["--wait", "--array=1-3", "--cpus-per-task=1", "--mem=1G"])
            .arg(root().join("deploy/slurm-array.sbatch"))
            .current_dir(dir.path())
            .env("SLURM_CONF", &cluster.conf)
            .env("STAGE", stage)
            .env("INPUT", &input)
            .env("OUTPUT", output)
            .env("CONFIG", &config)
            .env("BIN_DIR", &bins)
            .env("FORMAT", "boolq");
        if let Some(second) = &input2 {
            submit.env("INPUT2", second);
        }
        let result = submit.output().unwrap();
        let logs = job_logs(dir.path());
        assert!(
            result.status.success(),
            "{stage}: sbatch {:?}: {}\n{logs}",
            result.status,
            String::from_utf8_lossy(&result.stderr)
        );
        // `sbatch --wait` also returns 0 for a job cancelled while pending: check the work.
        for i in 1..=3 {
            let manifest = output.join(format!("_manifests/{stage}.part-0000{i}-of-00003.json"));
            assert!(
                manifest.is_file(),
                "{stage}: no {}\n{logs}",
                manifest.display()
            );
        }
    }
    // The judge's shards each summarise the verdicts there when they finish; the merged
    // summary is `metamorph-judge report` over the output.
    let report = Command::new(bins.join("metamorph-judge"))
        .args(["report", "--quiet"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    // Both read back from their files, so both go through the same float parsing.
    let read = |path: &Path| -> Summary {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    assert_eq!(
        read(&out.join("summary.json")),
        read(&pipeline.summary_path)
    );
}

/// The jobs' log files (`metamorph-<job>_<task>.log` in the submit folder), for failures.
fn job_logs(dir: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("metamorph-") && name.ends_with(".log") {
            let body = std::fs::read_to_string(entry.path()).unwrap_or_default();
            text.push_str(&format!("--- {name}\n{body}"));
        }
    }
    text
}
