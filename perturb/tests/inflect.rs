//! `lexicon::inflect` against real lemminflect 0.2.3 (fixture written by
//! `scripts/lemminflect_golden.py`), its rule fallbacks on invented words, and its errors on
//! malformed table files.

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use metamorph_data::Error;
use metamorph_perturb::lexicon::inflect::{
    rule_inflect, rule_lemma, Inflected, Inflections, Person, Source, INFL_LU, INFL_OVERRIDES,
    LEMMA_LU, LEMMA_OVERRIDES,
};

fn tables() -> &'static Inflections {
    static TABLES: OnceLock<Inflections> = OnceLock::new();
    TABLES.get_or_init(|| Inflections::from_assets().unwrap_or_else(|e| panic!("{e}")))
}

fn split(spellings: &str) -> Vec<String> {
    if spellings.is_empty() {
        Vec::new()
    } else {
        spellings.split('/').map(str::to_string).collect()
    }
}

/// Compares every line of a golden file; returns (inflection agree, total, lemma agree, total)
/// and the first disagreements.
fn compare(golden: &str) -> ([usize; 4], Vec<String>) {
    let t = tables();
    let mut counts = [0; 4];
    let mut wrong = Vec::new();
    for line in golden.lines().filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 4, "bad golden line {line:?}");
        let expected = split(fields[3]);
        let (got, first, k) = match fields[0] {
            "I" => (
                t.inflect_all(fields[1], fields[2]),
                t.inflect(fields[1], fields[2]),
                0,
            ),
            "L" => (
                t.lemmas(fields[1], fields[2]),
                t.lemma(fields[1], fields[2]),
                2,
            ),
            other => panic!("bad golden kind {other:?}"),
        };
        counts[k + 1] += 1;
        if got == expected && first.as_ref() == expected.first() {
            counts[k] += 1;
        } else if wrong.len() < 20 {
            wrong.push(format!("{line:?}: got {got:?} / {first:?}"));
        }
    }
    (counts, wrong)
}

#[test]
fn agrees_with_lemminflect_on_the_golden_words() {
    let golden = include_str!("fixtures/lemminflect_golden.tsv");
    let (counts, wrong) = compare(golden);
    eprintln!(
        "inflections {}/{}, lemmas {}/{}",
        counts[0], counts[1], counts[2], counts[3]
    );
    assert!(counts[1] > 4000 && counts[3] > 1000, "{counts:?}");
    assert!(wrong.is_empty(), "{counts:?}\n{}", wrong.join("\n"));
}

/// Every word of the tables under every tag and upos: run
/// `python3 scripts/lemminflect_golden.py --full /tmp/full.tsv.gz` then
/// `LEMMINFLECT_FULL=/tmp/full.tsv.gz cargo test -p metamorph-perturb --test integration inflect:: -- --ignored`.
#[test]
#[ignore = "needs the exhaustive golden file from scripts/lemminflect_golden.py --full"]
fn full_table_agreement() {
    let path = std::env::var("LEMMINFLECT_FULL").expect("LEMMINFLECT_FULL=<file from --full>");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()),
        &mut text,
    )
    .unwrap();
    let (counts, wrong) = compare(&text);
    eprintln!(
        "inflections {}/{}, lemmas {}/{}",
        counts[0], counts[1], counts[2], counts[3]
    );
    assert!(wrong.is_empty(), "{counts:?}\n{}", wrong.join("\n"));
}

#[test]
fn irregulars_the_relations_need() {
    let t = tables();
    for (lemma, tag, form) in [
        ("be", "VB", "be"),
        ("be", "VBD", "was"),
        ("be", "VBN", "been"),
        ("be", "VBZ", "is"),
        ("be", "VBG", "being"),
        ("have", "VBD", "had"),
        ("have", "VBZ", "has"),
        ("do", "VBD", "did"),
        ("do", "VBN", "done"),
        ("do", "VBZ", "does"),
        ("go", "VBD", "went"),
        ("go", "VBN", "gone"),
        ("go", "VBZ", "goes"),
        ("write", "VBN", "written"),
        ("take", "VBD", "took"),
        ("see", "VBN", "seen"),
        ("child", "NNS", "children"),
        ("man", "NNS", "men"),
        ("good", "JJR", "better"),
        ("good", "JJS", "best"),
        ("bad", "JJR", "worse"),
        ("big", "JJR", "bigger"),
        ("can", "VBD", "could"),
    ] {
        assert_eq!(
            t.inflect(lemma, tag).as_deref(),
            Some(form),
            "{lemma} {tag}"
        );
    }
    assert_eq!(t.inflect_all("be", "VBD"), ["was", "were"]);
    assert_eq!(t.lemma("were", "AUX").as_deref(), Some("be"));
    assert_eq!(t.lemma("went", "VERB").as_deref(), Some("go"));
    assert_eq!(t.lemma("children", "NOUN").as_deref(), Some("child"));
    assert_eq!(t.lemma("Went", "VERB").as_deref(), Some("Go"));
    let table = |form: &str| {
        Some(Inflected {
            form: form.to_string(),
            source: Source::Table,
        })
    };
    assert_eq!(t.past("go"), table("went"));
    assert_eq!(t.past_participle("take"), table("taken"));
    assert_eq!(t.third_singular("do"), table("does"));
    assert_eq!(t.gerund("run"), table("running"));
    assert_eq!(t.plural("woman"), table("women"));
    assert_eq!(t.comparative("happy"), table("happier"));
    assert_eq!(t.superlative("far"), table("farthest"));
}

#[test]
fn confirmed_lemmas_undo_spacys_later_rule_ties() {
    let t = tables();
    // spaCy ≥ 3.8.8's lemma on the left; the one whose forms include the word on the right.
    for (word, spacy, upos, expected) in [
        ("hopes", "hop", "VERB", "hope"),
        ("riding", "rid", "VERB", "ride"),
        ("staged", "stag", "VERB", "stage"),
        ("rated", "rat", "VERB", "rate"),
        ("motives", "motif", "NOUN", "motive"),
        // The parser's lemma is kept where it is right, and for a real tie.
        ("hops", "hop", "VERB", "hop"),
        ("ran", "run", "VERB", "run"),
        ("axes", "axis", "NOUN", "axis"),
        ("Geese", "goose", "NOUN", "goose"),
        // Unknown words and other parts of speech: the parser's lemma.
        ("blorps", "blorp", "VERB", "blorp"),
        ("the", "the", "DET", "the"),
    ] {
        assert_eq!(t.confirmed_lemma(word, spacy, upos), expected, "{word}");
    }
}

#[test]
fn be_agrees_with_its_subject() {
    let t = tables();
    let be = |tag, person, plural| t.be_form(tag, person, plural);
    assert_eq!(be("VBD", Person::First, false).as_deref(), Some("was"));
    assert_eq!(be("VBD", Person::Third, false).as_deref(), Some("was"));
    assert_eq!(be("VBD", Person::Second, false).as_deref(), Some("were"));
    assert_eq!(be("VBD", Person::Third, true).as_deref(), Some("were"));
    assert_eq!(be("VBP", Person::First, false).as_deref(), Some("am"));
    assert_eq!(be("VBZ", Person::Third, false).as_deref(), Some("is"));
    assert_eq!(be("VBP", Person::First, true).as_deref(), Some("are"));
    assert_eq!(be("VBZ", Person::Second, false).as_deref(), Some("are"));
    assert_eq!(be("VBN", Person::Third, true).as_deref(), Some("been"));
}

#[test]
fn rules_inflect_invented_words() {
    let t = tables();
    let rule = |form: &str| {
        Some(Inflected {
            form: form.to_string(),
            source: Source::Rule,
        })
    };
    for (lemma, tag, form) in [
        ("blorp", "VBD", "blorped"),
        ("blorp", "VBN", "blorped"),
        ("blorp", "VBZ", "blorps"),
        ("blorp", "VBG", "blorping"),
        ("stap", "VBD", "stapped"),
        ("stap", "VBG", "stapping"),
        ("glizz", "VBZ", "glizzes"),
        ("glizz", "NNS", "glizzes"),
        ("glarry", "VBD", "glarried"),
        ("glarry", "VBZ", "glarries"),
        ("glarry", "NNS", "glarries"),
        ("snibe", "VBD", "snibed"),
        ("snibe", "VBG", "snibing"),
        ("snie", "VBG", "snying"),
        ("snee", "VBG", "sneeing"),
        ("blosh", "VBZ", "bloshes"),
        ("gloay", "VBD", "gloayed"),
        ("flox", "VBD", "floxed"),
        ("sprow", "VBD", "sprowed"),
        ("plon", "JJR", "plonner"),
        ("plon", "JJS", "plonnest"),
        ("gromy", "JJR", "gromier"),
        ("snube", "JJS", "snubest"),
        ("florimious", "JJR", "more florimious"),
        ("blorply", "RBS", "most blorply"),
        ("Blorp", "VBD", "Blorped"),
        ("BLORP", "VBZ", "BLORPS"),
    ] {
        assert_eq!(t.inflect(lemma, tag), None, "{lemma} is not invented");
        assert_eq!(t.inflect_or_rule(lemma, tag), rule(form), "{lemma} {tag}");
    }
    // The doubling rule on real words agrees with the tables.
    assert_eq!(rule_inflect("fizz", "VBZ").as_deref(), Some("fizzes"));
    assert_eq!(rule_inflect("carry", "VBZ").as_deref(), Some("carries"));
    for (lemma, past) in [
        ("carry", "carried"),
        ("stop", "stopped"),
        ("visit", "visited"),
        ("bake", "baked"),
    ] {
        assert_eq!(rule_inflect(lemma, "VBD").as_deref(), Some(past));
        assert_eq!(t.past(lemma).map(|i| i.form).as_deref(), Some(past));
    }
    assert_eq!(t.past("carry").map(|i| i.source), Some(Source::Table));
    // Known words without the form: modals have no -s, uncomparable adjectives are periphrastic.
    assert_eq!(t.inflect_or_rule("must", "VBZ"), None);
    assert_eq!(t.comparative("beautiful"), rule("more beautiful"));
    assert_eq!(t.inflect_or_rule("blorp", "DT"), None);
    assert_eq!(t.inflect_or_rule("", "VBD"), None);
    assert_eq!(t.lemma("blorped", "VERB"), None);
}

#[test]
fn tables_are_shareable_and_compact() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Inflections>();
    let bytes = tables().heap_bytes();
    eprintln!("tables: {bytes} heap bytes");
    assert!(bytes < 8 << 20, "{bytes} bytes");
    // Loaded through the asset cache, so the offline lookup finds the same folder.
    let dir = metamorph_perturb::lexicon::inflect::installed_dir().expect("installed");
    assert!(dir.join(INFL_LU).is_file());
}

fn gz(path: &Path, text: &str) {
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
}

/// A small valid resources folder.
fn tiny(dir: &Path) {
    gz(
        &dir.join(INFL_LU),
        "walk,verb,walked,,walking,walks\nwalk,noun,walks\n",
    );
    gz(&dir.join(LEMMA_LU), "walked,verb,walk\nwalks,noun,walk\n");
    std::fs::write(dir.join(INFL_OVERRIDES), "# comment\nwalk,VBN,walken\n").unwrap();
    std::fs::write(dir.join(LEMMA_OVERRIDES), "# comment\n\nwalken,VERB,walk\n").unwrap();
}

fn malformed_at(err: Error, file: &str, line: &str) {
    match &err {
        Error::Malformed { path, location, .. } => {
            assert!(path.ends_with(file), "{err}");
            assert_eq!(location, line, "{err}");
            let shown = err.to_string();
            assert!(shown.contains(file) && shown.contains(line), "{shown}");
        }
        other => panic!("expected Malformed, got {other}"),
    }
}

#[test]
fn loads_a_tiny_folder() {
    let dir = tempfile::tempdir().unwrap();
    tiny(dir.path());
    let t = Inflections::load(dir.path()).unwrap();
    assert_eq!(t.inflect("walk", "VBN").as_deref(), Some("walken"));
    assert_eq!(t.inflect("walk", "VBD").as_deref(), Some("walked"));
    assert_eq!(t.inflect("Walk", "NNS").as_deref(), Some("Walks"));
    assert_eq!(t.lemma("walken", "VERB").as_deref(), Some("walk"));
    assert_eq!(t.inflect("be", "VBD").as_deref(), Some("was"));
}

#[test]
fn malformed_files_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    tiny(dir.path());
    gz(
        &dir.path().join(INFL_LU),
        "walk,verb,walked\nwalk,noun,walks\nwalk,thing,x\n",
    );
    malformed_at(
        Inflections::load(dir.path()).unwrap_err(),
        INFL_LU,
        "line 3",
    );

    tiny(dir.path());
    gz(&dir.path().join(LEMMA_LU), "walked,verb,walk\nwalks,noun\n");
    malformed_at(
        Inflections::load(dir.path()).unwrap_err(),
        LEMMA_LU,
        "line 2",
    );

    tiny(dir.path());
    std::fs::write(dir.path().join(INFL_OVERRIDES), "# c\nwalk,VBX,walken\n").unwrap();
    malformed_at(
        Inflections::load(dir.path()).unwrap_err(),
        INFL_OVERRIDES,
        "line 2",
    );

    tiny(dir.path());
    std::fs::write(dir.path().join(LEMMA_OVERRIDES), "a,NOUN,a\nb,NOUN\n").unwrap();
    malformed_at(
        Inflections::load(dir.path()).unwrap_err(),
        LEMMA_OVERRIDES,
        "line 2",
    );

    tiny(dir.path());
    std::fs::write(dir.path().join(INFL_LU), "not gzip").unwrap();
    let err = Inflections::load(dir.path()).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path, .. } if path.ends_with(INFL_LU)),
        "{err}"
    );

    std::fs::remove_file(dir.path().join(LEMMA_LU)).unwrap();
    tiny(dir.path());
    std::fs::remove_file(dir.path().join(LEMMA_OVERRIDES)).unwrap();
    let err = Inflections::load(dir.path()).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path, .. } if path.ends_with(LEMMA_OVERRIDES)),
        "{err}"
    );
}

#[test]
fn rule_lemmas_invert_the_rules() {
    let t = tables();
    for (lemma, tag, upos) in [
        ("blorp", "VBD", "VERB"),
        ("blorp", "VBG", "VERB"),
        ("blorp", "VBZ", "VERB"),
        ("stap", "VBD", "VERB"),
        ("stap", "VBG", "VERB"),
        ("snibe", "VBD", "VERB"),
        ("snibe", "VBG", "VERB"),
        ("glarry", "VBD", "VERB"),
        ("glarry", "VBZ", "VERB"),
        ("glizz", "VBZ", "VERB"),
        ("blosh", "VBZ", "VERB"),
        ("glizz", "NNS", "NOUN"),
        ("glarry", "NNS", "NOUN"),
        ("blorp", "NNS", "NOUN"),
        ("plon", "JJR", "ADJ"),
        ("plon", "JJS", "ADJ"),
        ("gromy", "JJR", "ADJ"),
        ("snube", "JJS", "ADJ"),
        ("florimious", "JJR", "ADJ"),
    ] {
        let form = rule_inflect(lemma, tag).unwrap();
        assert_eq!(
            rule_lemma(&form, upos).as_deref(),
            Some(lemma),
            "{form} {upos}"
        );
        let got = t.lemma_or_rule(&form, upos);
        let want = Inflected {
            form: lemma.to_string(),
            source: Source::Rule,
        };
        assert_eq!(got, Some(want), "{form} {upos}");
    }
    assert_eq!(
        t.lemma_or_rule("Blorped", "VERB")
            .map(|i| i.form)
            .as_deref(),
        Some("Blorp")
    );
    assert_eq!(
        t.lemma_or_rule("went", "VERB"),
        Some(Inflected {
            form: "go".to_string(),
            source: Source::Table
        })
    );
    // A listed word keeps lemminflect's answer even when it has none for that upos.
    assert_eq!(t.lemma("went", "NOUN"), None);
    assert_eq!(t.lemma_or_rule("went", "NOUN"), None);
    assert_eq!(rule_lemma("blorped", "DET"), None);
    assert_eq!(rule_lemma("", "VERB"), None);
    assert_eq!(rule_lemma("glass", "NOUN").as_deref(), Some("glass"));
}

#[test]
fn degree_words_take_only_periphrastic_adjectives() {
    let t = tables();
    // "the most difficult part" → not "the most hard part".
    assert!(!t.fits_after_degree_word("most", "hard"));
    assert!(!t.fits_after_degree_word("More", "big"));
    assert!(t.fits_after_degree_word("most", "beautiful"));
    assert!(t.fits_after_degree_word("the", "hard"));
}
