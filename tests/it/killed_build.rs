//! A build killed with SIGKILL half-way leaves the previous generation serving.

use crate::common::*;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

fn kill_at(failpoint: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, index) = (tmp.path().join("corpus"), tmp.path().join("index"));
    small_corpus(&corpus);
    assert_eq!(build(&corpus, &index).code, 0);
    let before = search_hits(&index, "struggle for existence", &[]);
    assert!(!before.as_array().unwrap().is_empty());

    // Change the corpus so the killed build would have produced different results.
    write(&corpus, "docs/extra.md", "---\nid: extra\nyear: 1880\n---\nThe struggle for existence, again and again.\n");
    let mut child = evident()
        .args(["index", "build", path(&corpus), "--index", path(&index), "--quiet"])
        .env("EVIDENT_FAILPOINT", failpoint)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let paused = lines.by_ref().map_while(Result::ok).any(|l| l.contains(&format!("failpoint {failpoint}: paused")));
    assert!(paused, "build never reached {failpoint}");
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();

    assert_eq!(current_generation(&index), "gen-000001");
    assert_eq!(search_hits(&index, "struggle for existence", &[]), before);

    // The next build clears the debris and publishes normally.
    let out = build(&corpus, &index);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(current_generation(&index), "gen-000002");
    let staging: Vec<_> = std::fs::read_dir(index.join("generations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(staging.is_empty(), "{staging:?}");
    assert!(search_hits(&index, "again and again", &["--mode", "lexical"]).as_array().unwrap().len() == 1);
}

#[test]
fn killed_build_mid_stream_keeps_previous_generation() {
    kill_at("mid-build");
}

#[test]
fn killed_build_before_publish_keeps_previous_generation() {
    kill_at("before-publish");
}
