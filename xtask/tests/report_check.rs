//! `cargo xtask report-check`'s browser lookup and check. The rendering test runs only where a
//! Chromium is installed (it prints `SKIPPED` otherwise), like the tests that need
//! `../shared/data`.

use std::ffi::OsString;

use xtask::report_check::{check_report, dump_dom, find_chromium, INSTALL_HINT};

#[test]
fn a_missing_browser_is_a_clear_install_hint() {
    let dir = tempfile::tempdir().unwrap();
    let err = find_chromium(None, Some(dir.path().as_os_str().to_owned()))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("apt-get install chromium") && err == INSTALL_HINT,
        "{err}"
    );
    let err = find_chromium(Some(OsString::from("/no/such/chromium")), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("/no/such/chromium") && err.contains("CHROMIUM="),
        "{err}"
    );
}

#[test]
fn a_browser_on_path_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("chromium-browser");
    std::fs::write(&fake, "").unwrap();
    let found = find_chromium(None, Some(dir.path().as_os_str().to_owned())).unwrap();
    assert_eq!(found, fake);
}

#[test]
fn a_report_renders_offline_without_script_errors() {
    let Ok(chromium) = find_chromium(std::env::var_os("CHROMIUM"), std::env::var_os("PATH")) else {
        metamorph_data::shared_data::skipped(format_args!("no Chromium ({INSTALL_HINT})"));
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let report =
        metamorph_judge::Report::new(metamorph_judge::Summary::default(), Vec::new(), "test");
    let html = dir.path().join("report.html");
    report.write_html(&html).unwrap();
    let png = dir.path().join("shots/report.png");
    check_report(&chromium, &html, &png).unwrap();
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));

    // A page whose script fails is rejected.
    let broken = dir.path().join("broken.html");
    let text = std::fs::read_to_string(&html)
        .unwrap()
        .replace("apply();\n})();", "apply(); missing();\n})();");
    std::fs::write(&broken, text).unwrap();
    let err = check_report(&chromium, &broken, &png)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("script error") && err.contains("missing"),
        "{err}"
    );
}

#[test]
fn the_filters_hide_other_models_in_a_real_browser() {
    let Ok(chromium) = find_chromium(std::env::var_os("CHROMIUM"), std::env::var_os("PATH")) else {
        metamorph_data::shared_data::skipped(format_args!("no Chromium ({INSTALL_HINT})"));
        return;
    };
    let verdict = |model: &str, mr: &str, holds: bool| metamorph_data::Verdict {
        case_id: format!("s:{mr}"),
        family: "mt4mrc".into(),
        mr: mr.into(),
        model: model.into(),
        source_ids: vec!["s".into()],
        source_output: "yes".into(),
        followup_output: "yes".into(),
        applicable: true,
        holds: Some(holds),
        detail: String::new(),
    };
    let verdicts = [
        verdict("model-a", "MR1-1", false),
        verdict("model-b", "MR1-1", true),
        verdict("model-b", "MR1-3", false),
    ];
    let report = metamorph_judge::Report::new(
        metamorph_judge::Summary::from_verdicts(&verdicts),
        Vec::new(),
        "filters",
    );
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    report.write_html(&html).unwrap();
    let url = format!("file://{}#model=model-b&mr=mt4mrc%2FMR1-3", html.display());
    let (dom, log) = dump_dom(&chromium, &url).unwrap();
    assert!(!log.contains("Uncaught"), "{log}");
    let row = |model: &str, mr: &str| {
        let start = format!("<tr data-model=\"{model}\" data-mr=\"mt4mrc/{mr}\"");
        let at = dom
            .find(&start)
            .unwrap_or_else(|| panic!("no row {model} {mr}"));
        dom[at..at + dom[at..].find('>').unwrap()].to_string()
    };
    // The address selected model-b and MR1-3: only that overview row stays visible.
    assert!(row("model-a", "MR1-1").contains("display: none"));
    assert!(row("model-b", "MR1-1").contains("display: none"));
    assert!(!row("model-b", "MR1-3").contains("display: none"));
}
