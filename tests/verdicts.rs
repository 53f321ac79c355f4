//! The verdict tracks support (the verdict issue's corrected cases), over MCP
//! on the small test corpus: phrasings of one question share a state, a
//! question about something the corpus lacks is insufficient, neighbours in
//! meaning are not evidence, a quoted phrase found word for word supports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::mcp::{shared_index, start, state, warning_codes};
use serde_json::json;

/// Each query, asked as an agent asks it, gets `expected`.
fn assert_each_gets(queries: &[&str], expected: &str) {
    let mcp = start(shared_index());
    for query in queries {
        let e = mcp.envelope("search_passages", json!({"query": query}));
        assert_eq!(state(&e), expected, "{query}: {}", e["evidence_state"]);
    }
}

#[test]
fn three_phrasings_of_an_answerable_question_are_supported() {
    assert_each_gets(
        &[
            "geological record imperfect",
            "Why is the geological record so imperfect?",
            "What does the text say about the imperfection of the geological record?",
        ],
        "SUPPORTED",
    );
}

#[test]
fn questions_about_what_the_corpus_lacks_are_insufficient() {
    assert_each_gets(
        &[
            "DNA double helix structure",
            "What is the structure of the DNA double helix?",
            "How much money did Apple make last quarter?",
        ],
        "INSUFFICIENT_EVIDENCE",
    );
}

#[test]
fn neighbours_in_meaning_are_marked_cut_to_snippets_and_not_evidence() {
    let mcp = start(shared_index());
    // The words exist only in the German passages; English passages can only be neighbours.
    let e = mcp.envelope(
        "search_passages",
        json!({"query": "Erhaltung Abänderungen", "language": "en", "retrieval_mode": "vector"}),
    );
    assert_eq!(e["evidence_state"]["rule"], "insufficient.neighbours_only", "{}", e["evidence_state"]);
    assert!(warning_codes(&e).contains(&"NEIGHBOURS_ONLY".to_owned()), "{}", e["warnings"]);
    let items = e["evidence"].as_array().unwrap();
    assert!(!items.is_empty());
    for item in items {
        assert!(item["why_retrieved"].as_str().unwrap().contains("neighbour"), "{item}");
        assert!(item["text"].as_str().unwrap().chars().count() <= evident::surface::SNIPPET_CHARS);
    }
}

#[test]
fn a_quoted_phrase_found_word_for_word_is_direct_evidence() {
    let mcp = start(shared_index());
    let e = mcp.envelope("search_passages", json!({"query": "\"letters in a word\""}));
    assert_eq!(e["evidence_state"]["rule"], "supported.verbatim_phrase", "{}", e["evidence_state"]);
    assert_eq!(e["evidence_state"]["signals"]["phrases_verbatim_n"], 1);
}

#[test]
fn the_author_and_discourse_words_do_not_count_as_content() {
    let mcp = start(shared_index());
    let plain = mcp.envelope("search_passages", json!({"query": "rudimentary organs"}));
    let asked = mcp.envelope("search_passages", json!({"query": "What does the book say about rudimentary organs?"}));
    assert_eq!(plain["evidence_state"]["signals"]["key_terms_n"], 2, "{}", plain["evidence_state"]);
    assert_eq!(asked["evidence_state"]["signals"]["key_terms_n"], 2, "{}", asked["evidence_state"]);
    assert_eq!(state(&plain), state(&asked));
}
