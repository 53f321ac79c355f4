//! The crate's error type. Every failure a user can cause is a variant with a
//! message that names the file (and line where there is one) and says what to do.

use std::path::PathBuf;

/// A location in a corpus file, rendered as `path:line` (line omitted when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLocation {
    pub path: PathBuf,
    pub line: Option<usize>,
}

impl FileLocation {
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), line: None }
    }

    pub fn line(path: impl Into<PathBuf>, line: usize) -> Self {
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

    #[error(
        "{0}: missing corpus.toml; a directory of Markdown or text documents needs one \
         (see README, \"Corpus formats\")"
    )]
    CorpusTomlMissing(PathBuf),

    #[error("{location}: invalid corpus.toml: {reason}")]
    CorpusTomlInvalid { location: FileLocation, reason: String },

    #[error("{location}: malformed JSONL record: {reason}")]
    MalformedJsonl { location: FileLocation, reason: String },

    #[error("{location}: invalid front matter: {reason}")]
    InvalidFrontMatter { location: FileLocation, reason: String },

    #[error("duplicate document id `{id}`: defined at {first} and again at {second}")]
    DuplicateDocumentId { id: String, first: FileLocation, second: FileLocation },

    #[error("{location}: invalid UTF-8; convert the file to UTF-8 and rebuild")]
    InvalidUtf8 { location: FileLocation },

    #[error("{0}: the corpus contains no documents (Markdown, text or JSONL)")]
    EmptyCorpus(PathBuf),

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

/// Attaches a path to an `io::Error`, so messages always name the file.
pub trait IoContext<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|source| Error::Io { path: path.into(), source })
    }
}
