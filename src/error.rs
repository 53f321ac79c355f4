//! The crate's error type. Every failure a user can cause is a variant with a
//! message that names the file (and line where there is one) and says what to do.

use std::path::PathBuf;

/// A location in a corpus file, rendered as `path:line` (line omitted when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLocation {
    pub(crate) path: PathBuf,
    pub(crate) line: Option<usize>,
}

impl FileLocation {
    pub(crate) fn file(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), line: None }
    }

    pub(crate) fn line(path: impl Into<PathBuf>, line: usize) -> Self {
        Self { path: path.into(), line: Some(line) }
    }
}

impl std::fmt::Display for FileLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.path.display()),
            None => write!(f, "{}", self.path.display()),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("corpus directory {0} does not exist or is not a directory")]
    CorpusDirMissing(PathBuf),

    #[error("{location}: invalid corpus.toml: {reason}")]
    CorpusTomlInvalid { location: FileLocation, reason: String },

    #[error("{location}: malformed JSONL record: {reason}")]
    MalformedJsonl { location: FileLocation, reason: String },

    #[error("{location}: invalid bibliography: {reason}")]
    BibliographyInvalid { location: FileLocation, reason: String },

    #[error("{location}: invalid front matter: {reason}")]
    InvalidFrontMatter { location: FileLocation, reason: String },

    #[error("duplicate document id `{id}`: defined at {first} and again at {second}")]
    DuplicateDocumentId { id: String, first: FileLocation, second: FileLocation },

    #[error("{location}: invalid UTF-8; convert the file to UTF-8 and rebuild")]
    InvalidUtf8 { location: FileLocation },

    #[error("the corpus has more passages than one index can number (4,294,967,295); split it into several corpora")]
    TooManyPassages,

    #[error("{path}: the file changed while it was being read; run the build again")]
    SourceChanged { path: String },

    #[error("{0}: the corpus contains no documents it can read (Markdown, text, JSONL or PDF)")]
    EmptyCorpus(PathBuf),

    #[error("{0} file(s) could not be read and were skipped (listed above); the index was published without them")]
    FilesSkipped(usize),

    #[error("--strict: {count} file(s) could not be read, so nothing was built:\n{list}")]
    StrictRefused { count: usize, list: String },

    #[error("{location}: unknown entity `{entity}`; declare it in entities.jsonl first")]
    UnknownEntity { location: FileLocation, entity: String },

    #[error("{location}: duplicate entity id `{entity}`")]
    DuplicateEntity { location: FileLocation, entity: String },

    #[error("{link}: symbolic link points outside the corpus root; refusing to follow it")]
    SymlinkOutsideRoot { link: PathBuf },

    #[error(
        "{location}: document is {size} bytes, over the limit of {limit} bytes; \
         split it or raise [limits] max_document_bytes in corpus.toml"
    )]
    DocumentTooLarge { location: FileLocation, size: u64, limit: u64 },

    #[error("{path} is not an evident index (no {marker} marker); choose an empty or new directory")]
    NotAnIndex { path: PathBuf, marker: &'static str },

    #[error("no index at {0}; build one with `evident index build <corpus> --index {0}`")]
    IndexMissing(PathBuf),

    #[error(
        "another `evident index build` (process {pid}) is writing to {path}; wait for it to finish, \
         or remove {path}/BUILD.lock if that process no longer exists"
    )]
    IndexBusy { path: PathBuf, pid: u32 },

    #[error("index at {path} is damaged: {reason}; rebuild it with `evident index build`")]
    IndexCorrupt { path: PathBuf, reason: String },

    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("metadata store: {0}")]
    Store(#[from] rusqlite::Error),

    #[error("lexical index: {0}")]
    Lexical(#[from] tantivy::TantivyError),

    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    #[error(
        "the index was built with embedding model {index_model} ({index_dimension} dimensions) but this \
         installation has {model} ({dimension} dimensions); rebuild the index with `evident index build`"
    )]
    ModelMismatch { index_model: String, index_dimension: usize, model: String, dimension: usize },

    #[error("the vector lane is unavailable: {0}")]
    VectorLaneUnavailable(String),

    /// corpus.toml (or `--model`) names an embedding model this machine does not have.
    #[error("the embedding model cannot be loaded: {0}")]
    ModelNotInstalled(String),

    /// The published contract is out of date or cannot be written (the message says which).
    #[error("{0}")]
    Contract(String),

    #[error("the server refuses to start: {0}")]
    ServeRefused(String),

    #[error("the server stopped: {0}")]
    ServeFailed(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the error is the index's state rather than a bug: missing,
    /// foreign or damaged, including a metadata store or lexical index damaged
    /// under a running server. Decided here, beside the engines' error types,
    /// so the tool surface never matches an engine's errors itself.
    pub(crate) fn is_index_unreadable(&self) -> bool {
        match self {
            Error::IndexMissing(_)
            | Error::NotAnIndex { .. }
            | Error::IndexCorrupt { .. }
            | Error::ModelMismatch { .. } => true,
            Error::Store(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseCorrupt
                    | rusqlite::ErrorCode::NotADatabase
                    | rusqlite::ErrorCode::CannotOpen
                    | rusqlite::ErrorCode::SystemIoFailure
            ),
            Error::Lexical(e) => matches!(
                e,
                tantivy::TantivyError::IoError(_)
                    | tantivy::TantivyError::DataCorruption(_)
                    | tantivy::TantivyError::OpenReadError(_)
            ),
            _ => false,
        }
    }
}

/// Attaches a path to an `io::Error`, so messages always name the file.
pub(crate) trait IoContext<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|source| Error::Io { path: path.into(), source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_metadata_store_is_the_index_state_not_a_bug() {
        let corrupt = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some("database disk image is malformed".into()),
        );
        assert!(Error::Store(corrupt).is_index_unreadable());
        let other = rusqlite::Error::InvalidQuery;
        assert!(!Error::Store(other).is_index_unreadable());
    }

    #[test]
    fn a_damaged_lexical_index_is_the_index_state_not_a_bug() {
        let truncated = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "read past the end of an index file");
        assert!(Error::Lexical(tantivy::TantivyError::from(truncated)).is_index_unreadable());
    }
}
