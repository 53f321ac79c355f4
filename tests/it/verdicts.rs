//! The verdict tracks support (the verdict issue's corrected cases), at the dispatch boundary
//! on the small test corpus: phrasings of one question share a state, a
//! question about something the corpus lacks is insufficient, neighbours in
//! meaning are not evidence, a quoted phrase found word for word supports.

use crate::common::local::{Local, shared};
use crate::common::mcp::{state, warning_codes};
use serde_json::{Value, json};

/// Each query, asked as an agent asks it, gets `expected`.
fn assert_each_gets(queries: &[&str], expected: &str) {
    let mcp = shared();
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
    let mcp = shared();
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
    let mcp = shared();
    let e = mcp.envelope("search_passages", json!({"query": "\"letters in a word\""}));
    assert_eq!(e["evidence_state"]["rule"], "supported.verbatim_phrase", "{}", e["evidence_state"]);
    assert_eq!(e["evidence_state"]["signals"]["phrases_verbatim_n"], 1);
}

#[test]
fn the_author_and_discourse_words_do_not_count_as_content() {
    let mcp = shared();
    let plain = mcp.envelope("search_passages", json!({"query": "rudimentary organs"}));
    let asked = mcp.envelope("search_passages", json!({"query": "What does the book say about rudimentary organs?"}));
    assert_eq!(plain["evidence_state"]["signals"]["key_terms_n"], 2, "{}", plain["evidence_state"]);
    assert_eq!(asked["evidence_state"]["signals"]["key_terms_n"], 2, "{}", asked["evidence_state"]);
    assert_eq!(state(&plain), state(&asked));
}

/// A corpus written by Charles Darwin whose only passage on the deity is about
/// his grandfather Erasmus: a question about Darwin's view must not be answered
/// with it, a question about Erasmus must.
fn namesake_index(tmp: &std::path::Path) -> std::path::PathBuf {
    use crate::common::write;
    let corpus = tmp.join("corpus");
    write(
        &corpus,
        "corpus.toml",
        "name = \"namesakes\"\ndefault_language = \"en\"\n\n[chunking]\ntarget_words = 40\nmax_words = 80\n",
    );
    let paragraphs = [
        "It is curious how largely my grandfather, Dr. Erasmus Darwin, anticipated the views of Lamarck; \
         in his Zoonomia he wrote of the deity as the first great cause of all organic life on the earth.",
        "The eye, with all its inimitable contrivances for adjusting the focus to different distances, could \
         have been formed by natural selection through numberless gradations from an imperfect and simple eye.",
        "In the eye of the eagle and in the eye of the mole we see gradations of perfection, each useful to \
         its possessor, and each a step by which a more perfect organ might be reached.",
        "The pigeons kept by fanciers differ in the length of the beak and in the number of tail feathers, \
         yet all are descended from the rock pigeon, as their crosses and their reversions show.",
        "The breeders of cattle and sheep select the best animals through many generations, and the \
         accumulated differences between their breeds are greater than those between many wild species.",
        "Seeds carried by ocean currents, by the feet of birds and by floating ice reach distant islands, \
         which explains how plants of one continent come to live upon islands far from it.",
        "The geological record is extremely imperfect: only a small portion of the globe has been explored, \
         and only certain classes of organic beings have been preserved as fossils in the strata.",
        "Rudimentary organs, such as the teeth of the foetal whale, may be compared with the letters in a \
         word which are still retained in the spelling but have become useless in the pronunciation.",
    ];
    write(
        &corpus,
        "docs/notes.md",
        &format!(
            "---\nid: notes\ntitle: Notes\nauthor: Charles Darwin\nyear: 1872\n---\n{}\n",
            paragraphs.join("\n\n")
        ),
    );
    write(
        &corpus,
        "entities.jsonl",
        concat!(
            r#"{"id":"person.charles_darwin","name":"Charles Darwin","kind":"person","aliases":{"*":["Charles Darwin","Darwin"]}}"#,
            "\n",
            r#"{"id":"person.erasmus_darwin","name":"Erasmus Darwin","kind":"person","aliases":{"*":["Erasmus Darwin","Dr. Darwin"]}}"#,
            "\n"
        ),
    );
    let index = tmp.join("index");
    let out = crate::common::build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    index
}

#[test]
fn evidence_about_a_namesake_does_not_answer_a_question_about_the_person() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mcp = Local::open(&namesake_index(tmp.path()));
    for query in ["Darwin's view on the deity", "What does Darwin say about the deity?"] {
        let e = mcp.envelope("search_passages", json!({"query": query}));
        assert_eq!(e["evidence_state"]["rule"], "insufficient.namesakes_only", "{query}: {}", e["evidence_state"]);
        assert!(warning_codes(&e).contains(&"NAMESAKE_MENTIONS".to_owned()), "{}", e["warnings"]);
        let marked: Vec<&Value> = e["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["why_retrieved"].as_str().unwrap().contains("another person of the same name"))
            .collect();
        assert_eq!(marked.len(), 1, "only the Erasmus passage is marked: {}", e["evidence"]);
        assert!(marked[0]["text"].as_str().unwrap().contains("Erasmus"));
    }
    // Asked about Erasmus, the same passage answers (lexical and entity lanes agree on it).
    let e = mcp.envelope("search_passages", json!({"query": "Erasmus Darwin on the deity"}));
    assert_eq!(state(&e), "SUPPORTED", "{}", e["evidence_state"]);
    // The author covers his own text: a question about what he wrote is decided by its key terms.
    let e = mcp.envelope("search_passages", json!({"query": "What does Darwin say about the eye?"}));
    assert_eq!(state(&e), "SUPPORTED", "{}", e["evidence_state"]);
    assert_eq!(e["evidence_state"]["signals"]["entities_covered_n"], 1, "{}", e["evidence_state"]);
    // All eight passages come back; only the one on Erasmus is set aside.
    assert_eq!(e["evidence_state"]["signals"]["namesake_n"], 1, "{}", e["evidence_state"]);
}
