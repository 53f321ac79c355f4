//! HTML ingest end to end: a page's main text becomes passages whose byte and
//! line spans point into the HTML file, navigation and scripts never do.

use crate::common::mcp;
use crate::common::*;
use serde_json::json;

const PAGE: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head><title>Dark Corridors for Moths</title>\n\
<style>body { font-family: serif }</style><script>document.write('<p>tracking pixel text</p>')</script></head>\n\
<body>\n<nav><a href=\"/\">Home</a> <a href=\"/blog\">Blog archive navigation</a></nav>\n<main>\n\
<h1>Dark Corridors for Moths</h1>\n<p>Street lamps along the river draw the lantern moths away from the meadows\n\
where their caterpillars feed, and the counts fall wherever the lamps stand.</p>\n\
<h2>What the survey found</h2>\n<p>Switching the lamps off after midnight restored the counts within two \
summers &amp; the meadows recovered.</p>\n</main>\n<footer>Copyright notice of the footer</footer>\n</body></html>\n";

#[test]
fn a_page_is_indexed_by_its_main_text_with_spans_into_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("site");
    write(&corpus, "posts/dark-corridors.html", PAGE);
    let index = tmp.path().join("index");
    let no_models = tmp.path().join("no-models");
    std::fs::create_dir_all(&no_models).unwrap();
    let out = run(&["index", "build", path(&corpus), "--index", path(&index), "-q", "--models-dir", path(&no_models)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("note: no corpus.toml in "), "{}", out.stderr);

    let client = mcp::start(&index);
    let found =
        client.envelope("search_passages", json!({"query": "lamps draw the lantern moths away from the meadows"}));
    let item = &found["evidence"][0];
    assert_eq!(item["document"], "posts.dark-corridors.s01", "{item}");
    assert_eq!(item["section"], "Dark Corridors for Moths", "{item}");
    let trace = client.envelope("trace_source", json!({"passage_id": item["passage_id"]}));
    let chain = &trace["provenance"]["chain"];
    assert_eq!(chain["title"], "Dark Corridors for Moths");
    assert_eq!(chain["span_basis"], "file");
    let [start, end] =
        [chain["byte_span"][0].as_u64().unwrap() as usize, chain["byte_span"][1].as_u64().unwrap() as usize];
    let source = &PAGE[start..end];
    assert!(source.starts_with("Dark Corridors for Moths</h1>"), "{source}");
    assert!(source.ends_with("wherever the lamps stand."), "{source}");
    let line = chain["line_span"][0].as_u64().unwrap() as usize;
    assert!(PAGE.lines().nth(line - 1).unwrap().contains("<h1>Dark Corridors"), "line {line}");

    // The second section, with a character reference in it.
    let second = client.envelope("search_passages", json!({"query": "switching the lamps off after midnight"}));
    assert_eq!(second["evidence"][0]["section"], "What the survey found");
    for absent in ["tracking pixel", "\"Blog archive navigation\"", "\"Copyright notice\"", "font-family"] {
        let none = client.envelope("search_passages", json!({"query": absent}));
        let texts: Vec<&str> =
            none["evidence"].as_array().unwrap().iter().map(|i| i["text"].as_str().unwrap()).collect();
        assert!(texts.iter().all(|t| !t.contains(absent.trim_matches('"'))), "{absent}: {texts:?}");
    }
}
