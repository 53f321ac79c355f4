//! The dense lane with the real models: reference embeddings, semantic search,
//! the model chosen per corpus, degradation without the model, model mismatch,
//! incremental re-embedding.
//! Needs the model and runtime that `scripts/setup` (or `scripts/fetch_model.py`) installs.

use crate::common::*;
use evident::vector::{Embedder, Unavailable, default_models_dir};

const DOCS: [&str; 4] = [
    "Hello, World!",
    "This is an example passage.",
    "fastembed-rs is licensed under Apache-2.0",
    "Some other short text here blah blah blah",
];

/// all-MiniLM-L6-v2: the model the reference values below were computed for.
fn embedder() -> Embedder {
    Embedder::load(&default_models_dir(), "all-MiniLM-L6-v2")
        .unwrap_or_else(|e| panic!("the embedding model is required for this test ({e}); run scripts/setup"))
}

#[test]
fn concurrent_callers_get_sessions_of_their_own_and_the_same_vectors() {
    let embedder = embedder();
    assert_eq!(embedder.sessions_loaded(), 1, "one session until callers contend");
    let alone = embedder.embed_one(DOCS[1]).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let results: Vec<Vec<f32>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| (0..20).map(|_| embedder.embed_one(DOCS[1]).unwrap()).last().unwrap()))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for v in &results {
        let gap = v.iter().zip(&alone).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(gap < 1e-6, "every session embeds a text the same way (largest difference {gap})");
    }
    let loaded = embedder.sessions_loaded();
    assert!(loaded <= cores.clamp(1, evident::vector::MAX_SESSIONS), "{loaded} sessions on {cores} cores");
    if cores > 1 {
        assert!(loaded > 1, "four busy callers on {cores} cores should have grown the pool");
    }
    // A repeated query text reuses its vector.
    let queries = embedder.embed_queries(&[DOCS[2], DOCS[2]]).unwrap();
    assert_eq!(queries[0], queries[1]);
    assert_eq!(queries[0], embedder.embed_one(DOCS[2]).unwrap());
}

/// Texts of many lengths, in the order a build embeds them (shortest first).
fn passages_of_many_lengths() -> Vec<String> {
    let words: Vec<&str> = DOCS.iter().flat_map(|d| d.split(' ')).collect();
    let mut texts: Vec<String> =
        (1..=40).map(|n| words.iter().cycle().skip(n).take(n * 3).copied().collect::<Vec<_>>().join(" ")).collect();
    texts.sort_by_key(String::len);
    texts
}

#[test]
fn a_pool_of_any_size_embeds_each_batch_to_the_same_vectors_in_order() {
    let batches: Vec<Vec<String>> = passages_of_many_lengths().chunks(8).map(<[String]>::to_vec).collect();
    let embed_with = |sessions| {
        let pool = Embedder::load_pool(&default_models_dir(), "all-MiniLM-L6-v2", Some(sessions)).unwrap();
        assert_eq!(pool.sessions_loaded(), sessions.min(evident::vector::MAX_SESSIONS), "loaded up front");
        let mut seen: Vec<(Vec<String>, Vec<Vec<f32>>)> = Vec::new();
        pool.embed_batches_in_order(&batches, Vec::clone, 8, |batch, vectors| {
            seen.push((batch.clone(), vectors));
            Ok(())
        })
        .unwrap();
        seen
    };
    let one = embed_with(1);
    let four = embed_with(4);
    let order: Vec<&Vec<String>> = one.iter().map(|(batch, _)| batch).collect();
    assert_eq!(order, batches.iter().collect::<Vec<_>>(), "handed back in the batches' order");
    assert!(one.iter().all(|(batch, vectors)| vectors.len() == batch.len()));
    for ((batch, alone), (_, pooled)) in one.iter().zip(&four) {
        // Bit for bit: a rebuild with another pool size must not move a single vector.
        assert_eq!(alone, pooled, "batch starting {:?}", batch[0]);
    }
}

#[test]
fn a_pool_stops_at_the_first_failure_of_what_takes_its_vectors() {
    let batches: Vec<Vec<String>> = passages_of_many_lengths().chunks(2).map(<[String]>::to_vec).collect();
    let pool = Embedder::load_pool(&default_models_dir(), "all-MiniLM-L6-v2", Some(2)).unwrap();
    let mut taken = 0;
    let failed = pool.embed_batches_in_order(&batches, Vec::clone, 2, |_, _| {
        taken += 1;
        if taken == 3 { Err(Unavailable("the store is full".into())) } else { Ok(()) }
    });
    assert_eq!(failed.unwrap_err().to_string(), "the store is full");
    assert_eq!(taken, 3, "nothing is handed on after a failure");
}

#[test]
fn builds_with_one_and_four_embedding_sessions_rank_alike_and_a_bad_count_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    small_corpus(&corpus);
    let build_with = |sessions: &str| {
        let index = tmp.path().join(format!("index-{sessions}"));
        let out = run(&[
            "index",
            "build",
            path(&corpus),
            "--index",
            path(&index),
            "--quiet",
            "--embedding-sessions",
            sessions,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        index
    };
    let (one, four) = (build_with("1"), build_with("4"));
    for query in ["how do animals compete to survive", "variation under domestication"] {
        let a = search_json(&one, query, &["--mode", "vector", "-k", "50"]);
        let b = search_json(&four, query, &["--mode", "vector", "-k", "50"]);
        assert_eq!(ids(&a["evidence"]), ids(&b["evidence"]), "{query}");
    }
    for bad in ["0", "5", "many"] {
        let out = run(&[
            "index",
            "build",
            path(&corpus),
            "--index",
            path(&tmp.path().join("bad")),
            "--embedding-sessions",
            bad,
        ]);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(
            out.stderr.starts_with(&format!(
                "error: invalid value '{bad}' for '--embedding-sessions <EMBEDDING_SESSIONS>': "
            )),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn embeddings_match_reference_values() {
    let vectors = embedder().embed(&DOCS, 32).unwrap();
    // fastembed's published check for all-MiniLM-L6-v2: the sum of each embedding.
    let fastembed_sums = [0.59605527f32, 0.36542925, -0.16450031, -0.40903988];
    // First values from an independent float64 NumPy forward pass of the same
    // safetensors weights (BERT encoder, mean pooling, L2 normalisation).
    let reference_heads: [[f32; 8]; 4] = [
        [-0.0381771, 0.0329111, -0.0054594, 0.0143699, -0.040291, -0.1165325, 0.0316877, 0.0019117],
        [0.0396197, 0.0830217, 0.097925, 0.0792067, 0.0327985, 0.0192511, 0.0113251, -0.0779293],
        [0.0175587, -0.039514, -0.0653943, -0.0347757, 0.0614842, 0.0856992, -0.1098445, -0.0524482],
        [0.0057848, 0.0739755, 0.093241, 0.0384466, 0.0482758, 0.0267446, 0.0599284, -0.0006215],
    ];
    for (i, v) in vectors.iter().enumerate() {
        assert_eq!(v.len(), 384);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "not unit length: {norm}");
        let sum: f32 = v.iter().sum();
        assert!((sum - fastembed_sums[i]).abs() < 1e-4, "doc {i}: sum {sum} vs {}", fastembed_sums[i]);
        for (j, expected) in reference_heads[i].iter().enumerate() {
            assert!((v[j] - expected).abs() < 1e-4, "doc {i} dim {j}: {} vs {expected}", v[j]);
        }
    }
    // Batching does not change results.
    let one = embedder().embed_one(DOCS[1]).unwrap();
    assert!(one.iter().zip(&vectors[1]).all(|(a, b)| (a - b).abs() < 1e-5));
}

#[test]
fn vector_search_finds_passages_in_other_words() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    small_corpus(&corpus);
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(" embedded, 0 reused"), "{}", out.stdout);

    let outcome = search_json(&index, "how do animals compete to survive", &["--mode", "vector", "-k", "3"]);
    assert_eq!(outcome["retrieval"]["lanes"], serde_json::json!(["vector"]));
    let top = outcome["evidence"][0]["text"].as_str().unwrap().to_lowercase();
    assert!(top.contains("struggle"), "{top}");

    let hybrid = search_json(&index, "struggle for existence", &["--mode", "hybrid"]);
    assert_eq!(hybrid["retrieval"]["lanes"], serde_json::json!(["lexical", "vector"]));
    assert_eq!(hybrid["retrieval"]["vector_enabled"], true);
    let first = &hybrid["evidence"][0];
    let ranks = first["component_ranks"].as_object().unwrap();
    assert!(ranks.contains_key("lexical") && ranks.contains_key("vector"), "{first}");
}

#[test]
fn the_cli_reranks_the_fused_list_on_request() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();
    let query = "how do animals compete to survive";
    let fused = search_json(&index, query, &["-k", "50"]);
    assert!(fused["retrieval"]["rerank"].is_null() && fused["evidence"][0]["fused_rank"].is_null());
    let reranked = search_json(&index, query, &["-k", "3", "--rerank", "cross_encoder"]);
    let rerank = &reranked["retrieval"]["rerank"];
    assert_eq!(rerank["method"], "cross_encoder");
    assert_eq!(rerank["status"], "applied", "{rerank}");
    // search_passages's reranker reads the fused top 50.
    let read = rerank["reranked"].as_u64().unwrap();
    assert_eq!(read as usize, fused["evidence"].as_array().unwrap().len().min(50));
    let hits = reranked["evidence"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    for hit in hits {
        let fused_rank = hit["fused_rank"].as_u64().unwrap() as usize;
        assert_eq!(fused["evidence"][fused_rank - 1]["passage_id"], hit["passage_id"]);
    }

    // The table reads as deep a fused list as asked; the envelope has no such parameter.
    let rerank_args = ["search", query, "--index", path(&index), "-k", "3", "--rerank", "cross_encoder"];
    let table = run(&[&rerank_args[..], &["--rerank-depth", "20"]].concat());
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stdout.contains("  1  p."), "{}", table.stdout);
    let refused = run(&[&rerank_args[..], &["--rerank-depth", "20", "--json"]].concat());
    assert_eq!(refused.code, 1);
    assert_eq!(
        refused.stderr.trim_end(),
        "error: invalid argument: --rerank-depth applies to the table only: with --json the reranker reads the \
         fused top 50, as search_passages does; drop --rerank-depth or --json"
    );
    // --json answers as search_passages does, within its limits.
    let deep = run(&["search", query, "--index", path(&index), "-k", "51", "--json"]);
    assert_eq!(deep.code, 1);
    assert_eq!(
        deep.stderr.trim_end(),
        "error: invalid argument: out_of_range: `top_k` must be between 1 and 50, got 51"
    );
}

#[test]
fn missing_model_builds_lexical_only_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index, models) = (tmp.path().join("corpus"), tmp.path().join("index"), tmp.path().join("no-models"));
    small_corpus(&corpus);
    let out = run_with_env(
        &["index", "build", path(&corpus), "--index", path(&index), "--quiet"],
        "EVIDENT_MODELS_DIR",
        &models,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("warning: vector lane skipped: model bge-small-en is not installed"), "{}", out.stderr);
    assert_names_the_install_command(&out.stderr, "bge-small-en");
    assert!(out.stdout.contains("vector lane skipped"), "{}", out.stdout);

    // Hybrid search still answers, lexically, and says so.
    let hybrid =
        run_with_env(&["search", "struggle", "--index", path(&index), "--json"], "EVIDENT_MODELS_DIR", &models);
    assert_eq!(hybrid.code, 0, "{}", hybrid.stderr);
    let json: serde_json::Value = serde_json::from_str(&hybrid.stdout).unwrap();
    assert!(crate::common::mcp::warning_codes(&json).contains(&"VECTOR_LANE_DISABLED".to_owned()), "{json}");
    assert_eq!(json["retrieval"]["vector_enabled"], false);
    assert_eq!(json["retrieval"]["lanes"], serde_json::json!(["lexical", "feedback"]));
    assert!(!json["evidence"].as_array().unwrap().is_empty());
    let table = run_with_env(&["search", "struggle", "--index", path(&index)], "EVIDENT_MODELS_DIR", &models);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stderr.contains("VECTOR_LANE_DISABLED"), "{}", table.stderr);

    // Forcing the vector lane is a clear error.
    let forced = run(&["search", "struggle", "--index", path(&index), "--mode", "vector"]);
    assert_eq!(forced.code, 1);
    assert!(
        forced.stderr.contains("the vector lane is unavailable: the index was built without vectors"),
        "{}",
        forced.stderr
    );
}

#[test]
fn index_built_with_another_model_is_refused() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();
    let mut manifest = manifest(&index);
    assert_eq!(manifest["vector"]["model"], "bge-small-en", "the default model");
    // The installed bge-small-en is not the model these vectors were made with.
    manifest["vector"]["model_id"] = "BAAI/bge-small-en-v1.0".into();
    std::fs::write(manifest_path(&index), serde_json::to_string(&manifest).unwrap()).unwrap();

    let out = run(&["search", "struggle", "--index", path(&index)]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("the index was built with embedding model BAAI/bge-small-en-v1.0 (384 dimensions) but this installation has BAAI/bge-small-en-v1.5"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_corpus_chooses_its_model_and_search_embeds_queries_with_the_index_model() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    small_corpus(&corpus);
    let toml = std::fs::read_to_string(corpus.join("corpus.toml")).unwrap();
    std::fs::write(corpus.join("corpus.toml"), format!("{toml}\n[vector]\nmodel = \"all-MiniLM-L6-v2\"\n")).unwrap();
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let vector = &manifest(&index)["vector"];
    assert_eq!(vector["model"], "all-MiniLM-L6-v2");
    assert_eq!(vector["model_id"], "sentence-transformers/all-MiniLM-L6-v2");
    // Search loads the index's model, not the default (bge-small-en, which
    // would be refused as a mismatch), and finds the passage in other words.
    let outcome = search_json(&index, "how do animals compete to survive", &["--mode", "vector", "-k", "3"]);
    assert_eq!(outcome["retrieval"]["vector_enabled"], true);
    let top = outcome["evidence"][0]["text"].as_str().unwrap().to_lowercase();
    assert!(top.contains("struggle"), "{top}");

    // A model the corpus names and this machine lacks fails the build, naming the command.
    std::fs::write(corpus.join("corpus.toml"), format!("{toml}\n[vector]\nmodel = \"not-installed-model\"\n")).unwrap();
    let out = build(&corpus, &tmp.path().join("other"));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_names_the_install_command(&out.stderr, "not-installed-model");
    // `--model` replaces the corpus's choice, and is a name, never a path.
    let other = tmp.path().join("other");
    let out = run(&["index", "build", path(&corpus), "--index", path(&other), "--quiet", "--model", "../models"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("`../models` is not a model name"), "{}", out.stderr);
    let out =
        run(&["index", "build", path(&corpus), "--index", path(&other), "--quiet", "--model", "all-MiniLM-L6-v2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(manifest(&other)["vector"]["model"], "all-MiniLM-L6-v2");
}

/// `stderr` says the model is not installed and how to install it.
fn assert_names_the_install_command(stderr: &str, model: &str) {
    assert!(
        stderr.contains(&format!("model {model} is not installed"))
            && stderr.contains(&format!("`scripts/fetch_model.py --model {model}`")),
        "{stderr}"
    );
}

/// Passages of Bronn's 1863 German translation, each aligned by hand with an
/// English question it answers (none shares a word with its question).
const ALIGNED: [(&str, &str, &str); 4] = [
    (
        "mistel",
        "Da die Saamen der Mistel von Vögeln ausgestreut werden, so hängt ihr Daseyn mit von dem der Vögel ab und \
         man kann metaphorisch sagen, sie ringen mit andern Beeren-tragenden Pflanzen.",
        "The mistletoe depends on birds to spread its seeds",
    ),
    (
        "kuckuck",
        "Man hat zwar versichert, auch der Amerikanische Kuckuck lege zuweilen seine Eier in fremde Nester. Nehmen \
         wir nun an, der Stamm-Vater unsres Europäischen Kuckucks habe doch zuweilen ein Ei in das Nest eines \
         andren Vogels gelegt.",
        "Why does the cuckoo leave its eggs for other birds to raise?",
    ),
    (
        "tauben",
        "Wie gross nun aber auch die Verschiedenheit zwischen den Tauben-Rassen seyn mag, so bin ich doch \
         überzeugt, dass die gewöhnliche Meinung der Naturforscher, dass alle von der Felstaube abstammen, richtig ist.",
        "Do all the races of pigeons come from the rock pigeon?",
    ),
    (
        "rudimente",
        "Es ist eine wichtige Erscheinung, dass rudimentäre Organe, wie die Zähne im Oberkiefer der Wale und \
         Wiederkäuer, oft im Embryo zu entdecken sind und nachher völlig verschwinden.",
        "Why do useless teeth appear in unborn whales and then vanish?",
    ),
];

#[test]
fn an_english_question_finds_the_aligned_german_passage_with_the_multilingual_model() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    std::fs::create_dir_all(corpus.join("de")).unwrap();
    std::fs::write(
        corpus.join("corpus.toml"),
        "name = \"aligned\"\ndefault_language = \"en\"\n[vector]\nmodel = \"multilingual-e5-small\"\n",
    )
    .unwrap();
    for (id, text, _) in ALIGNED {
        let doc = format!("---\nid: de.{id}\ntitle: Kapitel\nlanguage: de\n---\n{text}\n");
        std::fs::write(corpus.join("de").join(format!("{id}.md")), doc).unwrap();
    }
    std::fs::write(
        corpus.join("en.md"),
        "---\nid: en.other\nlanguage: en\n---\nThe struggle for life is most severe.\n",
    )
    .unwrap();
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for (id, _, question) in ALIGNED {
        let found = search_json(&index, question, &["--mode", "vector", "--language", "de", "-k", "1"]);
        assert_eq!(found["evidence"][0]["document"], format!("de.{id}"), "{question}");
        // The words alone do not find it: the passage shares none with the question.
        let lexical = search_json(&index, question, &["--mode", "lexical", "--language", "de", "-k", "4"]);
        assert!(
            lexical["evidence"].as_array().unwrap().iter().all(|h| h["document"] != format!("de.{id}")),
            "{question}: {lexical}"
        );
    }
}

#[test]
fn incremental_rebuild_embeds_only_changed_sources() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    small_corpus(&corpus);
    let first = build(&corpus, &index);
    let passages: usize = first.stdout.split(", ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();

    let again = build(&corpus, &index);
    assert!(again.stdout.contains(&format!("{passages} vectors (0 embedded, {passages} reused")), "{}", again.stdout);

    let doc = corpus.join("docs/ed-1859-ch2.md");
    std::fs::write(&doc, std::fs::read_to_string(&doc).unwrap() + "\nA closing sentence about barnacles.\n").unwrap();
    let changed = build(&corpus, &index);
    let embedded: usize =
        changed.stdout.split(" vectors (").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(embedded > 0 && embedded < passages / 2, "{}", changed.stdout);

    // Reused vectors give the same answers as a fresh build.
    let fresh = tmp.path().join("fresh");
    assert_eq!(build(&corpus, &fresh).code, 0);
    for query in ["how do animals compete to survive", "letters of a word that are not pronounced"] {
        let a = search_json(&index, query, &["--mode", "vector", "-k", "10"]);
        let b = search_json(&fresh, query, &["--mode", "vector", "-k", "10"]);
        assert_eq!(ids(&a["evidence"]), ids(&b["evidence"]), "{query}");
    }
}
