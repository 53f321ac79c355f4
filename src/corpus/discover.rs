//! Finding the files of a corpus: a sorted walk that refuses symbolic links
//! leading outside the root and skips hidden and reserved files.

use std::path::{Path, PathBuf};
use walkdir::WalkDir;

use crate::error::{Error, IoContext, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Text,
    Jsonl,
    Pdf,
    Html,
    Entities,
    Terminology,
    /// A BibTeX/BibLaTeX file at the root: metadata of the corpus's PDFs.
    Bibliography,
}

#[derive(Debug, Clone)]
pub(crate) struct CorpusFile {
    pub(crate) path: PathBuf,
    /// Path relative to the corpus root, `/`-separated.
    pub(crate) relative: String,
    pub(crate) kind: FileKind,
}

/// Names at the corpus root that are not documents.
const RESERVED_ROOT_FILES: &[&str] = &["corpus.toml", "queries.jsonl", "README.md", "README.txt"];
/// BEIR relevance judgements live here; they are not documents.
const RESERVED_ROOT_DIRS: &[&str] = &["qrels"];

pub(crate) fn corpus_files(root: &Path) -> Result<Vec<CorpusFile>> {
    let mut files = Vec::new();
    let walker = WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_skipped(e.path(), root, e.file_type().is_dir()));
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e.path().map(Path::to_owned).unwrap_or_else(|| root.to_owned());
            Error::Io { path, source: e.into() }
        })?;
        if entry.depth() == 0 {
            continue;
        }
        let path = entry.path().to_owned();
        let is_file = if entry.path_is_symlink() {
            let target = path.canonicalize().at(&path)?;
            if !target.starts_with(root) {
                return Err(Error::SymlinkOutsideRoot { link: relative(&path, root).into() });
            }
            target.is_file()
        } else {
            entry.file_type().is_file()
        };
        if !is_file {
            continue;
        }
        let relative = relative(&path, root);
        if let Some(kind) = classify(&relative) {
            files.push(CorpusFile { path, relative, kind });
        }
    }
    Ok(files)
}

fn is_skipped(path: &Path, root: &Path, is_dir: bool) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with('.') {
        return true;
    }
    let at_root = path.parent() == Some(root);
    at_root && ((is_dir && RESERVED_ROOT_DIRS.contains(&name)) || (!is_dir && RESERVED_ROOT_FILES.contains(&name)))
}

fn classify(relative: &str) -> Option<FileKind> {
    match relative {
        "entities.jsonl" => return Some(FileKind::Entities),
        "terminology.jsonl" => return Some(FileKind::Terminology),
        _ => {}
    }
    let extension = relative.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase())?;
    if extension == "bib" {
        return (!relative.contains('/')).then_some(FileKind::Bibliography);
    }
    match extension.as_str() {
        "md" | "markdown" | "txt" => Some(FileKind::Text),
        "jsonl" => Some(FileKind::Jsonl),
        "pdf" => Some(FileKind::Pdf),
        "html" | "htm" => Some(FileKind::Html),
        _ => None,
    }
}

fn relative(path: &Path, root: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_name_and_extension() {
        assert_eq!(classify("entities.jsonl"), Some(FileKind::Entities));
        assert_eq!(classify("docs/a.MD"), Some(FileKind::Text));
        assert_eq!(classify("corpus.jsonl"), Some(FileKind::Jsonl));
        assert_eq!(classify("sub/entities.jsonl"), Some(FileKind::Jsonl));
        assert_eq!(classify("papers/Smith 2019.PDF"), Some(FileKind::Pdf));
        assert_eq!(classify("site/index.HTM"), Some(FileKind::Html));
        assert_eq!(classify("references.bib"), Some(FileKind::Bibliography));
        assert_eq!(classify("files/12/notes.bib"), None);
        assert_eq!(classify("image.png"), None);
        assert_eq!(classify("Makefile"), None);
    }
}
