//! The WordNet reader against WordNet 3.1 facts and against NLTK 3.9.1 reading the same dict
//! (`scripts/wordnet_golden.py` → `tests/fixtures/wordnet_golden.json`).

use std::sync::OnceLock;
use std::time::Instant;

use metamorph_perturb::lexicon::wordnet::{Pos, Relation, Synset, WordNet};
use serde_json::Value;

fn wordnet() -> &'static WordNet {
    static WN: OnceLock<WordNet> = OnceLock::new();
    WN.get_or_init(|| {
        let start = Instant::now();
        let wn = WordNet::from_assets().expect("load WordNet");
        eprintln!(
            "WordNet loaded in {:.3} s: {} synsets, {} lemmas",
            start.elapsed().as_secs_f64(),
            wn.synset_count(),
            wn.lemma_count()
        );
        wn
    })
}

fn golden() -> &'static Value {
    static GOLDEN: OnceLock<Value> = OnceLock::new();
    GOLDEN.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/wordnet_golden.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("read golden")).expect("json")
    })
}

fn pos_of(v: &Value) -> Pos {
    Pos::from_tag(v.as_str().unwrap()).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn sorted_names(synsets: Vec<Synset<'_>>) -> Vec<String> {
    let mut names: Vec<String> = synsets.iter().map(|s| s.name()).collect();
    names.sort();
    names
}

fn dedup(list: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in list {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn names(wn: &WordNet, word: &str, pos: Pos) -> Vec<String> {
    wn.synsets(word, pos).iter().map(|s| s.name()).collect()
}

#[test]
fn load_time_and_size() {
    // Loads a second, private copy so the time is not hidden behind the shared one.
    let dir = metamorph_data::assets::ensure("wordnet").unwrap();
    let start = Instant::now();
    let wn = WordNet::load(&dir).unwrap();
    eprintln!(
        "WordNet::load: {:.3} s ({} synsets, {} lemmas)",
        start.elapsed().as_secs_f64(),
        wn.synset_count(),
        wn.lemma_count()
    );
    // WordNet 3.1: 117,791 synsets (82,192 noun, 13,789 verb, 18,156 adj, 3,625 adv)... as read.
    assert!(wn.synset_count() > 117_000, "{}", wn.synset_count());
    assert!(wn.lemma_count() > 140_000, "{}", wn.lemma_count());
}

#[test]
fn wordnet_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<WordNet>();
}

#[test]
fn words_match_nltk() {
    let wn = wordnet();
    for entry in golden()["words"].as_array().unwrap() {
        let word = entry["word"].as_str().unwrap();
        let pos = pos_of(&entry["pos"]);
        let ours = wn.synsets(word, pos);
        let theirs = entry["synsets"].as_array().unwrap();
        let what = format!("synsets({word:?}, {pos})");
        if word.contains(' ') {
            // NLTK does not map spaces to underscores and finds nothing; we do.
            assert!(theirs.is_empty(), "{what}");
            assert!(!ours.is_empty(), "{what}");
            assert_eq!(ours, wn.synsets(&word.replace(' ', "_"), pos), "{what}");
            continue;
        }
        assert_eq!(
            ours.iter().map(|s| s.name()).collect::<Vec<_>>(),
            theirs
                .iter()
                .map(|s| s["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>(),
            "{what}"
        );
        for (s, t) in ours.iter().zip(theirs) {
            let name = s.name();
            assert_eq!(s.offset() as u64, t["offset"].as_u64().unwrap(), "{name}");
            assert_eq!(
                s.pos_tag().to_string(),
                t["pos"].as_str().unwrap(),
                "{name}"
            );
            assert_eq!(s.lemma_names(), strings(&t["lemmas"]), "{name}");
            assert_eq!(s.definition(), t["definition"].as_str().unwrap(), "{name}");
            assert_eq!(s.examples(), strings(&t["examples"]), "{name}");
            assert_eq!(
                sorted_names(s.hypernyms()),
                strings(&t["hypernyms"]),
                "{name}"
            );
            assert_eq!(
                sorted_names(s.instance_hypernyms()),
                strings(&t["instance_hypernyms"]),
                "{name}"
            );
            assert_eq!(
                sorted_names(s.similar_tos()),
                strings(&t["similar_tos"]),
                "{name}"
            );
            for lemma in s.lemmas() {
                let expected: Vec<(String, String)> = t["antonyms"][lemma.name()]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
                    .collect();
                let got: Vec<(String, String)> = s
                    .lemma_antonyms(lemma.name())
                    .iter()
                    .map(|a| (a.synset().name(), a.name().to_string()))
                    .collect();
                assert_eq!(got, expected, "{name} lemma {}", lemma.name());
            }
        }
        let antonyms: Vec<String> = wn.antonyms(word, pos).into_iter().map(|w| w.raw).collect();
        assert_eq!(
            antonyms,
            dedup(strings(&entry["mt4mrc_antonyms"])),
            "antonyms of {what}"
        );
        // The authors compare with the word as written; all golden words are already lowercase
        // index forms or have no synonyms that differ only in case.
        let synonyms: Vec<String> = wn.synonyms(word, pos).into_iter().map(|w| w.raw).collect();
        let mut expected = dedup(strings(&entry["mt4mrc_synonyms"]));
        expected.retain(|s| *s != word.to_lowercase().replace(' ', "_"));
        assert_eq!(synonyms, expected, "synonyms of {what}");
    }
}

#[test]
fn morphy_matches_nltk_without_exceptions() {
    let wn = wordnet();
    for entry in golden()["morphy"].as_array().unwrap() {
        let form = entry["form"].as_str().unwrap();
        let pos = pos_of(&entry["pos"]);
        assert_eq!(
            wn.morphy(form, pos),
            strings(&entry["bases"]),
            "morphy({form:?}, {pos})"
        );
    }
}

#[test]
fn exceptions_from_lemminflect_reduce_irregular_forms() {
    let inflections = std::sync::Arc::new(
        metamorph_perturb::lexicon::inflect::Inflections::from_assets().expect("lemminflect"),
    );
    // A second copy: the shared one above stays exception-free for the NLTK golden tests.
    let wn = WordNet::from_assets()
        .expect("load WordNet")
        .with_exceptions(inflections);
    let plain = wordnet();
    // Irregular forms: nothing without exceptions, the base form with them (as NLTK's *.exc).
    for (form, pos, base) in [
        ("geese", Pos::Noun, "goose"),
        ("mice", Pos::Noun, "mouse"),
        ("ran", Pos::Verb, "run"),
        ("went", Pos::Verb, "go"),
        ("worse", Pos::Adj, "bad"),
        // A doubled consonant is beyond the rules too; WordNet's own adj.exc lists it.
        ("bigger", Pos::Adj, "big"),
    ] {
        assert!(
            !plain.morphy(form, pos).contains(&base.to_string()),
            "{form} without exceptions"
        );
        assert!(
            wn.morphy(form, pos).contains(&base.to_string()),
            "morphy({form:?}, {pos}) = {:?}",
            wn.morphy(form, pos)
        );
        assert!(wn.exceptions(form, pos).contains(&base.to_string()));
    }
    // Regular forms are the rules' business: no exception, the same answer as NLTK's rules.
    for (form, pos) in [
        ("dogs", Pos::Noun),
        ("walked", Pos::Verb),
        ("taller", Pos::Adj),
    ] {
        assert!(wn.exceptions(form, pos).is_empty(), "{form}");
        assert_eq!(wn.morphy(form, pos), plain.morphy(form, pos), "{form}");
    }
    // And synsets follow: "geese" now finds the goose synsets.
    let names: Vec<String> = wn
        .synsets("geese", Pos::Noun)
        .iter()
        .map(|s| s.name())
        .collect();
    assert!(names.contains(&"goose.n.01".to_string()), "{names:?}");
}

#[test]
fn index_sample_matches_nltk() {
    let wn = wordnet();
    let sample = golden()["sample"].as_array().unwrap();
    assert!(sample.len() > 1000);
    for entry in sample {
        let word = entry["word"].as_str().unwrap();
        let pos = pos_of(&entry["pos"]);
        assert_eq!(
            names(wn, word, pos),
            strings(&entry["synsets"]),
            "synsets({word:?}, {pos})"
        );
    }
}

#[test]
fn known_wordnet_facts() {
    let wn = wordnet();
    let good = names(wn, "good", Pos::Adj);
    assert_eq!(&good[..3], ["good.a.01", "full.s.06", "good.a.03"]);
    assert_eq!(good.len(), 21);
    assert_eq!(
        names(wn, "bank", Pos::Noun)[..2],
        ["bank.n.01", "depository_financial_institution.n.01"]
    );
    assert_eq!(names(wn, "fast", Pos::Adj)[0], "fast.a.01");

    let raw = |v: Vec<metamorph_perturb::lexicon::wordnet::Word>| -> Vec<String> {
        v.into_iter().map(|w| w.raw).collect()
    };
    assert_eq!(raw(wn.antonyms("good", Pos::Adj)), ["bad", "evil"]);
    assert_eq!(raw(wn.antonyms("big", Pos::Adj)), ["small", "little"]);
    let big = raw(wn.synonyms("big", Pos::Adj));
    assert_eq!(&big[..3], ["large", "bad", "prominent"]);
    assert!(!big.contains(&"big".to_string()));
    let fully = wn
        .synonyms("big", Pos::Adj)
        .into_iter()
        .find(|w| w.raw == "fully_grown")
        .unwrap();
    assert_eq!(fully.display, "fully grown");

    let dog = wn.synset_by_name("dog.n.01").unwrap();
    assert_eq!(
        dog.lemma_names(),
        ["dog", "domestic_dog", "Canis_familiaris"]
    );
    assert_eq!(
        sorted_names(dog.hypernyms()),
        ["canine.n.02", "domestic_animal.n.01"]
    );
    assert!(dog.instance_hypernyms().is_empty());
    assert_eq!(
        sorted_names(wn.hypernyms(dog)),
        ["canine.n.02", "domestic_animal.n.01"]
    );
    let einstein = &wn.synsets("Einstein", Pos::Noun)[0];
    assert!(einstein.hypernyms().is_empty());
    assert_eq!(
        sorted_names(einstein.hypernyms_and_instances()),
        ["physicist.n.01"]
    );

    let good_a = wn.synset_by_name("good.a.01").unwrap();
    let bad = wn.lemma_antonyms(good_a, "good");
    assert_eq!(bad.len(), 1);
    assert_eq!(
        (bad[0].synset().name(), bad[0].name()),
        ("bad.a.01".to_string(), "bad")
    );
    assert!(good_a.lemma_antonyms("nonexistent").is_empty());
    assert!(good_a
        .pointers()
        .iter()
        .any(|p| p.relation == Relation::Antonym && p.is_lexical()));

    // Morphy: the detachment rules only (the package has no exception lists).
    assert_eq!(names(wn, "dogs", Pos::Noun)[0], "dog.n.01");
    assert_eq!(wn.morphy("dogs", Pos::Noun), ["dog"]);
    assert_eq!(wn.morphy("runs", Pos::Verb), ["run"]);
    assert!(wn.morphy("running", Pos::Verb).is_empty(), "needs verb.exc");
    assert!(wn.morphy("geese", Pos::Noun).is_empty(), "needs noun.exc");
    // Normalisation: case and spaces.
    assert_eq!(names(wn, "Ice Cream", Pos::Noun), ["ice_cream.n.01"]);
    let marker = wn.synset_by_name("big.s.08").unwrap();
    assert_eq!(marker.lemmas().next().unwrap().name(), "big");
}

#[test]
fn unknown_and_hostile_inputs_give_nothing() {
    let wn = wordnet();
    for word in [
        "xyzzy",
        "",
        " ",
        "\0",
        "ß",
        "İİİ",
        "s",
        "es",
        "ing",
        "'",
        "_",
        "__",
        "a b  c",
        "🦀",
        "\u{301}",
        &"x".repeat(10_000),
    ] {
        for pos in Pos::ALL {
            let _ = wn.synsets(word, pos);
            let _ = wn.antonyms(word, pos);
            let _ = wn.synonyms(word, pos);
            let _ = wn.morphy(word, pos);
        }
    }
    assert!(wn.synsets("xyzzy", Pos::Noun).is_empty());
    assert!(wn.antonyms("xyzzy", Pos::Adj).is_empty());
    assert!(wn.synonyms("", Pos::Adj).is_empty());
    for name in [
        "", ".", "..", "dog", "dog.n", "dog.n.00", "dog.n.99", "dog.x.01", "dog.n.-1", "...01",
    ] {
        assert!(wn.synset_by_name(name).is_none(), "{name:?}");
    }
    assert!(wn.synset_at(Pos::Noun, 1).is_none());
}

fn broken_copy(file: &str, edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let src = metamorph_data::assets::ensure("wordnet").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let text = if name == file { edit(&text) } else { text };
        std::fs::write(tmp.path().join(name), text).unwrap();
    }
    tmp
}

/// Replaces the `n`-th (1-based) line.
fn replace_line(text: &str, n: usize, with: impl Fn(&str) -> String) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| if i + 1 == n { with(l) } else { l.to_string() })
        .collect()
}

#[test]
fn malformed_files_name_file_and_line() {
    // data.adv line 40: a pointer count that is not a number (same length, offsets stay valid).
    let tmp = broken_copy("data.adv", |t| {
        replace_line(t, 40, |l| {
            let cols: Vec<&str> = l.split(' ').collect();
            let n = u32::from_str_radix(cols[3], 16).unwrap() as usize;
            let at = 4 + 2 * n;
            let mut cols: Vec<String> = cols.iter().map(|s| s.to_string()).collect();
            cols[at] = "x".repeat(cols[at].len());
            cols.join(" ")
        })
    });
    let err = WordNet::load(tmp.path()).unwrap_err().to_string();
    assert!(
        err.contains("data.adv") && err.contains("line 40") && err.contains("p_cnt"),
        "{err}"
    );

    // data.adv line 41: the first pointer aims at an offset where no synset starts.
    let tmp = broken_copy("data.adv", |t| {
        replace_line(t, 41, |l| {
            let mut cols: Vec<String> = l.split(' ').map(str::to_string).collect();
            let n = u32::from_str_radix(&cols[3], 16).unwrap() as usize;
            assert_ne!(cols[4 + 2 * n], "000", "line 41 has pointers");
            cols[4 + 2 * n + 2] = "00000001".into();
            cols.join(" ")
        })
    });
    let err = WordNet::load(tmp.path()).unwrap_err().to_string();
    assert!(
        err.contains("data.adv") && err.contains("line 41") && err.contains("pointer"),
        "{err}"
    );

    // index.verb line 100: an offset that points nowhere.
    let tmp = broken_copy("index.verb", |t| {
        replace_line(t, 100, |l| {
            format!("{} 99999999\n", l.trim_end().rsplit_once(' ').unwrap().0)
        })
    });
    let err = WordNet::load(tmp.path()).unwrap_err().to_string();
    assert!(
        err.contains("index.verb") && err.contains("line 100"),
        "{err}"
    );

    // data.adj: a line pushed one byte right (so read as a licence line and skipped) makes the
    // next line's offset disagree with its position.
    let tmp = broken_copy("data.adj", |t| replace_line(t, 50, |l| format!(" {l}")));
    let err = WordNet::load(tmp.path()).unwrap_err().to_string();
    assert!(err.contains("data.adj") && err.contains("line 51"), "{err}");

    // A missing file.
    let tmp = broken_copy("index.adv", |t| t.to_string());
    std::fs::remove_file(tmp.path().join("index.adv")).unwrap();
    let err = WordNet::load(tmp.path()).unwrap_err().to_string();
    assert!(err.contains("index.adv"), "{err}");
}
