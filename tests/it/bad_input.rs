//! Every bad input to `index build` fails with a message naming the file (and
//! line), a non-zero exit, and the serving generation untouched.

use crate::common::*;
use std::path::Path;

struct Fixture {
    _tmp: tempfile::TempDir,
    corpus: std::path::PathBuf,
    index: std::path::PathBuf,
    before: serde_json::Value,
}

/// A good corpus with a built index, ready to be broken.
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    small_corpus(&corpus);
    assert_eq!(build(&corpus, &index).code, 0);
    let before = search_hits(&index, "natural selection", &[]);
    Fixture { _tmp: tmp, corpus, index, before }
}

impl Fixture {
    /// Builds `corpus`, expects failure with `needle` in the message, and checks
    /// the previous generation still serves the same results.
    fn fails(&self, corpus: &Path, needle: &str) -> String {
        let out = build(corpus, &self.index);
        assert_eq!(out.code, 1, "expected failure, got: {}{}", out.stdout, out.stderr);
        // Only warnings about files read before it may come before the error, which is the last line.
        let lines: Vec<&str> = out.stderr.trim_end().lines().collect();
        let (error, before) = lines.split_last().unwrap_or((&"", &[]));
        assert!(error.starts_with("error: "), "{}", out.stderr);
        assert!(before.iter().all(|l| l.starts_with("warning: ")), "{}", out.stderr);
        assert!(out.stderr.contains(needle), "expected {needle:?} in {}", out.stderr);
        assert_eq!(current_generation(&self.index), "gen-000001");
        assert_eq!(search_hits(&self.index, "natural selection", &[]), self.before);
        out.stderr
    }
}

#[test]
fn missing_corpus_directory() {
    let f = fixture();
    f.fails(&f.corpus.join("nope"), "does not exist or is not a directory");
}

#[test]
fn a_malformed_bibliography_names_its_file_and_line() {
    let f = fixture();
    write(&f.corpus, "refs.bib", "@article{fenwick2019,\n  title = {Lantern Moths,\n  year = 2019\n");
    let error = f.fails(&f.corpus, "refs.bib:");
    assert!(error.contains(": invalid bibliography: "), "{error}");
}

#[test]
fn invalid_corpus_toml_names_the_line() {
    let f = fixture();
    write(&f.corpus, "corpus.toml", "name = \"x\"\n\n[chunking]\ntarget_words = \"many\"\n");
    f.fails(&f.corpus, "corpus.toml:4: invalid corpus.toml");
    write(&f.corpus, "corpus.toml", "name = \"x\"\nname = \"y\"\n");
    f.fails(&f.corpus, "corpus.toml:2: invalid corpus.toml");
}

#[test]
fn malformed_jsonl_line() {
    let f = fixture();
    write(&f.corpus, "more.jsonl", "{\"_id\": \"j1\", \"text\": \"fine\"}\n{\"_id\": \"j2\", \"text\": \n");
    f.fails(&f.corpus, "more.jsonl:2: malformed JSONL record");
}

#[test]
fn duplicate_document_ids() {
    let f = fixture();
    write(&f.corpus, "docs/copy.md", "---\nid: ed-1859.ch1\n---\nAnother text.\n");
    f.fails(&f.corpus, "duplicate document id `ed-1859.ch1`: defined at docs/copy.md and again at docs/ed-1859-ch1.md");
}

#[test]
fn invalid_utf8_names_file_and_line() {
    let f = fixture();
    std::fs::write(f.corpus.join("docs/latin1.txt"), b"fine line\nsecond line\nna\xefve third\n").unwrap();
    f.fails(&f.corpus, "docs/latin1.txt:3: invalid UTF-8");
}

#[test]
fn empty_corpus() {
    let f = fixture();
    let empty = f.corpus.parent().unwrap().join("empty");
    write(&empty, "corpus.toml", "name = \"empty\"\n");
    write(&empty, "notes.pdf", "not a document");
    let stderr = f.fails(&empty, "the corpus contains no documents");
    // Why it is empty comes first: the one file was skipped.
    assert!(stderr.starts_with("warning: notes.pdf: skipped: "), "{stderr}");
}

#[test]
fn terminology_row_with_unknown_entity() {
    let f = fixture();
    write(
        &f.corpus,
        "terminology.jsonl",
        "{\"entity\":\"concept.natural_selection\",\"source_language\":\"en\",\"source_term\":\"a\",\"target_language\":\"de\",\"target_term\":\"b\"}\n\
         {\"entity\":\"concept.nowhere\",\"source_language\":\"en\",\"source_term\":\"a\",\"target_language\":\"de\",\"target_term\":\"b\"}\n",
    );
    f.fails(&f.corpus, "terminology.jsonl:2: unknown entity `concept.nowhere`");
}

#[test]
fn entity_relation_to_unknown_entity() {
    let f = fixture();
    write(
        &f.corpus,
        "entities.jsonl",
        "{\"id\":\"concept.a\",\"name\":\"a\"}\n{\"id\":\"concept.b\",\"name\":\"b\",\"relations\":[{\"type\":\"broader\",\"target\":\"concept.c\"}]}\n",
    );
    std::fs::remove_file(f.corpus.join("terminology.jsonl")).unwrap();
    f.fails(&f.corpus, "entities.jsonl:2: unknown entity `concept.c`");
}

#[test]
fn symlink_outside_the_root_is_refused() {
    let f = fixture();
    let outside = f.corpus.parent().unwrap().join("secret.md");
    std::fs::write(&outside, "---\nid: secret\n---\nSecret text.\n").unwrap();
    std::os::unix::fs::symlink(&outside, f.corpus.join("docs/link.md")).unwrap();
    f.fails(&f.corpus, "docs/link.md: symbolic link points outside the corpus root");
}

#[test]
fn symlink_inside_the_root_is_followed() {
    let f = fixture();
    let target = write(&f.corpus, "elsewhere/real.txt", "---\nid: linked\n---\nLinked text about barnacles.\n");
    std::fs::create_dir_all(f.corpus.join("links")).unwrap();
    std::os::unix::fs::symlink(&target, f.corpus.join("links/alias.txt")).unwrap();
    // The same file reached twice defines the same id twice: that is refused too.
    let out = build(&f.corpus, &f.index);
    assert!(out.stderr.contains("duplicate document id `linked`"), "{}", out.stderr);
}

#[test]
fn document_over_the_size_limit() {
    let f = fixture();
    let out =
        run(&["index", "build", path(&f.corpus), "--index", path(&f.index), "--quiet", "--max-document-bytes", "100"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("docs/de/ch1.txt: document is "), "{}", out.stderr);
    assert!(out.stderr.contains("over the limit of 100 bytes"), "{}", out.stderr);
    assert_eq!(current_generation(&f.index), "gen-000001");

    write(&f.corpus, "corpus.toml", "name = \"x\"\n[limits]\nmax_document_bytes = 200\n");
    f.fails(&f.corpus, "over the limit of 200 bytes");
}

#[test]
fn index_directory_that_is_not_an_evident_index() {
    let f = fixture();
    let foreign = f.corpus.parent().unwrap().join("foreign");
    write(&foreign, "thesis.tex", "\\documentclass{article}");
    let out = build(&f.corpus, &foreign);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("is not an evident index"), "{}", out.stderr);
    assert!(foreign.join("thesis.tex").exists());
    assert!(!foreign.join("generations").exists());

    let out = run(&["search", "x", "--index", path(&foreign)]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("is not an evident index"), "{}", out.stderr);

    let out = run(&["search", "x", "--index", path(&f.corpus.join("missing"))]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no index at"), "{}", out.stderr);
}

#[test]
fn a_second_build_while_one_is_running_is_refused() {
    let f = fixture();
    // A lock held by a live process (this test's own).
    std::fs::write(f.index.join("BUILD.lock"), format!("{}\n", std::process::id())).unwrap();
    f.fails(&f.corpus, "another `evident index build` (process");
    // Once that process is gone the lock is stale and the next build takes it over
    // (the killed-build tests exercise the same path with a real SIGKILL).
    std::fs::write(f.index.join("BUILD.lock"), "4000000000\n").unwrap();
    assert_eq!(build(&f.corpus, &f.index).code, 0);
    assert!(!f.index.join("BUILD.lock").exists());
}
