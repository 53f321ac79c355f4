//! The lexical lane on sparse vectors in the vector store (`[lexical] backend
//! = "qdrant"`), embedded (qdrant-edge) here; `qdrant_server` checks the same
//! lane against the loopback server. Needs the default model (`scripts/setup`).

use crate::common::*;
use std::collections::BTreeSet;
use std::path::Path;

/// `small_corpus` with the lexical lane's backend set.
pub(crate) fn sparse_corpus(root: &Path, extra_toml: &str) {
    small_corpus(root);
    let toml = std::fs::read_to_string(root.join("corpus.toml")).unwrap();
    std::fs::write(root.join("corpus.toml"), format!("{toml}\n[lexical]\nbackend = \"qdrant\"\n{extra_toml}")).unwrap();
}

fn lexical_ids(index: &Path, query: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["--mode", "lexical", "-k", "50"];
    args.extend_from_slice(extra);
    ids(&search_hits(index, query, &args))
}

fn manifest(index: &Path) -> serde_json::Value {
    let generation = std::fs::read_dir(index.join("generations"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("gen-"))
        .max()
        .unwrap();
    serde_json::from_str(&std::fs::read_to_string(generation.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn the_sparse_lexical_lane_finds_what_the_tantivy_lane_finds_and_honours_filters() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, sparse) = (tmp.path().join("plain"), tmp.path().join("sparse"));
    small_corpus(&plain);
    sparse_corpus(&sparse, "");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    assert_eq!(build(&plain, &a).code, 0);
    let out = build(&sparse, &b);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let weighting = &manifest(&b)["lexical_sparse"];
    assert_eq!(weighting["k1"], 1.2, "{weighting}");
    assert!(weighting["average_text_terms"].as_f64().unwrap() > 5.0, "{weighting}");
    assert!(manifest(&a).get("lexical_sparse").is_none());

    // One word: BM25 of one term ranks the passages holding it, in both lanes.
    for word in ["geological", "breeders", "extinction", "Organismen"] {
        let (tantivy, qdrant) = (lexical_ids(&a, word, &[]), lexical_ids(&b, word, &[]));
        assert!(!tantivy.is_empty(), "{word}");
        let set = |ids: &[String]| ids.iter().cloned().collect::<BTreeSet<_>>();
        assert_eq!(set(&tantivy), set(&qdrant), "{word}");
    }
    // Several words: the same BM25, bar the tantivy lane's proximity bonus and
    // per-language collection size; the head of the ranking agrees here.
    let query = "struggle for existence of organic beings";
    assert_eq!(lexical_ids(&a, query, &[])[..8], lexical_ids(&b, query, &[])[..8]);

    // Filters are the payload filters the vector lane uses.
    let german = lexical_ids(&b, "Organismen vermehren sich", &["--language", "de"]);
    assert!(!german.is_empty() && german.iter().all(|id| id.starts_with("p.ed-1863-de.")), "{german:?}");
    let work = lexical_ids(&b, "selection by breeders", &["--work", "ed-1872"]);
    assert!(!work.is_empty() && work.iter().all(|id| id.starts_with("p.ed-1872.")), "{work:?}");
    // A quoted phrase has no positions to match here: its words are searched,
    // and the exact lane (hybrid) still finds the phrase itself.
    assert!(!lexical_ids(&b, "\"survival of the fittest\"", &[]).is_empty());
    let hybrid = search_json(&b, "\"survival of the fittest\"", &["--mode", "hybrid"]);
    let first = &items(&hybrid["evidence"])[0];
    assert!(first["text"].as_str().unwrap().contains("survival of the fittest"), "{first}");
}

#[test]
fn a_rebuild_that_reuses_vectors_weighs_terms_as_a_fresh_build_does() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    sparse_corpus(&corpus, "");
    let (incremental, fresh) = (tmp.path().join("incremental"), tmp.path().join("fresh"));
    assert_eq!(build(&corpus, &incremental).code, 0);
    // A changed first source: the rebuild reuses the others' vectors and so
    // writes its points in another order than a fresh build.
    let first = corpus.join("docs/de/ch1.txt");
    let text = std::fs::read_to_string(&first).unwrap();
    std::fs::write(&first, format!("{text}\nDie Tauben der Züchter variieren sehr.\n")).unwrap();
    let out = build(&corpus, &incremental);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(manifest(&incremental)["vector"]["reused"].as_u64().unwrap() > 0);
    assert_eq!(build(&corpus, &fresh).code, 0);
    assert_eq!(manifest(&incremental)["lexical_sparse"], manifest(&fresh)["lexical_sparse"]);
    for query in ["Tauben der Züchter", "struggle for existence", "geological record imperfect"] {
        let (a, b) = (
            search_hits(&incremental, query, &["--mode", "lexical"]),
            search_hits(&fresh, query, &["--mode", "lexical"]),
        );
        assert!(!ids(&a).is_empty(), "{query}");
        assert_eq!(ids(&a), ids(&b), "{query}");
    }
}

#[test]
fn without_the_model_the_build_is_refused_and_a_reader_falls_back_to_tantivy() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, sparse, no_models) = (tmp.path().join("plain"), tmp.path().join("sparse"), tmp.path().join("none"));
    small_corpus(&plain);
    sparse_corpus(&sparse, "");
    std::fs::create_dir_all(&no_models).unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let refused = run_with_env(
        &["index", "build", path(&sparse), "--index", path(&b), "--quiet"],
        "EVIDENT_MODELS_DIR",
        &no_models,
    );
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("error: the embedding model cannot be loaded: model bge-small-en is not installed"),
        "{}",
        refused.stderr
    );
    assert!(!b.join("CURRENT").exists(), "nothing was published");

    assert_eq!(build(&plain, &a).code, 0);
    assert_eq!(build(&sparse, &b).code, 0);
    // A reader without the model cannot load the store's lane: the lexical lane is tantivy's then.
    let query = "struggle for existence of organic beings";
    let fallback = run_with_env(
        &["search", query, "--index", path(&b), "--mode", "lexical", "-k", "50", "--json"],
        "EVIDENT_MODELS_DIR",
        &no_models,
    );
    assert_eq!(fallback.code, 0, "{}", fallback.stderr);
    let fallback: serde_json::Value = serde_json::from_str(&fallback.stdout).unwrap();
    let tantivy = lexical_ids(&a, query, &[]);
    assert_eq!(ids(&fallback["evidence"]), tantivy);
    assert_ne!(lexical_ids(&b, query, &[]), tantivy, "with the model the sparse lane ranks (its tail differs)");
}
