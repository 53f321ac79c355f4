//! The files of a generation as the build left them: each file's length and
//! sha256, recorded in the manifest. Opening checks lengths (one `stat` per
//! file, so damage is found before a lane reads it); `evident index verify`
//! checks hashes too.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

use walkdir::WalkDir;

use crate::error::{Error, IoContext, Result};

/// What the build recorded of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileRecord {
    pub(crate) bytes: u64,
    pub(crate) sha256: String,
}

/// Relative path (with `/`) → record, for every file under a generation but its manifest.
pub(crate) type FileTable = BTreeMap<String, FileRecord>;

/// The manifest names itself nowhere in its table: it cannot hold its own hash.
pub(crate) const MANIFEST_FILE: &str = "manifest.json";

/// One way a generation differs from what its build recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Damage {
    pub(crate) file: String,
    pub(crate) problem: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.problem)
    }
}

/// Records every file under `generation` (its manifest aside).
pub(crate) fn record(generation: &Path) -> Result<FileTable> {
    let mut table = FileTable::new();
    for relative in list(generation)? {
        let path = generation.join(&relative);
        let bytes = std::fs::metadata(&path).at(&path)?.len();
        table.insert(relative, FileRecord { bytes, sha256: hash(&path)? });
    }
    Ok(table)
}

/// Files whose length differs from the record, or that are missing.
pub(crate) fn check_lengths(generation: &Path, table: &FileTable) -> Vec<Damage> {
    table
        .iter()
        .filter_map(|(file, record)| {
            let problem = match std::fs::metadata(generation.join(file)) {
                Err(_) => "missing".to_owned(),
                Ok(meta) if meta.len() != record.bytes => {
                    format!("{} bytes, the build wrote {}", meta.len(), record.bytes)
                }
                Ok(_) => return None,
            };
            Some(Damage { file: file.clone(), problem })
        })
        .collect()
}

/// Every difference from the record: lengths, contents, and files the build did not write.
pub(crate) fn verify(generation: &Path, table: &FileTable) -> Result<Vec<Damage>> {
    let mut damage = check_lengths(generation, table);
    for (file, record) in table {
        if damage.iter().any(|d| &d.file == file) {
            continue;
        }
        if hash(&generation.join(file))? != record.sha256 {
            damage.push(Damage { file: file.clone(), problem: "contents differ from what the build wrote".into() });
        }
    }
    for file in list(generation)? {
        if !table.contains_key(&file) {
            damage.push(Damage { file, problem: "not written by the build".into() });
        }
    }
    damage.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(damage)
}

/// Relative paths (with `/`) of the files under `root`, sorted, the manifest left out.
fn list(root: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    for entry in WalkDir::new(root).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::Io { path: root.to_owned(), source: e.into() })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else { continue };
        let relative: Vec<String> =
            relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let relative = relative.join("/");
        if relative != MANIFEST_FILE {
            files.push(relative);
        }
    }
    files.sort();
    Ok(files)
}

fn hash(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).at(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).at(path)?;
    Ok(format!("{:x}", hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lexical")).unwrap();
        std::fs::write(dir.path().join("lexical/seg.idx"), b"postings").unwrap();
        std::fs::write(dir.path().join("meta.sqlite"), b"rows").unwrap();
        std::fs::write(dir.path().join(MANIFEST_FILE), b"{}").unwrap();
        dir
    }

    #[test]
    fn records_every_file_but_the_manifest() {
        let dir = generation();
        let table = record(dir.path()).unwrap();
        assert_eq!(table.keys().collect::<Vec<_>>(), ["lexical/seg.idx", "meta.sqlite"]);
        assert_eq!(table["meta.sqlite"].bytes, 4);
        assert!(check_lengths(dir.path(), &table).is_empty());
        assert!(verify(dir.path(), &table).unwrap().is_empty());
    }

    #[test]
    fn a_truncated_file_fails_the_length_check() {
        let dir = generation();
        let table = record(dir.path()).unwrap();
        std::fs::write(dir.path().join("lexical/seg.idx"), b"post").unwrap();
        let damage = check_lengths(dir.path(), &table);
        assert_eq!(
            damage,
            vec![Damage { file: "lexical/seg.idx".into(), problem: "4 bytes, the build wrote 8".into() }]
        );
    }

    #[test]
    fn changed_missing_and_extra_files_fail_verification() {
        let dir = generation();
        let table = record(dir.path()).unwrap();
        std::fs::write(dir.path().join("lexical/seg.idx"), b"POSTINGS").unwrap();
        std::fs::remove_file(dir.path().join("meta.sqlite")).unwrap();
        std::fs::write(dir.path().join("lexical/.tantivy-meta.lock"), b"").unwrap();
        let damage = verify(dir.path(), &table).unwrap();
        let problems: Vec<String> = damage.iter().map(ToString::to_string).collect();
        assert_eq!(
            problems,
            [
                "lexical/.tantivy-meta.lock: not written by the build",
                "lexical/seg.idx: contents differ from what the build wrote",
                "meta.sqlite: missing"
            ]
        );
    }
}
