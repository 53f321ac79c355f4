//! `evident eval` on a tiny BEIR collection written here, with figures that can
//! be computed by hand.

use crate::common::*;

fn collection(root: &std::path::Path) {
    write(
        root,
        "corpus.jsonl",
        concat!(
            r#"{"_id": "d1", "title": "Vitamin D", "text": "Vitamin D deficiency is common in northern winters."}"#,
            "\n",
            r#"{"_id": "d2", "title": "Sleep", "text": "Sleep loss impairs memory consolidation in adults."}"#,
            "\n",
            r#"{"_id": "d3", "title": "Exercise", "text": "Regular exercise improves cardiovascular health and sleep quality."}"#,
            "\n"
        ),
    );
    write(
        root,
        "queries.jsonl",
        concat!(
            r#"{"_id": "q1", "text": "vitamin deficiency"}"#,
            "\n",
            r#"{"_id": "q2", "text": "memory consolidation"}"#,
            "\n",
            r#"{"_id": "q3", "text": "unjudged query"}"#,
            "\n"
        ),
    );
    // q2's relevant documents: d2 (grade 2) and d3 (grade 1), which lexical search ranks 1st and not at all.
    write(root, "qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\nq2\td3\t1\n");
}

/// `evident eval` of `root` into `index` with the flags that follow.
fn eval(root: &std::path::Path, index: &std::path::Path, flags: &[&str]) -> Run {
    let args = [&["eval", "--collection", path(root), "--index", path(index)][..], flags, &["--quiet"]].concat();
    run(&args)
}

#[test]
fn eval_reports_trec_style_metrics_and_writes_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("tiny");
    collection(&root);
    let (json, plot, runs, index) =
        (tmp.path().join("r.json"), tmp.path().join("r.svg"), tmp.path().join("runs"), tmp.path().join("idx"));
    let out = eval(
        &root,
        &index,
        &["--mode", "all", "--json", path(&json), "--plot", path(&plot), "--trec-dir", path(&runs)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("tiny: 3 documents, 3 passages, 2 queries"), "{}", out.stdout);
    for mode in ["lexical", "vector", "hybrid"] {
        assert!(out.stdout.lines().any(|l| l.starts_with(mode)), "{}", out.stdout);
    }

    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lexical = &report["modes"][0];
    assert_eq!(lexical["mode"], "lexical");
    // q1: d1 first → nDCG 1, MRR 1, recall 1. q2: d2 first (gain 2), d3 never retrieved:
    // DCG = 2/log2(2) = 2; IDCG = 2 + 1/log2(3); recall = 1/2.
    let q2_ndcg = 2.0 / (2.0 + 1.0 / 3f64.log2());
    let expected_ndcg = (1.0 + q2_ndcg) / 2.0;
    assert!((lexical["ndcg_10"].as_f64().unwrap() - expected_ndcg).abs() < 1e-9, "{lexical}");
    assert!((lexical["recall_100"].as_f64().unwrap() - 0.75).abs() < 1e-9);
    assert!((lexical["mrr_10"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    assert_eq!(lexical["per_query"][0]["ranking"][0], "d1");

    let run_file = std::fs::read_to_string(runs.join("lexical.run")).unwrap();
    assert!(run_file.starts_with("q1 Q0 d1 1 "), "{run_file}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("nDCG@10"));
}

/// A second tiny collection on other topics: its queries are off-corpus for the first.
#[test]
fn eval_keeps_the_model_an_index_was_built_with() {
    // A BEIR directory's default model is bge-small-en; an index built with
    // another model is measured as it is, not re-embedded with the default.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("tiny");
    collection(&root);
    let index = tmp.path().join("idx");
    let model_of = || manifest(&index)["vector"]["model"].clone();
    let built =
        run(&["index", "build", path(&root), "--index", path(&index), "--model", "all-MiniLM-L6-v2", "--quiet"]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    assert_eq!(model_of(), "all-MiniLM-L6-v2");
    let out = eval(&root, &index, &["--mode", "vector"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(model_of(), "all-MiniLM-L6-v2", "eval without --model kept the index's model");
    let out = eval(&root, &index, &["--mode", "vector", "--model", "bge-small-en"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(model_of(), "bge-small-en", "--model still chooses");
    // Its model missing (an empty models directory), the index is rebuilt as a new one would be: without vectors.
    let empty = tmp.path().join("no-models");
    std::fs::create_dir_all(&empty).unwrap();
    let out = eval(&root, &index, &["--mode", "lexical", "--models-dir", path(&empty)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(manifest(&index)["vector"].is_null(), "{}", manifest(&index)["vector"]);
}

fn other_collection(root: &std::path::Path) {
    write(
        root,
        "corpus.jsonl",
        concat!(r#"{"_id": "x1", "title": "Volcanoes", "text": "Basalt lava flows from shield volcanoes."}"#, "\n"),
    );
    write(root, "queries.jsonl", concat!(r#"{"_id": "v1", "text": "basalt lava from shield volcanoes"}"#, "\n"));
    write(root, "qrels/test.tsv", "query-id\tcorpus-id\tscore\nv1\tx1\t1\n");
}

#[test]
fn eval_verdicts_labels_questions_and_reports_the_table() {
    let tmp = tempfile::tempdir().unwrap();
    let (own, other) = (tmp.path().join("tiny"), tmp.path().join("other"));
    collection(&own);
    other_collection(&other);
    let questions = write(
        tmp.path(),
        "questions.jsonl",
        concat!(
            r#"{"id": "sleep", "answerable": true, "questions": ["sleep loss memory", "Does sleep loss impair memory?"]}"#,
            "\n",
            r#"{"id": "dna", "answerable": false, "questions": ["DNA helix", "What is the DNA helix?"]}"#,
            "\n"
        ),
    );
    let (json, plot, index) = (tmp.path().join("v.json"), tmp.path().join("v.svg"), tmp.path().join("idx"));
    let out = eval(
        &own,
        &index,
        &[
            "--verdicts",
            "--against",
            path(&other),
            "--paraphrases",
            path(&questions),
            "--json",
            path(&json),
            "--plot",
            path(&plot),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("SUPPORTED precision"), "{}", out.stdout);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // Two judged queries answerable, one off-corpus, four phrasings in the set.
    let asked = report["asked"].as_array().unwrap();
    let labelled = |label: &str| asked.iter().filter(|a| a["label"] == label).count();
    assert_eq!((labelled("answerable"), labelled("off_corpus")), (2, 1));
    assert_eq!((labelled("set_answerable"), labelled("set_off_corpus")), (2, 2));
    // Nothing about volcanoes or DNA is in the collection.
    assert_eq!(report["off_corpus_insufficient"], 1.0, "{}", report["confusion"]);
    assert_eq!(report["confusion"]["set_off_corpus"]["INSUFFICIENT_EVIDENCE"], 2);
    assert_eq!(report["groups"], 2);
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
}
