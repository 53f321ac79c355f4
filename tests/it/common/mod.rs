//! Helpers for tests that run the real `evident` binary against corpora built
//! in a temporary directory.
#![allow(dead_code)]

pub mod cases;
pub mod http;
pub mod local;
pub mod mcp;
pub mod raw;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn evident() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_evident"));
    cmd.env_remove("EVIDENT_INDEX").env_remove("EVIDENT_FAILPOINT").env("NO_COLOR", "1");
    cmd
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

pub fn run(args: &[&str]) -> Run {
    evident().args(args).output().expect("spawn evident").into()
}

/// `run` with one environment variable set.
pub fn run_with_env(args: &[&str], key: &str, value: &Path) -> Run {
    evident().args(args).env(key, value).output().expect("spawn evident").into()
}

/// The small corpus written to `<tmp>/corpus` and built into `<tmp>/index`.
pub struct Built {
    pub tmp: tempfile::TempDir,
    pub corpus: PathBuf,
    pub index: PathBuf,
}

pub fn built_small_corpus() -> Built {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    small_corpus(&corpus);
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    Built { tmp, corpus, index }
}

pub fn build(corpus: &Path, index: &Path) -> Run {
    run(&["index", "build", path(corpus), "--index", path(index), "--quiet"])
}

/// `evident search --json`: the envelope `search_passages` returns (`retrieval`, `evidence`, …).
pub fn search_json(index: &Path, query: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["search", query, "--index", path(index), "--json"];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert_eq!(out.code, 0, "search failed: {}", out.stderr);
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("search --json printed no JSON ({e}): {}\nstderr: {}", out.stdout, out.stderr))
}

/// Just the evidence items of `evident search --json`.
pub fn search_hits(index: &Path, query: &str, extra: &[&str]) -> serde_json::Value {
    search_json(index, query, extra)["evidence"].clone()
}

pub fn ids(hits: &serde_json::Value) -> Vec<String> {
    hits.as_array().expect("array").iter().map(|h| h["passage_id"].as_str().expect("id").to_owned()).collect()
}

/// A JSON array that must not be empty: an `all()` over it then says something.
pub fn items(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    let array = v.as_array().expect("a JSON array");
    assert!(!array.is_empty(), "expected at least one item");
    array
}

pub fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

pub fn write(root: &Path, rel: &str, content: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, content).expect("write");
    p
}

const ENGLISH: &[&str] = &[
    "Natural selection acts only by the preservation of variations that are useful to the being.",
    "The struggle for existence follows from the high rate at which all organic beings increase.",
    "Every being must suffer destruction during some period of its life, in the struggle for life.",
    "Breeders select the best animals, and methodical selection has changed many domestic races.",
    "The geological record is extremely imperfect, and this explains why we do not find endless varieties.",
    "Rudimentary organs may be compared with the letters in a word which are retained in the spelling.",
    "Extinction follows chiefly from the competition of forms which have been improved by selection.",
    "Divergence of character is important, for the more diversified the descendants become the better.",
];

const GERMAN: &[&str] = &[
    "Die natürliche Züchtung wirkt nur durch die Erhaltung solcher Abänderungen, die dem Wesen nützlich sind.",
    "Der Kampf um’s Daseyn folgt aus dem raschen Verhältnisse, in welchem sich alle Organismen vermehren.",
    "Die Unvollkommenheit der geologischen Urkunde erklärt, warum wir keine endlosen Varietäten finden.",
    "Rudimentäre Organe lassen sich mit den Buchstaben eines Wortes vergleichen, die nicht ausgesprochen werden.",
];

/// A chapter of `paragraphs` paragraphs cycling through `sentences`, each
/// paragraph tagged with its chapter and number so texts differ.
fn chapter_text(sentences: &[&str], chapter: usize, paragraphs: usize) -> String {
    let mut text = String::new();
    for p in 0..paragraphs {
        for s in 0..4 {
            let sentence = sentences[(chapter + p + s) % sentences.len()];
            text.push_str(sentence);
            text.push_str(if s == 1 { "\n" } else { " " });
        }
        text.push_str(&format!("Paragraph {p} of chapter {chapter} ends here.\n\n"));
    }
    text
}

/// A small bilingual corpus: corpus.toml, three English chapters from two
/// editions, two German chapters, entities and terminology (~60 passages).
pub fn small_corpus(root: &Path) {
    write(
        root,
        "corpus.toml",
        r#"name = "test-corpus"
default_language = "en"

[[periods]]
id = "early"
label = "Early"
start = 1850
end = 1860

[[periods]]
id = "late"
label = "Late"
start = 1861
end = 1880

[chunking]
target_words = 40
max_words = 80
"#,
    );
    for (chapter, work, year) in [(1, "ed-1859", 1859), (2, "ed-1859", 1859), (1, "ed-1872", 1872)] {
        let mut text = chapter_text(ENGLISH, chapter, 6);
        if year == 1872 {
            text.push_str("This principle is called natural selection, or the survival of the fittest.\n");
        }
        write(
            root,
            &format!("docs/{work}-ch{chapter}.md"),
            &format!(
                "---\nid: {work}.ch{chapter}\ntitle: Chapter {chapter}\nwork: {work}\nsection: Chapter {chapter}\n\
                 section_order: {chapter}\nyear: {year}\nlanguage: en\nwitness: {year}-en\n---\n{text}"
            ),
        );
    }
    for chapter in [1, 2] {
        write(
            root,
            &format!("docs/de/ch{chapter}.txt"),
            &format!(
                "---\nid: ed-1863-de.ch{chapter}\ntitle: Kapitel {chapter}\nwork: ed-1863-de\nyear: 1863\n\
                 language: de\nwitness: 1863-de\n---\n{}",
                chapter_text(GERMAN, chapter, 4)
            ),
        );
    }
    write(
        root,
        "entities.jsonl",
        concat!(
            r#"{"id":"concept.natural_selection","name":"natural selection","aliases":{"en":["natural selection"],"de":["natürliche Züchtung"]},"review_status":"reviewed","relations":[{"type":"broader","target":"concept.selection"}]}"#,
            "\n",
            r#"{"id":"concept.selection","name":"selection","aliases":{"en":["selection"]},"ambiguous":true}"#,
            "\n",
            r#"{"id":"concept.struggle","name":"struggle for existence","aliases":{"en":["struggle for existence","struggle for life"],"de":["Kampf um’s Daseyn"]}}"#,
            "\n"
        ),
    );
    write(
        root,
        "terminology.jsonl",
        r#"{"entity":"concept.natural_selection","source_language":"en","source_term":"natural selection","target_language":"de","target_term":"natürliche Züchtung","review_status":"reviewed"}
"#,
    );
}

/// Name of the generation `CURRENT` points to.
pub fn current_generation(index: &Path) -> String {
    std::fs::read_to_string(index.join("CURRENT")).expect("CURRENT").trim().to_owned()
}

/// The serving generation's manifest file.
pub fn manifest_path(index: &Path) -> std::path::PathBuf {
    index.join("generations").join(current_generation(index)).join("manifest.json")
}

/// The serving generation's manifest.
pub fn manifest(index: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(manifest_path(index)).expect("manifest")).expect("manifest JSON")
}
