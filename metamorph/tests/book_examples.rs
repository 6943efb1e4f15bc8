//! The examples in README.md and the book (`docs/src/*.md`) that claim to run, do:
//!
//! * every ` ```toml ` block is a pipeline config or a fragment of one: it parses, names only
//!   the sections the pipeline reads, and every section deserialises with the keys its stage
//!   accepts (`metamorph::check_config`). ` ```toml,ignore ` blocks are not checked.
//! * every command in a ` ```sh ` block that runs metamorph (`cargo xtask …`, `metamorph …`, `metamorph-<stage>
//!   …`) names subcommands and flags that exist: they are looked up in the real binaries'
//!   `--help`. Other commands (pip, python, sbatch) and ` ```sh,ignore ` blocks are not checked.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use metamorph_data::ConfigFile;

/// The stage binaries `metamorph stage NAME` and `cargo xtask stage NAME` run.
const STAGES: [&str; 7] = [
    "read", "parse", "perturb", "generate", "validate", "execute", "judge",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fenced code block: its info string, its text and where it starts (`file:line`).
struct Block {
    info: String,
    text: String,
    at: String,
}

/// The fenced code blocks of a Markdown file (backtick fences, any indentation).
fn blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    let mut out = Vec::new();
    let mut open: Option<(usize, String, Vec<&str>)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((n + 1, info.trim().to_string(), Vec::new()));
                }
            }
            Some((start, info, mut lines)) => {
                if trimmed.starts_with("```") {
                    out.push(Block {
                        info,
                        text: lines.join("\n"),
                        at: format!("{name}:{start}"),
                    });
                } else {
                    lines.push(line);
                    open = Some((start, info, lines));
                }
            }
        }
    }
    assert!(open.is_none(), "{name}: a code fence is never closed");
    out
}

/// README.md and every chapter of the book.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let src = root().join("docs/src");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    files.extend(chapters);
    files
}

fn all_blocks(language: &str) -> Vec<Block> {
    documents()
        .iter()
        .flat_map(|p| blocks(p))
        .filter(|b| b.info == language)
        .collect()
}

#[test]
fn every_toml_example_is_a_valid_pipeline_config() {
    let blocks = all_blocks("toml");
    assert!(
        blocks.len() >= 10,
        "only {} toml examples found",
        blocks.len()
    );
    let failures: Vec<String> = blocks
        .iter()
        .filter_map(|b| {
            ConfigFile::parse(&b.text, &b.at)
                .and_then(|file| metamorph::check_config(&file))
                .err()
                .map(|e| e.to_string())
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Shell words of one command line (single and double quotes, no expansion).
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The commands of a shell block: continuation lines joined, comments and prompts dropped,
/// `&&`, `||`, `;` and `|` separating commands.
fn commands(text: &str) -> Vec<Vec<String>> {
    let joined = text.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let line = line.trim();
        let line = line.strip_prefix("$ ").unwrap_or(line);
        if line.starts_with('#') {
            continue;
        }
        let mut current = Vec::new();
        for word in words(line) {
            if word.starts_with('#') {
                break;
            }
            if ["&&", "||", ";", "|"].contains(&word.as_str()) {
                out.push(std::mem::take(&mut current));
            } else {
                current.push(word);
            }
        }
        out.push(current);
    }
    out.retain(|c| !c.is_empty());
    out
}

/// Runs `--help` of the binaries the commands name, once per subcommand path.
struct HelpCache {
    dir: PathBuf,
    cache: RefCell<HashMap<Vec<String>, Option<String>>>,
}

impl HelpCache {
    fn new() -> Self {
        let metamorph = PathBuf::from(env!("CARGO_BIN_EXE_metamorph"));
        HelpCache {
            dir: metamorph.parent().unwrap().to_path_buf(),
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// The binary `name`, built (same profile) if this test run has not built it yet.
    fn binary(&self, name: &str) -> PathBuf {
        let path = self.dir.join(name);
        if !path.is_file() {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = Command::new(cargo)
                .current_dir(root())
                .args(["build", "--quiet", "--bin", name])
                .status()
                .unwrap();
            assert!(status.success(), "cannot build {name}");
        }
        path
    }

    /// The help text of `binary path… --help`, or `None` when that is no valid command.
    fn help(&self, binary: &str, path: &[String]) -> Option<String> {
        let mut key = vec![binary.to_string()];
        key.extend_from_slice(path);
        if let Some(known) = self.cache.borrow().get(&key) {
            return known.clone();
        }
        let output = Command::new(self.binary(binary))
            .args(path)
            .arg("--help")
            .output()
            .unwrap();
        let help = output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).into_owned());
        self.cache.borrow_mut().insert(key, help.clone());
        help
    }
}

/// Whether `help` documents `flag` (`--output`, `-q`) as a whole word.
fn documents_flag(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(i, _)| {
        let before = help[..i].chars().next_back();
        let after = help[i + flag.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

/// Checks one invocation of `binary` with `args`: the leading words that are subcommands
/// (the usage line of their help names them) and then every flag before a `--`.
fn check_invocation(helps: &HelpCache, binary: &str, args: &[String]) -> Result<(), String> {
    let mut path: Vec<String> = Vec::new();
    let Some(mut help) = helps.help(binary, &path) else {
        return Err(format!("`{binary} --help` fails"));
    };
    for arg in args {
        if arg.starts_with('-') {
            break;
        }
        let mut longer = path.clone();
        longer.push(arg.clone());
        let usage = format!("{binary} {}", longer.join(" "));
        match helps.help(binary, &longer) {
            Some(sub) if sub.lines().any(|l| l.contains(&usage)) => {
                path = longer;
                help = sub;
            }
            _ => break,
        }
    }
    for arg in args.iter().take_while(|a| *a != "--") {
        if !arg.starts_with('-') || arg == "-" {
            continue;
        }
        let flag = arg.split('=').next().unwrap();
        if !documents_flag(&help, flag) {
            return Err(format!(
                "`{binary} {}` has no flag `{flag}`",
                path.join(" ")
            ));
        }
    }
    Ok(())
}

/// Checks `<runner> stage NAME [--] FLAGS…`: the stage exists and its binary takes the flags.
fn check_stage(helps: &HelpCache, runner: &str, args: &[String]) -> Result<(), String> {
    let Some(name) = args.first() else {
        return Err(format!("`{runner} stage` without a stage name"));
    };
    if !STAGES.contains(&name.as_str()) {
        return Err(format!("`{runner} stage {name}`: no such stage"));
    }
    let rest: Vec<String> = args[1..]
        .iter()
        .skip_while(|a| *a == "--")
        .cloned()
        .collect();
    check_invocation(helps, &format!("metamorph-{name}"), &rest)
}

/// Checks one shell command if it runs metamorph; `Ok(false)` when it is not ours to check.
fn check_command(helps: &HelpCache, words: &[String]) -> Result<bool, String> {
    // Environment assignments before the command (`METAMORPH_LOG=debug cargo xtask …`).
    let words: Vec<String> = words
        .iter()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .cloned()
        .collect();
    match words.first().map(String::as_str) {
        Some("cargo") if words.get(1).is_some_and(|w| w == "xtask") => {
            let args = &words[2..];
            match args.first().map(String::as_str) {
                Some("stage") => check_stage(helps, "cargo xtask", &args[1..])?,
                // What follows `--` goes to cargo bench.
                Some("bench") => check_invocation(helps, "xtask", &args[..1])?,
                _ => check_invocation(helps, "xtask", args)?,
            }
            Ok(true)
        }
        Some("metamorph") => {
            let args = &words[1..];
            match args.first().map(String::as_str) {
                Some("stage") => check_stage(helps, "metamorph", &args[1..])?,
                _ => check_invocation(helps, "metamorph", args)?,
            }
            Ok(true)
        }
        Some(binary) if binary.starts_with("metamorph-") => {
            let name = binary.trim_start_matches("metamorph-");
            if !STAGES.contains(&name) {
                return Err(format!("`{binary}`: no such binary"));
            }
            check_invocation(helps, binary, &words[1..])?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

#[test]
fn every_shell_example_uses_real_subcommands_and_flags() {
    let helps = HelpCache::new();
    let mut checked = 0;
    let mut failures = Vec::new();
    for block in all_blocks("sh") {
        for command in commands(&block.text) {
            match check_command(&helps, &command) {
                Ok(true) => checked += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{}: {e}\n    {}", block.at, command.join(" "))),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 10, "only {checked} metamorph commands checked");
}

#[test]
fn the_checker_rejects_what_does_not_exist() {
    let helps = HelpCache::new();
    let bad = |line: &str| check_command(&helps, &words(line)).is_err();
    assert!(bad("cargo xtask pipeline --no-such-flag"));
    assert!(bad("cargo xtask stage judge -- --no-such-flag"));
    assert!(bad("cargo xtask stage nosuchstage -- --input x"));
    assert!(bad("metamorph preview --no-such-flag"));
    assert!(bad("metamorph-perturb preview --dataset x"));
    assert!(bad("metamorph stage nosuchstage -- --input x"));
    assert!(!bad("cargo xtask pipeline --config metamorph.toml --force"));
    assert!(!bad("metamorph preview --dataset data/samples/boolq.jsonl"));
    let toml =
        |text: &str| ConfigFile::parse(text, "example").and_then(|f| metamorph::check_config(&f));
    assert!(toml("[perturb]\nno_such_key = 1").is_err());
    assert!(toml("[nosuchsection]\nx = 1").is_err());
    assert!(toml("[pipeline]\nshards = 2").is_ok());
}

#[test]
fn shell_words_and_commands_are_split_like_a_shell() {
    assert_eq!(words("a 'b c' \"d\"e"), ["a", "b c", "de"]);
    assert_eq!(
        commands("cargo xtask a \\\n  --b 1 && metamorph-judge x # note\n# only a comment"),
        [
            vec!["cargo", "xtask", "a", "--b", "1"],
            vec!["metamorph-judge", "x"]
        ]
    );
}
