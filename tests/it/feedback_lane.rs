//! The feedback lane (RM3 over whole documents) through the real binary: it
//! finds a document that says what the query's best documents say in their
//! words, not the query's; it runs in `auto` and `hybrid` in the vector lane's place and never in `lexical`; what it
//! alone finds without a key term is a neighbour, not evidence; and a
//! generation built before it still serves, without it.

use crate::common::mcp::start_with;
use crate::common::{manifest_path, path, run_with_env, write};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Three documents about finches' beaks on islands (the third never says
/// "finch"), and unrelated ones.
fn corpus(root: &Path) {
    write(root, "corpus.toml", "name = \"finches\"\ndefault_language = \"en\"\n");
    let docs = [
        (
            "d1",
            "Finches",
            "Finches of the Galapagos islands have beaks shaped by the seeds they eat. The beaks of finches differ from island to island.",
        ),
        (
            "d2",
            "Seed eaters",
            "Finches feed on seeds, and a finch with a deep beak cracks the hard seeds of its island.",
        ),
        (
            "d3",
            "Birds of the islands",
            "On every island the beaks of the birds differ: the shape of a beak follows the seeds eaten there, island by island.",
        ),
        (
            "d4",
            "The record",
            "The geological record is extremely imperfect, and this explains why we do not find endless varieties.",
        ),
        (
            "d5",
            "Breeders",
            "Breeders select the best animals, and methodical selection has changed many domestic races.",
        ),
        (
            "d6",
            "Organs",
            "Rudimentary organs may be compared with the letters in a word which are retained in the spelling.",
        ),
    ];
    let lines: Vec<String> =
        docs.iter().map(|(id, title, text)| json!({"_id": id, "title": title, "text": text}).to_string()).collect();
    write(root, "corpus.jsonl", &(lines.join("\n") + "\n"));
}

struct Index {
    _tmp: tempfile::TempDir,
    index: PathBuf,
    models: PathBuf,
}

/// Built without a model: the lexical lanes alone, so the feedback lane is all that finds d3.
fn built() -> Index {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, index, models) = (tmp.path().join("corpus"), tmp.path().join("index"), tmp.path().join("no-models"));
    corpus(&dir);
    let out = run_with_env(
        &["index", "build", path(&dir), "--index", path(&index), "--quiet"],
        "EVIDENT_MODELS_DIR",
        &models,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    Index { _tmp: tmp, index, models }
}

/// The envelope of `search --json`, less its one timing (`retrieval.took_ms`).
fn search(built: &Index, mode: &str) -> Value {
    let args = ["search", "finches", "--index", path(&built.index), "--mode", mode, "--json"];
    let out = run_with_env(&args, "EVIDENT_MODELS_DIR", &built.models);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut envelope: Value = serde_json::from_str(&out.stdout).unwrap();
    envelope["retrieval"].as_object_mut().unwrap().remove("took_ms");
    envelope
}

fn document_lanes(outcome: &Value, document: &str) -> Option<Vec<String>> {
    outcome["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["document"] == document)
        .map(|h| h["component_ranks"].as_object().unwrap().keys().cloned().collect())
}

#[test]
fn the_feedback_lane_finds_a_document_in_the_best_documents_words() {
    let built = built();
    let hybrid = search(&built, "hybrid");
    assert_eq!(hybrid["retrieval"]["lanes"], json!(["lexical", "feedback"]), "{hybrid}");
    assert_eq!(document_lanes(&hybrid, "d3"), Some(vec!["feedback".to_owned()]), "{hybrid}");
    let d1 = document_lanes(&hybrid, "d1").unwrap();
    assert!(d1.contains(&"lexical".to_owned()) && d1.contains(&"feedback".to_owned()), "{d1:?}");
    // Nothing unrelated is pulled in: the added words are the finch documents'.
    for unrelated in ["d4", "d5", "d6"] {
        assert_eq!(document_lanes(&hybrid, unrelated), None, "{unrelated}: {hybrid}");
    }
    // One hit per document in the lane: each document at its best passage.
    let counts: Vec<(String, u64)> = hybrid["retrieval"]["lane_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["lane"].as_str().unwrap().to_owned(), c["candidates"].as_u64().unwrap()))
        .collect();
    assert_eq!(counts, [("lexical".to_owned(), 2), ("feedback".to_owned(), 3)]);
    assert_eq!(search(&built, "hybrid"), hybrid, "the same index and query give the same result");

    let lexical = search(&built, "lexical");
    assert_eq!(lexical["retrieval"]["lanes"], json!(["lexical"]));
    assert_eq!(document_lanes(&lexical, "d3"), None, "plain BM25 stays literal");
}

#[test]
fn what_only_the_feedback_lane_finds_without_a_key_term_is_a_neighbour_not_evidence() {
    let built = built();
    let models = built.models.to_string_lossy().into_owned();
    let mcp = start_with(&built.index, &[], &[("EVIDENT_MODELS_DIR", &models)]);
    let e = mcp.envelope("search_passages", json!({"query": "finches", "retrieval_mode": "hybrid"}));
    let evidence = e["evidence"].as_array().unwrap();
    let d3 = evidence.iter().find(|i| i["document"] == "d3").expect("d3 is found");
    assert_eq!(d3["component_ranks"].as_object().unwrap().keys().collect::<Vec<_>>(), ["feedback"]);
    assert!(d3["why_retrieved"].as_str().unwrap().contains("neighbour only"), "{d3}");
    let signals = &e["evidence_state"]["signals"];
    assert_eq!(signals["neighbours_n"], 1, "{signals}");
    // Lexical and feedback are one kind of evidence: no item counts as found by two lanes.
    assert_eq!(signals["multi_lane_n"], 0, "{signals}");
}

#[test]
fn a_generation_built_before_the_feedback_lane_serves_without_it() {
    let built = built();
    // As an older build wrote it: no document index, and no files of one in the manifest.
    let manifest = manifest_path(&built.index);
    let generation = manifest.parent().unwrap().to_owned();
    std::fs::remove_dir_all(generation.join("documents")).unwrap();
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m["files"].as_object_mut().unwrap().retain(|name, _| !name.starts_with("documents/"));
    std::fs::write(&manifest, serde_json::to_string_pretty(&m).unwrap()).unwrap();

    let hybrid = search(&built, "hybrid");
    assert_eq!(hybrid["retrieval"]["lanes"], json!(["lexical"]), "{hybrid}");
    assert_eq!(document_lanes(&hybrid, "d3"), None);
    assert!(document_lanes(&hybrid, "d1").is_some());
}
