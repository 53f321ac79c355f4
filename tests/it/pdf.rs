//! PDF ingest end to end: the real `evident` builds a folder of PDFs (the
//! fixtures of tests/fixtures/pdf, made by scripts/make_pdf_fixtures.sh) without
//! corpus.toml, reports what it could not read, and serves passages with their
//! pages and a citation over MCP.

use crate::common::mcp::{self, state};
use crate::common::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf").join(name)
}

/// A folder of papers as a researcher has it: no corpus.toml, good and bad PDFs.
fn papers(root: &Path, names: &[&str]) -> PathBuf {
    let dir = root.join("papers");
    std::fs::create_dir_all(&dir).unwrap();
    for name in names {
        std::fs::copy(fixture(name), dir.join(name)).unwrap();
    }
    dir
}

fn build_lexical(corpus: &Path, index: &Path, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let no_models = index.with_extension("no-models");
    std::fs::create_dir_all(&no_models).unwrap();
    let mut command = evident();
    command.args(["index", "build", path(corpus), "--index", path(index), "-q", "--models-dir", path(&no_models)]);
    command.args(extra);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap().into()
}

struct Papers {
    _tmp: tempfile::TempDir,
    index: PathBuf,
    built: Run,
}

fn built_papers() -> &'static Papers {
    static BUILT: std::sync::OnceLock<Papers> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let corpus =
            papers(tmp.path(), &["paper.pdf", "scanned.pdf", "encrypted.pdf", "truncated.pdf", "malformed.pdf"]);
        let index = tmp.path().join("index");
        let built = build_lexical(&corpus, &index, &[], &[]);
        Papers { _tmp: tmp, index, built }
    })
}

#[test]
fn a_folder_of_pdfs_builds_without_corpus_toml_and_reports_what_it_could_not_read() {
    let Papers { built, .. } = built_papers();
    // Published without the unreadable files: exit code 3, and the summary counts them.
    assert_eq!(built.code, 3, "{}\n{}", built.stdout, built.stderr);
    assert!(built.stdout.contains(", 3 files skipped, 1 with warnings,"), "{}", built.stdout);
    let stderr = &built.stderr;
    assert!(
        stderr.contains("note: no corpus.toml in ")
            && stderr.contains("building corpus `papers` with default settings (language en)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "warning: scanned.pdf: 2 of 2 pages have no text layer (scanned?); the document is kept without passages"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("warning: encrypted.pdf: skipped: encrypted (it needs a password)"), "{stderr}");
    assert!(stderr.contains("warning: truncated.pdf: skipped: not a readable PDF ("), "{stderr}");
    assert!(stderr.contains("warning: malformed.pdf: skipped: not a readable PDF ("), "{stderr}");
    assert!(stderr.contains("3 file(s) could not be read and were skipped"), "{stderr}");
    // The search table cites the page as printed.
    let table =
        run(&["search", "sodium lamps", "--index", path(&built_papers().index), "-k", "1", "--mode", "lexical"]);
    assert!(table.stdout.contains("p.paper.s03.0001  paper · Results · p. ii"), "{}", table.stdout);
}

#[test]
fn strict_refuses_a_folder_with_an_unreadable_pdf_and_publishes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = papers(tmp.path(), &["paper.pdf", "encrypted.pdf"]);
    let index = tmp.path().join("index");
    let out = build_lexical(&corpus, &index, &["--strict"], &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("error: --strict: 1 file(s) could not be read, so nothing was built:"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("  encrypted.pdf: skipped: encrypted"), "{}", out.stderr);
    assert!(!index.join("CURRENT").exists(), "nothing is published");
    assert_eq!(std::fs::read_dir(index.join("generations")).unwrap().count(), 0, "nothing is left behind");
}

/// A PDF nested half a million arrays deep: pdf_oxide's recursive parser overflows its
/// stack and aborts (checked by hand: `evident extract-pdf` dies with SIGABRT).
fn stack_bomb() -> Vec<u8> {
    let depth = 500_000;
    let mut pdf = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n\
        << /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R \
        /MediaBox [0 0 612 792] /Extra "
        .to_vec();
    pdf.extend(std::iter::repeat_n(b'[', depth));
    pdf.extend(std::iter::repeat_n(b']', depth));
    pdf.extend_from_slice(b" >>\nendobj\ntrailer\n<< /Size 4 /Root 1 0 R >>\n%%EOF\n");
    pdf
}

#[test]
fn a_pdf_that_crashes_the_reader_costs_one_skipped_file_and_the_build_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = papers(tmp.path(), &["paper.pdf"]);
    std::fs::write(corpus.join("deep.pdf"), stack_bomb()).unwrap();
    let index = tmp.path().join("index");
    let out = build_lexical(&corpus, &index, &[], &[]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("warning: deep.pdf: skipped: the extractor died reading it"), "{}", out.stderr);
    assert!(out.stdout.contains(", 1 files skipped, 0 with warnings,"), "{}", out.stdout);
}

#[test]
fn an_unchanged_pdf_reuses_its_passages_on_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = papers(tmp.path(), &["paper.pdf"]);
    let index = tmp.path().join("index");
    assert_eq!(build_lexical(&corpus, &index, &[], &[]).code, 0);
    write(&corpus, "notes.md", "A note written after the first build.\n");
    let again = build_lexical(&corpus, &index, &[], &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains(", 1 of 2 sources reused"), "{}", again.stdout);
}

#[test]
fn a_pdf_that_hangs_or_balloons_the_extractor_costs_one_skipped_file() {
    for (failpoint, reason) in [
        ("pdf-hang", "skipped: reading it took longer than 2 s; it was stopped"),
        ("pdf-balloon", "skipped: the extractor died reading it (a malformed file, or more than 256 MiB of memory)"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let corpus = papers(tmp.path(), &["paper.pdf"]);
        write(&corpus, "corpus.toml", "name = \"bounded\"\n[limits]\npdf_seconds = 2\npdf_memory_mib = 256\n");
        write(&corpus, "notes.md", "A note beside the paper, so the corpus is not empty.\n");
        let index = tmp.path().join("index");
        let started = std::time::Instant::now();
        let out = build_lexical(&corpus, &index, &[], &[("EVIDENT_FAILPOINT", failpoint)]);
        assert_eq!(out.code, 3, "{failpoint}: {}", out.stderr);
        assert!(out.stderr.contains(&format!("warning: paper.pdf: {reason}")), "{failpoint}: {}", out.stderr);
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "{failpoint}: the bound held");
    }
}

/// The evidence item (as get_passage gives it, whole) holding `sentence`, found by searching for it.
fn passage_with(client: &mcp::Mcp, sentence: &str) -> Value {
    let envelope = client.envelope("search_passages", json!({"query": sentence}));
    for hit in envelope["evidence"].as_array().unwrap() {
        let whole = client.envelope("get_passage", json!({"passage_id": hit["passage_id"]}));
        let item = &whole["evidence"][0];
        if item["text"].as_str().unwrap_or("").contains(sentence) {
            return item.clone();
        }
    }
    panic!("no evidence item holds {sentence:?}: {envelope:#}")
}

#[test]
fn sentences_are_found_on_their_page_with_a_citation_and_the_text_reads_as_printed() {
    let Papers { index, .. } = built_papers();
    let client = mcp::start(index);
    for (sentence, page, label) in [
        ("The first probe sentence says that lantern moths gather beside the quartz springs at dusk", 1, "i"),
        ("The right column probe sentence notes that the traps stood ten paces apart", 1, "i"),
        ("The second probe sentence records that the moths avoided traps lit by sodium lamps", 2, "ii"),
        ("The third probe sentence concludes that darkness corridors protect the moth populations", 3, "iii"),
    ] {
        let item = passage_with(&client, sentence);
        let provenance = &item["provenance"];
        assert_eq!(provenance["pages"]["page_start"], page, "{sentence}: {provenance}");
        assert_eq!(provenance["pages"]["label_start"], label, "{sentence}: {provenance}");
        assert_eq!(provenance["citation"], format!("Fenwick and Okafor 2019, p. {label}"), "{provenance}");
        assert_eq!(provenance["source"], "paper.pdf");
    }

    // Reading order: the left column's last words run on into the right column's first.
    let item = passage_with(&client, "the field notes record the temperature");
    let text = item["text"].as_str().unwrap();
    // Words hyphenated at line ends are whole; ligatures are letters.
    for phrase in [
        "Observations of nocturnal",
        "characteristically iridescent scales",
        "The left column continues with",
        "Counting individuals requires",
        "Specimens were photographed against",
        "where the external characters were",
        "light traps placed in the field",
    ] {
        passage_with(&client, phrase);
    }
    // The running header and the page numbers are not text.
    assert!(!text.contains("Journal of Reproducible Fixtures"), "{text}");
    let header = client.envelope("search_passages", json!({"query": "\"Journal of Reproducible Fixtures\""}));
    assert_eq!(header["evidence"].as_array().unwrap().len(), 0, "{header:#}");

    // trace_source says how the text was obtained and where the span counts.
    let id = item["passage_id"].as_str().unwrap();
    let trace = client.envelope("trace_source", json!({"passage_id": id}));
    let chain = &trace["provenance"]["chain"];
    assert_eq!(chain["span_basis"], "pdf_text", "{chain}");
    assert_eq!(chain["extraction"]["extractor"], "pdf_oxide 0.3.78", "{chain}");
    assert_eq!(chain["extraction"]["pages"], 3, "{chain}");
    assert_eq!(chain["extraction"]["text_sha256"].as_str().unwrap().len(), 64, "{chain}");
    assert_eq!(chain["pages"]["page_start"], 1, "{chain}");
    assert_eq!(chain["title"], "Lantern Moths of the Quartz Valley", "{chain}");
}

#[test]
fn sections_come_from_the_outline_and_the_bibliography_is_its_own() {
    let Papers { index, .. } = built_papers();
    let client = mcp::start(index);
    let item = passage_with(&client, "J. Smith. Moths and lamps");
    assert_eq!(item["section"], "References", "{item}");
    let results = passage_with(&client, "The second probe sentence records");
    assert_eq!(results["section"], "Results", "{results}");
    // A question about the paper gets cited evidence.
    let asked = client.envelope("search_passages", json!({"query": "Why did the moths avoid sodium lamps?"}));
    assert_ne!(state(&asked), "INSUFFICIENT_EVIDENCE", "{asked:#}");
    let first = &asked["evidence"][0];
    assert_eq!(first["provenance"]["citation"], "Fenwick and Okafor 2019, p. ii", "{first}");
}

#[test]
fn without_outline_or_numbers_the_sections_come_from_unnumbered_headings() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = papers(tmp.path(), &["unnumbered.pdf"]);
    let index = tmp.path().join("index");
    let built = build_lexical(&corpus, &index, &[], &[]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    let client = mcp::start(&index);
    for (sentence, section) in [
        ("The introductory probe sentence", "Introduction"),
        ("The methods probe sentence", "Methods of Counting"),
        // The figure's label set large between is no section.
        ("The results probe sentence", "Results"),
        ("K. Lindqvist. Beetles under stones", "References"),
    ] {
        let item = passage_with(&client, sentence);
        assert_eq!(item["section"], section, "{item}");
    }
}

#[test]
fn a_zotero_collection_export_builds_as_it_is_and_its_entries_name_the_works() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("Moth papers");
    let attached = "files/12/Fenwick - 2020 - Lantern moths of the quartz valley.pdf";
    std::fs::create_dir_all(corpus.join("files/12")).unwrap();
    std::fs::copy(fixture("paper.pdf"), corpus.join(attached)).unwrap();
    write(
        &corpus,
        "Moth papers.bib",
        &format!(
            "@article{{fenwick2020lantern,\n  title = {{Lantern Moths of the {{Quartz}} Valley, Revisited}},\n  \
             author = {{Fenwick, Ada and Okafor, Rui and Lind, Eva}},\n  date = {{2020-03}},\n  \
             file = {{Full Text PDF:{attached}:application/pdf}}\n}}\n"
        ),
    );
    let index = tmp.path().join("index");
    let out = build_lexical(&corpus, &index, &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let client = mcp::start(&index);
    let item = passage_with(&client, "The second probe sentence records that the moths avoided traps");
    assert_eq!(item["work"], "fenwick2020lantern", "{item}");
    assert_eq!(item["provenance"]["citation"], "Fenwick et al. 2020, p. ii", "{item}");
    let trace = client.envelope("trace_source", json!({"passage_id": item["passage_id"]}));
    assert_eq!(trace["provenance"]["chain"]["title"], "Lantern Moths of the Quartz Valley, Revisited");
}
