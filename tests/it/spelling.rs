//! Spelling variants and framing words at the dispatch boundary, on a small
//! corpus built in process (no vectors): an old German spelling, a British
//! spelling asked in American, an answer that sits in one passage, and a
//! question the corpus cannot answer that must stay insufficient; and a
//! synonym the corpus's concepts declare.

use crate::common::local::Local;
use crate::common::mcp::{state, warning_codes};
use crate::common::write;
use serde_json::{Value, json};
use std::path::Path;

const DOCUMENTS: &[(&str, &str, &str)] = &[
    (
        "plumage",
        "en",
        "The colour of the plumage changes with the season, and the males of brighter colour are preferred by the females.",
    ),
    (
        "iterators",
        "en",
        "Iterator adapters are lazy: they do nothing until they are consumed by a method such as collect or sum.",
    ),
    (
        "daseyn",
        "de",
        "Der Kampf um's Daseyn folgt aus dem raschen Verhältnisse, in welchem sich alle Organismen vermehren.",
    ),
    (
        "isolation",
        "en",
        "Isolation is an important element in the formation of new species, for it checks the crossing of forms.",
    ),
    (
        "voyage",
        "en",
        "When on board the Beagle as naturalist I was much struck with certain facts, which seemed to throw some light on the theory of the origin of species.",
    ),
    (
        "rocks",
        "en",
        "The strata of the rocks were laid down slowly in layers, and the fossils they hold are a fragment of the record the theory needs.",
    ),
    (
        "seeds",
        "en",
        "Seeds are carried across the sea by currents and by birds on a long voyage, and many keep their power to germinate.",
    ),
    (
        "bees",
        "en",
        "The hive bee builds its cells with an economy of wax that follows from the instinct of its ancestors.",
    ),
    (
        "pigeons",
        "en",
        "The breeds of the domestic pigeon descend from the rock pigeon, though they differ greatly in structure.",
    ),
    (
        "hybrids",
        "en",
        "Hybrids are often sterile, though the sterility differs much between the crosses of different species.",
    ),
    (
        "islands",
        "en",
        "Oceanic islands hold few mammals, though bats, which survive the voyage across the sea, are found on many of them.",
    ),
    (
        "inheritance",
        "en",
        "The laws governing inheritance are quite unknown: no one can say why a peculiarity is inherited.",
    ),
    ("wolves", "de", "Die Wölfe jagen ihre Beute, und die schnellsten unter ihnen werden am ehesten erhalten bleiben."),
];

fn corpus(root: &Path) {
    write(root, "corpus.toml", "name = \"spelling\"\ndefault_language = \"en\"\n");
    write(
        root,
        "entities.jsonl",
        r#"{"id":"concept.inheritance","name":"inheritance","aliases":{"en":["inheritance","heredity"]}}"#,
    );
    for (id, language, text) in DOCUMENTS {
        write(
            root,
            &format!("docs/{id}.md"),
            &format!("---\nid: {id}\ntitle: {id}\nwork: notes\nyear: 1860\nlanguage: {language}\n---\n{text}\n"),
        );
    }
}

/// The corpus built once, in process and without vectors.
fn local() -> &'static Local {
    static OPEN: std::sync::OnceLock<(tempfile::TempDir, Local)> = std::sync::OnceLock::new();
    &OPEN
        .get_or_init(|| {
            let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
            corpus(&tmp.path().join("corpus"));
            let no_models = tmp.path().join("no-models");
            std::fs::create_dir_all(&no_models).expect("mkdir");
            evident::index::build(&evident::index::BuildOptions {
                corpus_dir: tmp.path().join("corpus"),
                index_dir: tmp.path().join("index"),
                quiet: true,
                max_document_bytes: None,
                models_dir: Some(no_models),
                model: None,
                strict: false,
                embedding_sessions: None,
                lexical_backend: None,
            })
            .expect("build the spelling corpus");
            let local = Local::open(&tmp.path().join("index"));
            (tmp, local)
        })
        .1
}

fn search(query: &str, extra: Value) -> Value {
    let mut args = json!({"query": query});
    if let (Some(args), Some(extra)) = (args.as_object_mut(), extra.as_object()) {
        args.extend(extra.clone());
    }
    local().envelope("search_passages", args)
}

fn spelling_message(envelope: &Value) -> String {
    envelope["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "SPELLING_VARIANT")
        .map(|w| w["message"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no SPELLING_VARIANT: {}", envelope["warnings"]))
}

fn term(envelope: &Value, word: &str) -> Value {
    let terms = envelope["coverage"]["term_coverage"].as_array().unwrap();
    terms.iter().find(|t| t["term"] == word).cloned().unwrap_or_else(|| panic!("no term {word}: {terms:?}"))
}

fn first_document(envelope: &Value) -> &str {
    envelope["evidence"][0]["document"].as_str().unwrap_or("none")
}

#[test]
fn an_old_german_spelling_counts_as_the_modern_one() {
    let e = search("Kampf ums Dasein", json!({"language": "de"}));
    assert_ne!(state(&e), "INSUFFICIENT_EVIDENCE", "{}", e["evidence_state"]);
    let message = spelling_message(&e);
    assert!(message.contains("\"dasein\"") && message.contains("\"daseyn\""), "{message}");
    assert_eq!(term(&e, "dasein")["in_corpus"], true);
    assert_eq!(first_document(&e), "daseyn");
}

#[test]
fn an_american_spelling_finds_the_british_one_and_the_answer_in_one_passage() {
    let e = search("How does the color of the plumage change?", json!({}));
    assert_ne!(state(&e), "INSUFFICIENT_EVIDENCE", "{}", e["evidence_state"]);
    assert_eq!(e["evidence_state"]["signals"]["key_terms_absent_n"], 0, "{}", e["evidence_state"]);
    assert!(spelling_message(&e).contains("\"colour\""));
    assert_eq!(first_document(&e), "plumage");
    assert!(term(&e, "color")["found_in"].as_u64().unwrap() >= 1, "{}", e["coverage"]);

    let e = search("Why do iterator adaptors do nothing until they are consumed?", json!({}));
    assert_ne!(state(&e), "INSUFFICIENT_EVIDENCE", "{}", e["evidence_state"]);
    assert!(spelling_message(&e).contains("\"adapters\""));
    assert_eq!(first_document(&e), "iterators");
    assert_eq!(e["evidence_state"]["signals"]["key_terms_absent_n"], 0, "{}", e["evidence_state"]);
}

#[test]
fn a_word_the_corpus_holds_or_a_quoted_word_is_not_respelled() {
    let e = search("the colour of the plumage", json!({}));
    assert!(!warning_codes(&e).contains(&"SPELLING_VARIANT".to_owned()), "{}", e["warnings"]);
    let e = search("\"color\" plumage", json!({}));
    assert!(!warning_codes(&e).contains(&"SPELLING_VARIANT".to_owned()), "{}", e["warnings"]);
    assert_eq!(term(&e, "color")["in_corpus"], false);
}

#[test]
fn framing_words_do_not_make_a_question_absent() {
    let e = search("What role does geographical isolation play in the formation of new species?", json!({}));
    assert_ne!(state(&e), "INSUFFICIENT_EVIDENCE", "{}", e["evidence_state"]);
    assert_eq!(first_document(&e), "isolation");
    let e = search("How did the Beagle voyage influence the theory?", json!({}));
    assert_ne!(state(&e), "INSUFFICIENT_EVIDENCE", "{}", e["evidence_state"]);
    assert_eq!(first_document(&e), "voyage");
}

#[test]
fn a_synonym_the_concepts_declare_counts_as_the_term() {
    // "heredity" occurs nowhere; it is an alias of the concept whose passage says "inheritance".
    let e = search("What is the mechanism of heredity?", json!({}));
    assert_ne!(state(&e), "INSUFFICIENT_EVIDENCE", "{}", e["evidence_state"]);
    assert_eq!(term(&e, "heredity")["in_corpus"], true);
    assert_eq!(first_document(&e), "inheritance");
}

#[test]
fn what_the_corpus_lacks_stays_insufficient() {
    for query in ["What is the structure of the DNA double helix?", "How do lasers cut steel plates?"] {
        let e = search(query, json!({}));
        assert_eq!(state(&e), "INSUFFICIENT_EVIDENCE", "{query}: {}", e["evidence_state"]);
    }
}
