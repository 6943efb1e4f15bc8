//! `cargo xtask report-check`: renders a `report.html` in headless Chromium, offline, and saves
//! a screenshot, so that a change to the report is checked in a real browser (layout, inline
//! SVG, the filter script) and not only as text.
//!
//! Chromium runs as Debian's `chromium` package documents for containers and root: `--headless
//! --no-sandbox --disable-gpu --disable-dev-shm-usage`, with a throw-away profile
//! (`--user-data-dir`), and with every host name resolving to nothing
//! (`--host-resolver-rules="MAP * ~NOTFOUND"`), so a report that needed the network would
//! render broken instead of silently fetching. Script errors on the page fail the check.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

/// Browser executables tried, in order, on `PATH` (after `$CHROMIUM`).
pub const CHROMIUM_NAMES: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// What to tell a user without a browser.
pub const INSTALL_HINT: &str = "headless Chromium not found: install it (Debian/Ubuntu: \
`sudo apt-get install chromium`) or set CHROMIUM=/path/to/chromium";

/// Finds the browser: `override_path` (from `$CHROMIUM`) if given, else the first of
/// [`CHROMIUM_NAMES`] in the directories of `path_var` (a `PATH` value).
///
/// # Errors
/// [`INSTALL_HINT`] when there is none.
pub fn find_chromium(
    override_path: Option<OsString>,
    path_var: Option<OsString>,
) -> anyhow::Result<PathBuf> {
    if let Some(p) = override_path.filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        bail!("CHROMIUM={} is not a file; {INSTALL_HINT}", p.display());
    }
    for dir in std::env::split_paths(&path_var.unwrap_or_default()) {
        for name in CHROMIUM_NAMES {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    bail!("{INSTALL_HINT}")
}

/// Screenshot size in CSS pixels.
pub const WINDOW: (u32, u32) = (1200, 1000);

fn run(chromium: &Path, args: &[OsString], limit: Duration) -> anyhow::Result<(String, String)> {
    let mut child = Command::new(chromium)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", chromium.display()))?;
    let start = Instant::now();
    // Output is small (a DOM of a few hundred KB at most, a few log lines); read it after exit
    // on separate threads so a full pipe cannot stall the browser.
    let mut out = child.stdout.take().context("no stdout")?;
    let mut err = child.stderr.take().context("no stderr")?;
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    loop {
        if let Some(status) = child.try_wait()? {
            let (stdout, stderr) = (
                out_thread.join().unwrap_or_default(),
                err_thread.join().unwrap_or_default(),
            );
            if !status.success() {
                bail!("{} failed ({status}):\n{stderr}", chromium.display());
            }
            return Ok((stdout, stderr));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "{} did not finish within {} s",
                chromium.display(),
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The page at `url` after its scripts ran (`--dump-dom`), and the browser's log (console
/// messages included), rendered offline.
///
/// # Errors
/// Browser failures or time-outs.
pub fn dump_dom(chromium: &Path, url: &str) -> anyhow::Result<(String, String)> {
    let profile = tempfile::tempdir().context("temporary browser profile")?;
    run(
        chromium,
        &browser_args(profile.path(), &["--dump-dom".into()], url),
        LIMIT,
    )
}

const LIMIT: Duration = Duration::from_secs(90);

fn browser_args(profile: &Path, extra: &[String], url: &str) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-sync",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--enable-logging=stderr",
        "--v=0",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    args.push(format!("--user-data-dir={}", profile.display()).into());
    args.extend(extra.iter().map(OsString::from));
    args.push(url.into());
    args
}

/// Renders `report` (an HTML file) with `chromium`: checks that the page loads without script
/// errors and shows the overview, then writes a PNG screenshot to `png` (atomically).
///
/// # Errors
/// Browser failures or time-outs, script errors on the page, a page without the overview, IO.
pub fn check_report(chromium: &Path, report: &Path, png: &Path) -> anyhow::Result<()> {
    let report = report
        .canonicalize()
        .with_context(|| format!("{}: no report to check", report.display()))?;
    let url = format!("file://{}", report.display());
    let (dom, log) = dump_dom(chromium, &url)?;
    if let Some(line) = log
        .lines()
        .find(|l| l.contains("Uncaught") || l.contains("SyntaxError"))
    {
        bail!("script error in {}: {line}", report.display());
    }
    for needle in ["metamorph report", "id=\"f-model\""] {
        if !dom.contains(needle) {
            bail!(
                "{}: the rendered page lacks `{needle}`; is it a metamorph report?",
                report.display()
            );
        }
    }

    if let Some(dir) = png.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    // Chromium decides the format from the extension, so the temporary name ends in .png.
    let name = png
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report.png".into());
    let tmp = png.with_file_name(format!(".{name}.tmp-report-check.png"));
    let shot = vec![
        format!("--window-size={},{}", WINDOW.0, WINDOW.1),
        format!("--screenshot={}", tmp.display()),
    ];
    let profile = tempfile::tempdir().context("temporary browser profile")?;
    run(chromium, &browser_args(profile.path(), &shot, &url), LIMIT)?;
    let bytes =
        std::fs::read(&tmp).with_context(|| format!("no screenshot at {}", tmp.display()))?;
    if !bytes.starts_with(b"\x89PNG") {
        let _ = std::fs::remove_file(&tmp);
        bail!("{} is not a PNG", tmp.display());
    }
    std::fs::rename(&tmp, png).with_context(|| format!("renaming to {}", png.display()))?;
    Ok(())
}
