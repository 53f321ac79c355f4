//! A process-private copy of an embedded vector store.
//!
//! qdrant-edge opens a shard for writing only: it locks the write-ahead log
//! for one process and rewrites files as it loads. A published generation must
//! never change and may be read by many processes (or be read-only), so every
//! reader loads a copy of its own. Copies live in a scratch directory chosen by
//! the caller, keep sparse files sparse (the store preallocates large files it
//! barely fills), and are claimed by a lock file each: a copy whose lock is no
//! longer held belongs to a process that is gone, and the next reader removes it.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const LOCK_SUFFIX: &str = ".lock";
/// Blocks of zeros this size are skipped rather than written, leaving holes
/// (where the system cannot tell where a file's holes are).
#[cfg(not(target_os = "linux"))]
const BLOCK: usize = 64 * 1024;

/// A copy owned by this process, removed when dropped.
#[derive(Debug)]
pub(crate) struct PrivateCopy {
    path: PathBuf,
    lock_path: PathBuf,
    /// Held for the copy's lifetime: the claim other processes test.
    _claim: File,
}

impl PrivateCopy {
    /// Copies `source` into a new directory under `scratch`, first removing
    /// copies whose owners are gone.
    pub(crate) fn make(source: &Path, scratch: &Path) -> io::Result<Self> {
        fs::create_dir_all(scratch)?;
        sweep(scratch);
        let name = unique_name();
        let lock_path = scratch.join(format!("{name}{LOCK_SUFFIX}"));
        let claim = claim(scratch, &lock_path)?;
        let copy = Self { path: scratch.join(&name), lock_path, _claim: claim };
        copy_tree(source, &copy.path)?;
        Ok(copy)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        // The directory first: a lock file without its directory is harmless,
        // a directory without its lock file is taken for abandoned.
        let _ = fs::remove_dir_all(&self.path);
        let _ = fs::remove_file(&self.lock_path);
    }
}

fn unique_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("copy-{}-{nanos:09}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Creates and locks the claim under a temporary name, then renames it into
/// place, so no other process ever sees an unlocked claim of a live copy.
fn claim(scratch: &Path, lock_path: &Path) -> io::Result<File> {
    let pending = tempfile::Builder::new().prefix(".claim-").tempfile_in(scratch)?;
    pending.as_file().lock()?;
    let (file, temp_path) = pending.into_parts();
    temp_path.persist(lock_path).map_err(|e| e.error)?;
    Ok(file)
}

/// Removes copies left by processes that are gone. Errors are ignored: a copy
/// that cannot be removed now is tried again by the next reader.
pub(crate) fn sweep(scratch: &Path) {
    let Ok(entries) = fs::read_dir(scratch) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
        if let Some(copy) = name.strip_suffix(LOCK_SUFFIX) {
            let Ok(file) = File::open(&path) else { continue };
            if file.try_lock().is_ok() {
                let _ = fs::remove_dir_all(scratch.join(copy));
                let _ = fs::remove_file(&path);
                tracing::info!(copy, "removed a vector-store copy left by a process that is gone");
            }
        } else if name.starts_with("copy-") && !scratch.join(format!("{name}{LOCK_SUFFIX}")).exists() {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            copy_sparse(&entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Copies a file's data extents only (found with `SEEK_DATA`/`SEEK_HOLE`),
/// in the kernel (`copy_file_range`): the holes stay holes and are never read.
#[cfg(target_os = "linux")]
fn copy_sparse(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{SeekFrom as Seek, copy_file_range, seek};
    let input = File::open(from)?;
    let length = input.metadata()?.len();
    let output = File::create(to)?;
    output.set_len(length)?;
    let mut offset = 0u64;
    while offset < length {
        let start = match seek(&input, Seek::Data(offset)) {
            Ok(start) => start,
            // No data after `offset`: the rest is a hole.
            Err(rustix::io::Errno::NXIO) => break,
            Err(e) => return Err(e.into()),
        };
        let end = seek(&input, Seek::Hole(start))?.min(length);
        let (mut read_at, mut write_at) = (start, start);
        while read_at < end {
            let want = usize::try_from(end - read_at).unwrap_or(usize::MAX);
            match copy_file_range(&input, Some(&mut read_at), &output, Some(&mut write_at), want)? {
                0 => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "file shrank while being copied")),
                _ => continue,
            }
        }
        offset = end;
    }
    Ok(())
}

/// Copies a file, leaving a hole wherever a whole block is zeros.
#[cfg(not(target_os = "linux"))]
fn copy_sparse(from: &Path, to: &Path) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut input = File::open(from)?;
    let mut output = File::create(to)?;
    let mut buffer = vec![0u8; BLOCK];
    let mut length = 0u64;
    loop {
        let n = read_block(&mut input, &mut buffer)?;
        if n == 0 {
            break;
        }
        if buffer[..n].iter().all(|&b| b == 0) {
            output.seek(SeekFrom::Current(n as i64))?;
        } else {
            output.write_all(&buffer[..n])?;
        }
        length += n as u64;
    }
    output.set_len(length)
}

/// Fills `buffer` as far as the file allows; returns how much was read.
#[cfg(not(target_os = "linux"))]
fn read_block(input: &mut File, buffer: &mut [u8]) -> io::Result<usize> {
    use std::io::Read;
    let mut filled = 0;
    while filled < buffer.len() {
        match input.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: usize = 64 * 1024;

    fn source() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("segments/a")).unwrap();
        // Data, then a hole, then data: the shape of a preallocated store file.
        let path = dir.path().join("segments/a/chunk.mmap");
        let file = File::create(&path).unwrap();
        file.set_len(4 * BLOCK as u64 + 10).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&file, &[9; 100], BLOCK as u64 + 5).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&file, b"end", 4 * BLOCK as u64 + 7).unwrap();
        fs::write(dir.path().join("config.json"), b"{}").unwrap();
        dir
    }

    #[test]
    fn a_copy_has_the_same_bytes_and_is_removed_when_dropped() {
        let (source, scratch) = (source(), tempfile::tempdir().unwrap());
        let copy = PrivateCopy::make(source.path(), scratch.path()).unwrap();
        let copied = fs::read(copy.path().join("segments/a/chunk.mmap")).unwrap();
        assert_eq!(copied, fs::read(source.path().join("segments/a/chunk.mmap")).unwrap());
        assert_eq!(fs::read(copy.path().join("config.json")).unwrap(), b"{}");
        drop(copy);
        assert_eq!(fs::read_dir(scratch.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn zero_blocks_stay_holes() {
        use std::os::unix::fs::MetadataExt;
        let (source, scratch) = (source(), tempfile::tempdir().unwrap());
        let copy = PrivateCopy::make(source.path(), scratch.path()).unwrap();
        let meta = fs::metadata(copy.path().join("segments/a/chunk.mmap")).unwrap();
        assert_eq!(meta.len(), 4 * BLOCK as u64 + 10);
        assert!(meta.blocks() * 512 < 2 * BLOCK as u64 + 4096, "allocated {} bytes", meta.blocks() * 512);
    }

    #[test]
    fn a_live_copy_survives_a_sweep_and_an_abandoned_one_does_not() {
        let (source, scratch) = (source(), tempfile::tempdir().unwrap());
        let live = PrivateCopy::make(source.path(), scratch.path()).unwrap();
        // An abandoned copy: its lock file exists but nobody holds the lock.
        fs::create_dir_all(scratch.path().join("copy-1-000000000-0/x")).unwrap();
        fs::write(scratch.path().join("copy-1-000000000-0.lock"), b"").unwrap();
        // A copy whose owner died while removing it: no lock file at all.
        fs::create_dir_all(scratch.path().join("copy-2-000000000-0")).unwrap();
        sweep(scratch.path());
        let mut left: Vec<String> =
            fs::read_dir(scratch.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        let name = live.path().file_name().unwrap().to_str().unwrap().to_owned();
        assert_eq!(left, vec![name.clone(), format!("{name}.lock")]);
    }
}
