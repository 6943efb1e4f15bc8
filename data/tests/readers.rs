//! Every reader on the real public samples in `../shared/data` (skipped, with a message, when
//! that folder is absent, as in a user's clone) and on the bundled samples in `data/samples`;
//! plus the malformed-input errors a user sees.

use std::path::{Path, PathBuf};

use metamorph_data::{
    shared_data, DatasetFormat, DatasetReader, Error, Example, ReadOptions, RecordKind, Task,
};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn read_all(path: &Path, format: DatasetFormat) -> Vec<Example> {
    DatasetReader::open(path, format, ReadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .examples()
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn count_label(examples: &[Example], label: &str) -> usize {
    examples
        .iter()
        .filter(|e| e.label.as_deref() == Some(label))
        .count()
}

#[test]
fn boolq_superglue_copy_with_string_labels() {
    let Some(path) = shared_data::sample("boolq/superglue_boolq_val_first1000.jsonl") else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::Boolq);
    assert_eq!(examples.len(), 1000);
    assert_eq!(count_label(&examples, "yes"), 625);
    assert_eq!(count_label(&examples, "no"), 375);
    let first = &examples[0];
    assert_eq!(first.task, Task::BoolQ);
    assert_eq!(first.id, "boolq-0");
    assert!(first.context.as_deref().unwrap().contains(" -- "));
    assert!(first.origin.as_deref().unwrap().ends_with(":line 1"));
}

#[test]
fn boolq_bundled_sample_with_boolean_labels() {
    let examples = read_all(&sample("boolq.jsonl"), DatasetFormat::Boolq);
    assert!(examples.len() >= 20);
    assert!(examples
        .iter()
        .all(|e| matches!(e.label.as_deref(), Some("yes" | "no"))));
}

#[test]
fn squad_v2_normans_rhine() {
    let Some(path) = shared_data::sample("squad_v2/dev-v2.0_Normans_Rhine.json") else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::Squad);
    assert_eq!(examples.len(), 706);
    assert_eq!(
        examples
            .iter()
            .filter(|e| e.is_impossible == Some(true))
            .count(),
        320
    );
    let answerable = examples
        .iter()
        .find(|e| e.is_impossible == Some(false))
        .unwrap();
    let answer = &answerable.answers.as_ref().unwrap()[0];
    let context: Vec<char> = answerable.context.as_deref().unwrap().chars().collect();
    let start = answer.start.unwrap() as usize;
    let slice: String = context[start..start + answer.text.chars().count()]
        .iter()
        .collect();
    assert_eq!(slice, answer.text);
    assert_eq!(
        read_all(&sample("squad.json"), DatasetFormat::Squad).len(),
        7
    );
}

#[test]
fn drop_sample() {
    let Some(path) = shared_data::sample("drop/drop_dataset_dev_sample.json") else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::Drop);
    assert_eq!(examples.len(), 73);
    assert!(examples
        .iter()
        .all(|e| !e.answers.as_ref().unwrap().is_empty()));
    assert!(examples
        .iter()
        .any(|e| e.id.starts_with("") && e.origin.as_deref().unwrap().contains("nfl_1184")));
    assert_eq!(read_all(&sample("drop.json"), DatasetFormat::Drop).len(), 4);
}

#[test]
fn break_qdmr_sample() {
    let Some(path) = shared_data::sample("break/break_qdmr_high_level_dev_sample.csv") else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::Break);
    assert_eq!(examples.len(), 995);
    let first = &examples[0];
    assert_eq!(
        first.steps.as_ref().unwrap(),
        &[
            "Tibetan speaking countries",
            "#1 that have a population of less than 993885000"
        ]
    );
    assert_eq!(first.operators.as_ref().unwrap(), &["select", "filter"]);
    let bundled = read_all(&sample("break.csv"), DatasetFormat::Break);
    assert_eq!(bundled.len(), 4);
    assert_eq!(
        bundled[3].question.as_deref(),
        Some("Which river is longer, the Danube or the Rhine?")
    );
}

#[test]
fn fewrel_sample() {
    let Some(path) = shared_data::sample("fewrel/fewrel_val_wiki_first62_per_relation.json") else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::Fewrel);
    assert_eq!(examples.len(), 992);
    let first = &examples[0];
    assert_eq!(first.label.as_deref(), Some("P177"));
    let head = first.head.as_ref().unwrap();
    assert_eq!((head.start, head.end), (26, 29));
    assert_eq!(head.text, "Cape Girardeau Bridge");
}

#[test]
fn tacred_bundled_sample() {
    let examples = read_all(&sample("tacred.json"), DatasetFormat::Tacred);
    assert_eq!(examples.len(), 44);
    let first = &examples[0];
    let head = first.head.as_ref().unwrap();
    assert_eq!(
        (head.text.as_str(), head.entity_type.as_deref()),
        ("Tim Cook", Some("PERSON"))
    );
    assert_eq!(first.tail.as_ref().unwrap().text, "Apple");
    assert!(first.clusters.is_none());
    // The optional `clusters` extension: token spans (end inclusive) become character spans.
    let john = examples.iter().find(|e| e.id == "sample-re-41").unwrap();
    let text = john.text.as_deref().unwrap();
    let clusters = john.clusters.as_ref().unwrap();
    let mentions: Vec<&str> = clusters[0]
        .iter()
        .map(|m| &text[m.start as usize..m.end as usize])
        .collect();
    assert_eq!(mentions, ["John", "he", "his"]);
    assert_eq!(john.tail.as_ref().unwrap().text, "he");
}

#[test]
fn dynasent_round2_dev() {
    let Some(path) = shared_data::sample("sentiment/dynasent-v1.1-round02-dynabench-dev.jsonl")
    else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::SentimentJsonl);
    assert_eq!(examples.len(), 720);
    for label in ["positive", "negative", "neutral"] {
        assert_eq!(count_label(&examples, label), 240);
    }
    assert!(examples[0].id.starts_with("r2-"));
}

#[test]
fn sst_and_qqp_bundled_samples() {
    let sst = read_all(&sample("sentiment.tsv"), DatasetFormat::SentimentTsv);
    assert_eq!(sst.len(), 8);
    assert_eq!(count_label(&sst, "positive"), 4);
    let qqp = read_all(&sample("paraphrase.tsv"), DatasetFormat::ParaphraseTsv);
    assert_eq!(qqp.len(), 7);
    assert_eq!(count_label(&qqp, "1"), 3);
}

#[test]
fn paws_sample() {
    let Some(path) = shared_data::sample("paraphrase/paws_wiki_labeled_final_dev_first1000.tsv")
    else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::ParaphraseTsv);
    assert_eq!(examples.len(), 1000);
    assert_eq!(count_label(&examples, "1"), 451);
    assert_eq!(examples[0].id, "1");
}

#[test]
fn gap_validation() {
    let Some(path) = shared_data::sample("coref/gap/gap-validation.tsv") else {
        return;
    };
    let examples = read_all(&path, DatasetFormat::Gap);
    assert_eq!(examples.len(), 454);
    for e in &examples {
        let text: Vec<char> = e.text.as_deref().unwrap().chars().collect();
        for span in e.clusters.as_ref().unwrap().iter().flatten() {
            assert!(span.end as usize <= text.len());
        }
    }
    let bundled = read_all(&sample("gap.tsv"), DatasetFormat::Gap);
    assert_eq!(bundled[0].label.as_deref(), Some("A"));
}

#[test]
fn litbank_conll() {
    for (file, tokens) in [
        ("158_emma_brat.conll", 2063),
        ("1342_pride_and_prejudice_brat.conll", 2021),
    ] {
        let Some(path) = shared_data::sample(&format!("coref/litbank/{file}")) else {
            return;
        };
        // Sentences as the file marks them: a token line whose in-sentence index is 0.
        let raw = std::fs::read_to_string(&path).unwrap();
        let sentences = raw
            .lines()
            .filter(|l| l.split('\t').nth(2) == Some("0"))
            .count();
        let examples = read_all(&path, DatasetFormat::Conll2012);
        assert_eq!(examples.len(), 1);
        let doc = &examples[0];
        assert_eq!(doc.tokens.as_ref().unwrap().len(), tokens);
        assert_eq!(
            doc.text.as_deref().unwrap().matches('\n').count() + 1,
            sentences
        );
        let clusters = doc.clusters.as_ref().unwrap();
        assert!(!clusters.is_empty());
        let text: Vec<char> = doc.text.as_deref().unwrap().chars().collect();
        for span in clusters.iter().flatten() {
            let mention: String = text[span.start as usize..span.end as usize]
                .iter()
                .collect();
            assert!(
                !mention.starts_with(' ') && !mention.ends_with(' '),
                "{mention:?}"
            );
        }
    }
}

#[test]
fn conll_bundled_sample_clusters() {
    let doc = &read_all(&sample("coref.conll"), DatasetFormat::Conll2012)[0];
    let text = doc.text.as_deref().unwrap();
    let mention = |s: &metamorph_data::CharSpan| -> String {
        text.chars()
            .skip(s.start as usize)
            .take((s.end - s.start) as usize)
            .collect()
    };
    let clusters: Vec<Vec<String>> = doc
        .clusters
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| c.iter().map(mention).collect())
        .collect();
    assert!(clusters.contains(&vec![
        "Mr. Knightley".into(),
        "he".into(),
        "him".into(),
        "his".into()
    ]));
    assert!(clusters.contains(&vec!["Donwell Abbey".into(), "The estate".into()]));
    assert!(clusters.contains(&vec!["Emma".into(), "her".into(), "she".into()]));
}

#[test]
fn batches_have_the_requested_size_and_kind() {
    let reader = DatasetReader::open(
        sample("boolq.jsonl"),
        DatasetFormat::Boolq,
        ReadOptions::default().with_batch_size(10),
    )
    .unwrap();
    let sizes: Vec<usize> = reader
        .batches()
        .map(|b| b.unwrap())
        .map(|b| {
            assert_eq!(RecordKind::of_batch(&b).unwrap(), RecordKind::Example);
            b.num_rows()
        })
        .collect();
    assert_eq!(sizes, vec![10, 10, 10, 2]);
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn open_error(path: &Path, format: DatasetFormat) -> Error {
    match DatasetReader::open(path, format, ReadOptions::default()) {
        Err(e) => e,
        Ok(reader) => reader.examples().find_map(Result::err).expect("an error"),
    }
}

/// The examples of `path` read with `skip_bad`, and how many records were skipped.
fn read_skipping_bad(path: &Path, format: DatasetFormat) -> (Vec<Example>, usize) {
    let reader =
        DatasetReader::open(path, format, ReadOptions::default().with_skip_bad(true)).unwrap();
    let skipped = reader.skipped_counter();
    let examples: Vec<_> = reader.examples().collect::<Result<_, _>>().unwrap();
    (examples, skipped.load(std::sync::atomic::Ordering::Relaxed))
}

#[test]
fn malformed_boolq_line_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"question": "is it", "passage": "It is.", "idx": 0, "label": true}"#;
    let path = write(
        &dir,
        "bad.jsonl",
        format!("{good}\n{{\"question\": \"x\", \"idx\": 1}}\n{good}\n").as_bytes(),
    );
    let message = open_error(&path, DatasetFormat::Boolq).to_string();
    assert!(
        message.contains("bad.jsonl:line 2")
            && message.contains("`passage`")
            && message.contains("missing"),
        "{message}"
    );

    let path = write(
        &dir,
        "syntax.jsonl",
        format!("{good}\n{{not json\n").as_bytes(),
    );
    let message = open_error(&path, DatasetFormat::Boolq).to_string();
    assert!(
        message.contains("syntax.jsonl:line 2") && message.contains("invalid JSON"),
        "{message}"
    );

    let path = write(
        &dir,
        "label.jsonl",
        br#"{"question": "q", "passage": "p", "label": "maybe"}"#,
    );
    let message = open_error(&path, DatasetFormat::Boolq).to_string();
    assert!(
        message.contains("`label`") && message.contains("unknown label"),
        "{message}"
    );
}

#[test]
fn skip_bad_counts_instead_of_failing() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"question": "is it", "passage": "It is.", "label": "true"}"#;
    let path = write(
        &dir,
        "mixed.jsonl",
        format!("{good}\n{{\"question\": 3}}\n{good}\n").as_bytes(),
    );
    let (examples, skipped) = read_skipping_bad(&path, DatasetFormat::Boolq);
    assert_eq!(examples.len(), 2);
    assert_eq!(skipped, 1);
}

#[test]
fn squad_without_context_names_the_json_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "squad.json",
        br#"{"data": [{"title": "T", "paragraphs": [{"qas": []}]}]}"#,
    );
    let message = open_error(&path, DatasetFormat::Squad).to_string();
    assert!(
        message.contains("squad.json:data[0].paragraphs[0]") && message.contains("`context`"),
        "{message}"
    );
}

#[test]
fn empty_and_binary_files_are_rejected_up_front() {
    let dir = tempfile::tempdir().unwrap();
    for format in DatasetFormat::ALL {
        let empty = write(&dir, "empty.txt", b"\n  \n");
        let message = open_error(&empty, format).to_string();
        assert!(
            message.contains("empty.txt") && message.contains("empty"),
            "{format}: {message}"
        );
        let binary = write(
            &dir,
            "blob.bin",
            &[0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0xfe, 0x00],
        );
        let message = open_error(&binary, format).to_string();
        assert!(
            message.contains("blob.bin") && message.contains("binary"),
            "{format}: {message}"
        );
    }
}

#[test]
fn unknown_labels_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "sst.tsv", b"sentence\tlabel\ngood film\t7\n");
    let message = open_error(&path, DatasetFormat::SentimentTsv).to_string();
    assert!(
        message.contains("sst.tsv:line 2") && message.contains("`label`"),
        "{message}"
    );
    let path = write(&dir, "gap.tsv", b"ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\tURL\nx\tAnn saw Bo. She left.\tShe\t12\tAnn\t0\tYES\tBo\t8\tFALSE\tu\n");
    let message = open_error(&path, DatasetFormat::Gap).to_string();
    assert!(message.contains("`A-coref`"), "{message}");
}

#[test]
fn broken_tacred_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "t.json", br#"[{"id": "a", "token": ["A", "B"], "subj_start": 0, "subj_end": 0, "obj_start": 1, "obj_end": 1, "relation": "r", "clusters": [[[0, 0], [1, 2]]]}]"#);
    let message = open_error(&path, DatasetFormat::Tacred).to_string();
    assert!(message.contains("clusters"), "{message}");
}

#[test]
fn broken_tacred_span_and_unclosed_conll_mention() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "t.json", br#"[{"id": "a", "token": ["A", "B"], "subj_start": 0, "subj_end": 5, "obj_start": 1, "obj_end": 1, "relation": "r"}]"#);
    let message = open_error(&path, DatasetFormat::Tacred).to_string();
    assert!(
        message.contains("t.json:[0]") && message.contains("subj_end"),
        "{message}"
    );
    let path = write(
        &dir,
        "c.conll",
        b"#begin document (d); part 0\nd\t0\t0\tHi\t_\t_\t_\t_\t_\t_\t_\t_\t(1\n#end document\n",
    );
    let message = open_error(&path, DatasetFormat::Conll2012).to_string();
    assert!(
        message.contains("c.conll") && message.contains("never closed"),
        "{message}"
    );
}

#[test]
fn a_byte_order_mark_is_ignored_in_every_text_format() {
    let dir = tempfile::tempdir().unwrap();
    let bom = b"\xEF\xBB\xBF";
    for (name, format) in [
        ("boolq.jsonl", DatasetFormat::Boolq),
        ("squad.json", DatasetFormat::Squad),
        ("sentiment.tsv", DatasetFormat::SentimentTsv),
        ("break.csv", DatasetFormat::Break),
    ] {
        let plain = std::fs::read(sample(name)).unwrap();
        let with_bom = write(&dir, name, &[bom.as_slice(), &plain].concat());
        let want = read_all(&sample(name), format);
        let got = read_all(&with_bom, format);
        assert_eq!(got.len(), want.len(), "{name}");
        assert_eq!(
            got.iter().map(|e| &e.id).collect::<Vec<_>>(),
            want.iter().map(|e| &e.id).collect::<Vec<_>>(),
            "{name}"
        );
        // The first record is read, not skipped as malformed.
        let (examples, skipped) = read_skipping_bad(&with_bom, format);
        assert_eq!(examples.len(), want.len(), "{name}");
        assert_eq!(skipped, 0, "{name}");
    }
}

#[test]
fn an_invalid_byte_is_reported_at_its_line_and_can_be_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let good = |i: usize| {
        format!(r#"{{"question": "is it {i}", "passage": "It is.", "idx": {i}, "label": true}}"#)
    };
    let mut bytes = Vec::new();
    for i in 0..6 {
        if i == 3 {
            bytes.extend_from_slice(
                b"{\"question\": \"caf\xE9?\", \"passage\": \"p\", \"idx\": 3, \"label\": true}\n",
            );
        } else {
            bytes.extend_from_slice(good(i).as_bytes());
            bytes.push(b'\n');
        }
    }
    let path = write(&dir, "latin1.jsonl", &bytes);
    let message = open_error(&path, DatasetFormat::Boolq).to_string();
    assert!(
        message.contains("latin1.jsonl:line 4") && message.contains("invalid UTF-8"),
        "{message}"
    );
    let (examples, skipped) = read_skipping_bad(&path, DatasetFormat::Boolq);
    assert_eq!(examples.len(), 5);
    assert_eq!(skipped, 1);

    // A whole-document format names the line too.
    let squad = std::fs::read(sample("squad.json")).unwrap();
    let at = squad.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut broken = squad.clone();
    broken.insert(at + 2, 0xFF);
    let path = write(&dir, "squad.json", &broken);
    let message = open_error(&path, DatasetFormat::Squad).to_string();
    assert!(
        message.contains("squad.json:line 2") && message.contains("invalid UTF-8"),
        "{message}"
    );
}

#[test]
fn duplicate_example_ids_name_both_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "dup.jsonl",
        br#"{"question": "is it", "passage": "It is.", "idx": 1, "label": true}
{"question": "is it not", "passage": "It is not.", "idx": 2, "label": false}
{"question": "was it", "passage": "It was.", "idx": "1", "label": true}
"#,
    );
    let message = open_error(&path, DatasetFormat::Boolq).to_string();
    assert!(
        message.contains("dup.jsonl:line 3")
            && message.contains("duplicate example id `boolq-1`")
            && message.contains("line 1"),
        "{message}"
    );
    let (examples, _) = read_skipping_bad(&path, DatasetFormat::Boolq);
    assert_eq!(examples.len(), 2);
    assert_eq!(examples[0].question.as_deref(), Some("is it"));
}

#[test]
fn tsv_rows_with_extra_columns_are_refused_like_short_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "sst.tsv",
        b"sentence\tlabel\ngood film\t1\nbad\tfilm\t0\n",
    );
    let message = open_error(&path, DatasetFormat::SentimentTsv).to_string();
    assert!(
        message.contains("sst.tsv:line 3") && message.contains("row has 3 columns, the header 2"),
        "{message}"
    );
}
