//! A published generation is never written by its readers: `search` and
//! `serve` run on an index whose files are read-only and leave every file of
//! the generation as the build wrote it (bytes and modification time); vector
//! store copies a killed reader leaves behind are removed by the next reader;
//! damage is found by length on open and by hash with `evident index verify`.

use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use walkdir::WalkDir;

use crate::common::mcp::{index_copy, start, warning_codes};
use crate::common::{evident, path, run};

/// Every file under `root`: modification time, length and sha256.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (std::time::SystemTime, u64, String)> {
    files(root)
        .map(|path| {
            let meta = std::fs::metadata(&path).unwrap();
            let digest = format!("{:x}", Sha256::digest(std::fs::read(&path).unwrap()));
            (path.strip_prefix(root).unwrap().to_owned(), (meta.modified().unwrap(), meta.len(), digest))
        })
        .collect()
}

/// The files under `root`.
fn files(root: &Path) -> impl Iterator<Item = PathBuf> {
    WalkDir::new(root).into_iter().map(|e| e.unwrap()).filter(|e| e.file_type().is_file()).map(|e| e.into_path())
}

fn set_read_only(root: &Path, read_only: bool) {
    // Contents first, so a directory is made read-only after what is in it.
    for entry in WalkDir::new(root).contents_first(true) {
        let path = entry.unwrap().into_path();
        let mut permissions = std::fs::metadata(&path).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(read_only);
        std::fs::set_permissions(&path, permissions).unwrap();
    }
}

fn vector_copies(index: &Path) -> Vec<String> {
    let readers = index.join("state").join("readers");
    let Ok(entries) = std::fs::read_dir(readers) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("copy-") && !n.ends_with(".lock"))
        .collect();
    names.sort();
    names
}

#[test]
fn readers_write_nothing_under_a_read_only_generation() {
    let tmp = tempfile::tempdir().unwrap();
    let index = index_copy(tmp.path());
    let generations = index.join("generations");
    set_read_only(&index, true);
    let before = snapshot(&generations);

    let out = run(&["search", "natural selection", "--index", path(&index), "--mode", "hybrid", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let result: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(result["retrieval"]["vector_enabled"], true, "{}", result["warnings"]);

    let mcp = start(&index);
    let envelope = mcp.envelope("search_passages", json!({"query": "natural selection", "retrieval_mode": "hybrid"}));
    assert!(!warning_codes(&envelope).contains(&"VECTOR_LANE_DISABLED".to_owned()), "{}", envelope["warnings"]);
    assert!(envelope["retrieval"]["lanes"].as_array().unwrap().iter().any(|l| l == "vector"));
    drop(mcp);

    let after = snapshot(&generations);
    set_read_only(&index, false);
    assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>(), "files were added or removed");
    for (file, state) in &before {
        assert_eq!(state, &after[file], "{} changed", file.display());
    }
}

#[test]
fn a_copy_left_by_a_killed_reader_is_removed_by_the_next_one() {
    let tmp = tempfile::tempdir().unwrap();
    let index = index_copy(tmp.path());
    let mut server = evident()
        .args(["serve", "--index", path(&index)])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while vector_copies(&index).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let leaked = vector_copies(&index);
    assert_eq!(leaked.len(), 1, "the server made its private copy");
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(vector_copies(&index), leaked, "a killed reader cannot clean up after itself");

    let out = run(&["search", "natural selection", "--index", path(&index), "--mode", "hybrid"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(vector_copies(&index), Vec::<String>::new(), "the next reader removed the abandoned copy and its own");
}

#[test]
fn verify_names_a_damaged_file_and_open_refuses_it() {
    let tmp = tempfile::tempdir().unwrap();
    let index = index_copy(tmp.path());
    let out = run(&["index", "verify", "--index", path(&index)]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("0 damaged"), "{}", out.stdout);

    let generation = index.join("generations").join(crate::common::current_generation(&index));
    let segment = std::fs::read_dir(generation.join("lexical"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .unwrap();
    std::fs::OpenOptions::new().write(true).open(&segment).unwrap().set_len(10).unwrap();
    let name = format!("lexical/{}", segment.file_name().unwrap().to_str().unwrap());

    let out = run(&["index", "verify", "--index", path(&index), "--json"]);
    assert_eq!(out.code, 1);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["intact"], false);
    assert_eq!(report["damage"][0]["file"], name.as_str());

    let out = run(&["search", "natural selection", "--index", path(&index)]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains(&name), "{}", out.stderr);
    assert!(!out.stderr.contains("IoError"), "no Debug text: {}", out.stderr);
}

/// A lane's files damaged while a server reads them: the lexical lane's query
/// files (postings, positions, dictionaries) were read whole at open, so it
/// keeps answering from what the generation held when opened; the vector
/// lane reads its private copy and is unaffected. (A document store, read
/// with positional reads, turns truncation into an I/O error rather than
/// SIGBUS: `lexical::directory`'s tests.)
#[test]
fn files_truncated_under_a_running_server_do_not_kill_it() {
    let tmp = tempfile::tempdir().unwrap();
    let index = index_copy(tmp.path());
    let mcp = start(&index);
    let query = json!({"query": "struggle for existence", "retrieval_mode": "lexical"});
    let before = mcp.envelope("search_passages", query.clone());
    // A lexical search does not wait for the vector lane; this one does, so
    // the lane has its private copy of the store before the damage.
    let loaded = json!({"query": "variation under domestication", "retrieval_mode": "vector"});
    assert!(!mcp.envelope("search_passages", loaded)["evidence"].as_array().unwrap().is_empty());
    let generation = index.join("generations").join(crate::common::current_generation(&index));
    for path in files(&generation) {
        if path.file_name().is_some_and(|n| n == "chunk_0.mmap")
            || path.extension().is_some_and(|e| e == "idx" || e == "pos" || e == "term" || e == "store")
        {
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(16).unwrap();
        }
    }
    let vector =
        mcp.envelope("search_passages", json!({"query": "variation under domestication", "retrieval_mode": "vector"}));
    assert!(!vector["evidence"].as_array().unwrap().is_empty());
    let after = mcp.envelope("search_passages", query);
    assert!(!after["evidence"].as_array().unwrap().is_empty());
    assert_eq!(after["evidence"], before["evidence"], "answered from the files as they were at open");
    mcp.ping();
}
