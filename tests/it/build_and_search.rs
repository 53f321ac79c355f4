//! End-to-end: `evident index build` then `evident search`, on corpora built here.

use crate::common::*;
use rusqlite::Connection;

type PassageSpan = (String, String, i64, i64, i64, i64);

fn passages(index: &std::path::Path) -> Vec<PassageSpan> {
    let generation = current_generation(index);
    let db = index.join("generations").join(generation).join("meta.sqlite");
    let conn = Connection::open(db).unwrap();
    let mut stmt =
        conn.prepare("SELECT id, text, byte_start, byte_end, line_start, line_end FROM passages ORDER BY id").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn build_prints_summary_and_search_finds_passages() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    small_corpus(&corpus);
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("built gen-000001: 5 documents, "), "{}", out.stdout);
    assert!(out.stdout.contains("3 entities"), "{}", out.stdout);

    let hits = search_hits(&index, "struggle for existence", &[]);
    let first = &hits[0];
    assert!(first["passage_id"].as_str().unwrap().starts_with("p.ed-18"));
    assert!(first["text"].as_str().unwrap().to_lowercase().contains("struggle for"));
    assert!(first["why_retrieved"].as_str().unwrap().contains(" #1"), "{first}");

    let table = run(&["search", "struggle for existence", "--index", path(&index), "-k", "2"]);
    assert_eq!(table.code, 0);
    assert!(table.stdout.contains("  1  p.ed-"), "{}", table.stdout);
    assert!(table.stdout.contains("[struggle]"), "{}", table.stdout);
}

#[test]
fn passage_spans_point_at_the_source_text() {
    let Built { tmp: _tmp, corpus, index } = built_small_corpus();
    let source = std::fs::read_to_string(corpus.join("docs/ed-1859-ch1.md")).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let rows: Vec<_> = passages(&index).into_iter().filter(|p| p.0.starts_with("p.ed-1859.ch1.")).collect();
    assert!(rows.len() > 3);
    for (id, text, start, end, line_start, line_end) in rows {
        let span = &source[start as usize..end as usize];
        assert_eq!(span.split_whitespace().collect::<Vec<_>>().join(" "), text, "{id}");
        let first_word = text.split_whitespace().next().unwrap();
        assert!(lines[line_start as usize - 1].contains(first_word), "{id} starts on line {line_start}");
        let last_word = text.split_whitespace().last().unwrap();
        assert!(lines[line_end as usize - 1].contains(last_word), "{id} ends on line {line_end}");
    }
}

#[test]
fn two_builds_give_identical_passages() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    small_corpus(&corpus);
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    assert_eq!(build(&corpus, &a).code, 0);
    assert_eq!(build(&corpus, &b).code, 0);
    let (pa, pb) = (passages(&a), passages(&b));
    assert!(pa.len() > 20, "only {} passages", pa.len());
    assert_eq!(pa, pb);
    assert_eq!(ids(&search_hits(&a, "natural selection", &[])), ids(&search_hits(&b, "natural selection", &[])));
}

#[test]
fn rebuild_reuses_unchanged_sources_and_matches_a_fresh_build() {
    let Built { tmp, corpus, index } = built_small_corpus();
    let again = build(&corpus, &index);
    assert!(again.stdout.contains("5 of 5 sources reused"), "{}", again.stdout);

    let doc = corpus.join("docs/ed-1859-ch2.md");
    let text = std::fs::read_to_string(&doc).unwrap() + "\nA new closing sentence about natural selection.\n";
    std::fs::write(&doc, text).unwrap();
    let changed = build(&corpus, &index);
    assert!(changed.stdout.contains("4 of 5 sources reused"), "{}", changed.stdout);
    assert_eq!(current_generation(&index), "gen-000003");

    let fresh = tmp.path().join("fresh");
    assert_eq!(build(&corpus, &fresh).code, 0);
    assert_eq!(passages(&index), passages(&fresh));
    // Only the last two generations are kept.
    let mut generations: Vec<String> = std::fs::read_dir(index.join("generations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    generations.sort();
    assert_eq!(generations, vec!["gen-000002", "gen-000003"]);
}

#[test]
fn language_and_work_filters_restrict_results() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();

    let german = search_hits(&index, "natürliche Züchtung", &["--language", "de"]);
    assert!(!german.as_array().unwrap().is_empty());
    assert!(crate::common::items(&german).iter().all(|h| h["language"] == "de"));

    let late = search_hits(&index, "survival of the fittest", &["--work", "ed-1872"]);
    assert!(!late.as_array().unwrap().is_empty());
    assert!(crate::common::items(&late).iter().all(|h| h["work"] == "ed-1872"));

    // An English query is not answered first by German passages.
    let english = search_hits(&index, "natural selection", &["-k", "3", "--mode", "lexical"]);
    assert!(crate::common::items(&english).iter().all(|h| h["language"] == "en"), "{english}");
}

#[test]
fn quoted_phrase_must_match_in_order() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();
    let hits = search_hits(&index, "\"survival of the fittest\"", &["-k", "50"]);
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["text"].as_str().unwrap().contains("survival of the fittest")));
    assert!(search_hits(&index, "\"fittest the of survival\"", &[]).as_array().unwrap().is_empty());
}

/// Whether `text` holds `first` then `second` (as word beginnings) with only
/// non-word characters between, as a phrase of their stems matches.
fn adjacent(text: &str, first: &str, second: &str) -> bool {
    let words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.windows(2).any(|w| w[0].starts_with(first) && w[1].starts_with(second))
}

#[test]
fn a_phrase_of_common_words_is_read_from_their_pairs_and_matches_in_order() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();
    // The build chose the corpus's common words and wrote them beside the pairs.
    let meta = index.join("generations").join(current_generation(&index)).join("lexical/meta.json");
    let meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(meta).unwrap()).unwrap();
    let payload: serde_json::Value = serde_json::from_str(meta["payload"].as_str().unwrap()).unwrap();
    let english: Vec<&str> =
        payload["common_words"]["en"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(english.contains(&"natur") && english.contains(&"select"), "{payload}");
    assert!(payload["common_words"]["de"].as_array().is_some_and(|w| !w.is_empty()), "{payload}");

    let hits = search_hits(&index, "\"natural selection\"", &["--mode", "exact", "-k", "50"]);
    let texts: Vec<&str> = crate::common::items(&hits).iter().map(|h| h["text"].as_str().unwrap()).collect();
    assert!(texts.len() >= 3, "{hits}");
    assert!(texts.iter().all(|t| adjacent(t, "natur", "select")), "{hits}");
    // The other order is another phrase, which no passage of this corpus holds:
    // a pair lookup that ignored order would find the passages above.
    let reversed = search_hits(&index, "\"selection natural\"", &["--mode", "exact", "-k", "50"]);
    assert!(reversed.as_array().unwrap().is_empty(), "{reversed}");
}

#[test]
fn exact_mode_finds_a_passage_by_id_or_phrase() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();
    let by_id = search_json(&index, "p.ed-1859.ch1.0002", &["--mode", "exact"]);
    assert_eq!(ids(&by_id["evidence"]), vec!["p.ed-1859.ch1.0002"]);
    assert_eq!(by_id["retrieval"]["route"], "exact");
    let phrase = search_hits(&index, "survival of the fittest", &["--mode", "exact", "-k", "50"]);
    assert!(!phrase.as_array().unwrap().is_empty());
    assert!(
        crate::common::items(&phrase).iter().all(|h| h["text"].as_str().unwrap().contains("survival of the fittest"))
    );
}

#[test]
fn auto_mode_routes_by_the_rule_table() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();
    let phrase = search_json(&index, "\"struggle for life\"", &[]);
    assert_eq!(phrase["retrieval"]["route"], "auto.quoted_phrase");
    // A phrase and nothing else: the exact and the lexical lane would run one
    // identical query, so it runs once.
    assert_eq!(phrase["retrieval"]["lanes"], serde_json::json!(["exact"]));
    let mixed = search_json(&index, "\"struggle for life\" organic beings", &[]);
    assert_eq!(mixed["retrieval"]["lanes"], serde_json::json!(["exact", "lexical"]));
    let concept = search_json(&index, "what is natural selection", &[]);
    assert_eq!(concept["retrieval"]["route"], "auto.concept");
    assert_eq!(concept["resolution"]["entities"][0]["id"], "concept.natural_selection");
    assert_eq!(concept["resolution"]["entities"].as_array().unwrap().len(), 1);
    assert_eq!(concept["retrieval"]["lanes"], serde_json::json!(["entity", "lexical", "vector"]));
    let plain = search_json(&index, "why are fossils missing", &[]);
    assert_eq!(plain["retrieval"]["route"], "auto.default");
    assert_eq!(plain["retrieval"]["lanes"], serde_json::json!(["lexical", "vector"]));
}

#[test]
fn query_syntax_characters_never_error() {
    let Built { tmp: _tmp, corpus: _, index } = built_small_corpus();
    for query in [
        "natural (selection",
        "\"natural selection",
        "selection:",
        "-struggle",
        "struggle*",
        "a:b(c)[d]{e}^2~3",
        "\"\"",
        "AND OR NOT",
        "\\",
        "+++---",
        "“Kampf um’s Daseyn”",
    ] {
        let out = run(&["search", query, "--index", path(&index), "--json"]);
        assert_eq!(out.code, 0, "query {query:?}: {}", out.stderr);
        assert!(serde_json::from_str::<serde_json::Value>(&out.stdout).is_ok(), "query {query:?}");
    }
}

#[test]
fn beir_layout_indexes_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("beir"), tmp.path().join("index"));
    write(
        &corpus,
        "corpus.jsonl",
        concat!(
            r#"{"_id": "d1", "title": "Vitamin D", "text": "Vitamin D deficiency is common in winter.", "metadata": {}}"#,
            "\n",
            r#"{"_id": "d2", "title": "Sleep", "text": "Sleep loss impairs memory consolidation.", "metadata": {}}"#,
            "\n"
        ),
    );
    write(&corpus, "queries.jsonl", r#"{"_id": "q1", "text": "vitamin"}"#);
    write(&corpus, "qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("2 documents, 2 passages"), "{}", out.stdout);
    assert_eq!(ids(&search_hits(&index, "memory", &["--mode", "lexical"])), vec!["p.d2.0001"]);
}

#[test]
fn a_folder_without_corpus_toml_builds_with_defaults_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("my notes"), tmp.path().join("index"));
    small_corpus(&corpus);
    std::fs::remove_file(corpus.join("corpus.toml")).unwrap();
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let notes: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes.len(), 1, "{}", out.stderr);
    assert!(notes[0].ends_with("building corpus `my notes` with default settings (language en)"), "{}", notes[0]);
    assert_eq!(manifest(&index)["corpus_name"], "my notes");
    assert!(!search_hits(&index, "natural selection", &[]).as_array().unwrap().is_empty());
}

#[test]
fn a_generation_of_another_schema_version_is_refused() {
    let built = built_small_corpus();
    let manifest = manifest_path(&built.index);
    let mut value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    value["store_schema_version"] = serde_json::json!(999);
    std::fs::write(&manifest, value.to_string()).unwrap();
    let out = run(&["search", "natural selection", "--index", path(&built.index)]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("schema 999") && out.stderr.contains("rebuild"), "{}", out.stderr);
    let serve = run(&["serve", "--index", path(&built.index)]);
    assert_ne!(serve.code, 0);
    assert!(serve.stderr.contains("refuses to start"), "{}", serve.stderr);
}

/// (number, id) of every passage, by number.
fn numbers(index: &std::path::Path) -> Vec<(i64, String)> {
    let db = index.join("generations").join(current_generation(index)).join("meta.sqlite");
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT no, id FROM passages ORDER BY no").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// Passage ids by source path, then place in the file, then ordinal.
fn in_corpus_order(index: &std::path::Path) -> Vec<String> {
    let db = index.join("generations").join(current_generation(index)).join("meta.sqlite");
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT p.id FROM passages p JOIN documents d ON d.id = p.document_id JOIN sources s ON s.id = d.source_id \
             ORDER BY s.path, d.source_line, p.ordinal",
        )
        .unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

/// (id, text) of each hit, in rank order.
fn hit_texts(index: &std::path::Path, query: &str, mode: &str) -> Vec<(String, String)> {
    let hits = search_hits(index, query, &["--mode", mode]);
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| (h["passage_id"].as_str().unwrap().to_owned(), h["text"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn passages_are_numbered_in_corpus_order_and_a_renumbering_rebuild_answers_as_a_fresh_build() {
    let Built { tmp, corpus, index } = built_small_corpus();
    let numbered = numbers(&index);
    assert_eq!(numbered.iter().map(|(no, _)| *no).collect::<Vec<_>>(), (0..numbered.len() as i64).collect::<Vec<_>>());
    assert_eq!(numbered.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>(), in_corpus_order(&index));

    // A file whose path sorts first shifts every other passage's number; the
    // other sources are reused, their passages renumbered.
    write(
        &corpus,
        "docs/aaa-first.md",
        "---\nid: aaa\ntitle: First\nwork: ed-1859\nyear: 1859\n---\nThe struggle for existence among seedlings.\n",
    );
    let rebuilt = build(&corpus, &index);
    assert!(rebuilt.stdout.contains("5 of 6 sources reused"), "{}", rebuilt.stdout);
    assert_eq!(numbers(&index)[0], (0, "p.aaa.0001".to_owned()));
    let fresh = tmp.path().join("fresh");
    assert_eq!(build(&corpus, &fresh).code, 0);
    assert_eq!(numbers(&index), numbers(&fresh));
    for mode in ["lexical", "exact", "auto"] {
        let (rebuilt, fresh) =
            (hit_texts(&index, "struggle for existence", mode), hit_texts(&fresh, "struggle for existence", mode));
        assert!(!rebuilt.is_empty(), "{mode}");
        assert_eq!(rebuilt, fresh, "{mode}");
        // Each hit is the passage its id names, and holds what was asked for.
        let by_id: std::collections::HashMap<String, String> =
            passages(&index).into_iter().map(|p| (p.0, p.1)).collect();
        for (id, text) in &rebuilt {
            assert_eq!(&by_id[id], text, "{mode}: {id}");
        }
        assert!(rebuilt[0].1.to_lowercase().contains("struggle"), "{mode}: {:?}", rebuilt[0]);
    }
}

/// Marks the serving generation as written with store schema `version`.
fn mark_schema(index: &std::path::Path, version: u32) {
    let manifest = manifest_path(index);
    let mut value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    value["store_schema_version"] = serde_json::json!(version);
    std::fs::write(&manifest, value.to_string()).unwrap();
    let db = index.join("generations").join(current_generation(index)).join("meta.sqlite");
    let conn = Connection::open(db).unwrap();
    conn.execute("UPDATE meta SET value = ?1 WHERE key = 'schema_version'", [version.to_string()]).unwrap();
}

#[test]
fn an_older_schema_is_not_served_but_its_passages_are_reused_and_an_unknown_one_is_not() {
    let Built { tmp: _tmp, corpus, index } = built_small_corpus();
    // Schema 1 (before passage numbers): refused for serving, its passages reused by the next build.
    mark_schema(&index, 1);
    let refused = run(&["search", "natural selection", "--index", path(&index)]);
    assert_ne!(refused.code, 0);
    assert!(refused.stderr.contains("schema 1") && refused.stderr.contains("rebuild"), "{}", refused.stderr);
    let rebuilt = build(&corpus, &index);
    assert!(rebuilt.stdout.contains("5 of 5 sources reused"), "{}", rebuilt.stdout);
    assert!(!search_hits(&index, "natural selection", &[]).as_array().unwrap().is_empty());
    // A schema this build does not know is not read at all.
    mark_schema(&index, 999);
    let again = build(&corpus, &index);
    assert!(again.stdout.contains("0 of 5 sources reused"), "{}", again.stdout);
}
