//! A read-only tantivy directory for a published generation.
//!
//! tantivy's `MmapDirectory` takes a lock file and memory-maps segment files.
//! A published generation is immutable, so neither is needed, and both hurt:
//! the lock file cannot be created in a read-only index, and a mapped file
//! truncated by someone else kills the process with SIGBUS on the next read.
//! This directory takes no lock, writes nothing, and reads with positional
//! reads (`pread`), so damage surfaces as an I/O error the caller can report.
//!
//! Files every query reads (postings, positions, term dictionaries, fast fields,
//! norms) are read whole when opened and served from memory: a query reads
//! dozens of small ranges of them, and a `pread` and a fresh buffer per range
//! cost more than the scoring. Document stores (read only for the few hits
//! whose stored fields are wanted, through tantivy's own block cache), any
//! file over `RESIDENT_MAX_BYTES`, and the files past the directory's budget
//! (its caller's choice: memory held for as long as the generation is served)
//! stay on disk.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tantivy::HasLen;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, OwnedBytes, WatchCallback, WatchHandle, WritePtr,
};

#[derive(Debug, Clone)]
pub(crate) struct ReadOnlyDirectory {
    root: PathBuf,
    /// Bytes that may still be read whole at open.
    budget: Arc<AtomicUsize>,
}

impl ReadOnlyDirectory {
    /// A directory holding at most `resident_budget` bytes of its files in memory.
    pub(crate) fn new(root: &Path, resident_budget: usize) -> Self {
        Self { root: root.to_owned(), budget: Arc::new(AtomicUsize::new(resident_budget)) }
    }

    /// Takes `len` bytes from the budget, if that many are left.
    fn reserve(&self, len: usize) -> bool {
        self.budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(len)).is_ok()
    }
}

/// Largest file held in memory (see the module comment).
pub(crate) const RESIDENT_MAX_BYTES: usize = 64 << 20;

/// Whether a file of this name and length is read whole at open.
fn resident(path: &Path, len: usize) -> bool {
    len <= RESIDENT_MAX_BYTES && path.extension().is_none_or(|e| e != "store")
}

/// An open file and the length it had when opened.
#[derive(Debug)]
struct PositionalFile {
    file: File,
    len: usize,
}

impl HasLen for PositionalFile {
    fn len(&self) -> usize {
        self.len
    }
}

impl FileHandle for PositionalFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.end > self.len || range.start > range.end {
            return Err(past_the_end());
        }
        let mut buffer = vec![0; range.len()];
        read_exact_at(&self.file, &mut buffer, range.start as u64)?;
        Ok(OwnedBytes::new(buffer))
    }
}

/// A file read whole at open. Ranges are checked (a damaged index asking for
/// bytes past the end gets an error, where slicing would panic).
#[derive(Debug)]
struct ResidentFile(OwnedBytes);

impl HasLen for ResidentFile {
    fn len(&self) -> usize {
        self.0.len()
    }
}

impl FileHandle for ResidentFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.end > self.0.len() || range.start > range.end {
            return Err(past_the_end());
        }
        Ok(self.0.slice(range))
    }
}

fn past_the_end() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "read past the end of an index file")
}

#[cfg(unix)]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buffer: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buffer.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buffer, offset)? {
            0 => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "index file shorter than expected")),
            n => {
                buffer = &mut buffer[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

fn read_only() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, "a published generation is read-only")
}

impl Directory for ReadOnlyDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let full = self.root.join(path);
        let file = File::open(&full).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_owned()),
            _ => OpenReadError::wrap_io_error(e, path.to_owned()),
        })?;
        let len = file.metadata().map_err(|e| OpenReadError::wrap_io_error(e, path.to_owned()))?.len();
        let len = usize::try_from(len).map_err(|_| {
            OpenReadError::wrap_io_error(io::Error::other("index file too large for this platform"), path.to_owned())
        })?;
        let positional = PositionalFile { file, len };
        if resident(path, len) && self.reserve(len) {
            let bytes = positional.read_bytes(0..len).map_err(|e| OpenReadError::wrap_io_error(e, path.to_owned()))?;
            return Ok(Arc::new(ResidentFile(bytes)));
        }
        Ok(Arc::new(positional))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError { io_error: Arc::new(read_only()), filepath: path.to_owned() })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.root.join(path).exists())
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError { io_error: Arc::new(read_only()), filepath: path.to_owned() })
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        std::fs::read(self.root.join(path)).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_owned()),
            _ => OpenReadError::wrap_io_error(e, path.to_owned()),
        })
    }

    fn atomic_write(&self, _path: &Path, _data: &[u8]) -> io::Result<()> {
        Err(read_only())
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    /// No lock file: nothing can change an immutable generation, so readers
    /// need no exclusion from a writer.
    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    /// Nothing to watch: a generation never changes (the reader reloads manually).
    fn watch(&self, _watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: usize = 1 << 20;

    #[test]
    fn reads_ranges_and_refuses_reads_past_the_end() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), b"0123456789").unwrap();
        let directory = ReadOnlyDirectory::new(dir.path(), BUDGET);
        let handle = directory.get_file_handle(Path::new("f")).unwrap();
        assert_eq!(handle.len(), 10);
        assert_eq!(handle.read_bytes(2..5).unwrap().as_slice(), b"234");
        assert!(handle.read_bytes(5..5).unwrap().as_slice().is_empty());
        assert!(handle.read_bytes(8..11).is_err());
    }

    #[test]
    fn a_file_truncated_after_open_is_an_error_not_a_signal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.store");
        std::fs::write(&path, vec![7u8; 4096]).unwrap();
        let handle = ReadOnlyDirectory::new(dir.path(), BUDGET).get_file_handle(Path::new("f.store")).unwrap();
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(100).unwrap();
        let error = handle.read_bytes(1000..2000).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn query_files_are_read_whole_at_open_and_stores_are_not() {
        assert!(resident(Path::new("a.idx"), 10));
        assert!(resident(Path::new("meta.json"), 10));
        assert!(!resident(Path::new("a.store"), 10));
        assert!(!resident(Path::new("a.pos"), RESIDENT_MAX_BYTES + 1));
        // A resident file changed after open keeps serving what it held when opened.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.idx");
        std::fs::write(&path, b"0123456789").unwrap();
        let handle = ReadOnlyDirectory::new(dir.path(), BUDGET).get_file_handle(Path::new("a.idx")).unwrap();
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(2).unwrap();
        assert_eq!(handle.read_bytes(4..8).unwrap().as_slice(), b"4567");
        assert!(handle.read_bytes(8..11).is_err());
    }

    #[test]
    fn files_past_the_budget_are_read_positionally() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.idx", "b.idx"] {
            std::fs::write(dir.path().join(name), b"0123456789").unwrap();
        }
        let directory = ReadOnlyDirectory::new(dir.path(), 15);
        let first = directory.get_file_handle(Path::new("a.idx")).unwrap();
        let second = directory.get_file_handle(Path::new("b.idx")).unwrap();
        for name in ["a.idx", "b.idx"] {
            std::fs::OpenOptions::new().write(true).open(dir.path().join(name)).unwrap().set_len(2).unwrap();
        }
        assert_eq!(first.read_bytes(4..8).unwrap().as_slice(), b"4567", "within the budget: held");
        assert!(second.read_bytes(4..8).is_err(), "past it: read from disk, now too short");
    }

    #[test]
    fn writes_and_deletes_are_refused_and_nothing_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let directory = ReadOnlyDirectory::new(dir.path(), BUDGET);
        assert!(directory.open_write(Path::new("new")).is_err());
        assert!(directory.atomic_write(Path::new("meta.json"), b"{}").is_err());
        let _lock = directory.acquire_lock(&tantivy::directory::META_LOCK).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
