//! Directory layout and the atomic switch between generations:
//!
//! ```text
//! index/
//!   EVIDENT_INDEX            marker: this directory is an evident index
//!   CURRENT                  name of the serving generation
//!   BUILD.lock               pid of the build writing now (absent otherwise)
//!   generations/
//!     gen-000007/            immutable once published
//!       manifest.json  meta.sqlite  lexical/  documents/  vectors/
//!     .staging-gen-000008/   a build in progress (removed if abandoned)
//!   state/                   written while serving, never part of a generation
//!     query_log.sqlite       the call log
//!     readers/               each reader's private vector-store copy
//! ```

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, IoContext, Result};
use crate::telemetry::STATE_DIR;

pub(crate) const MARKER_FILE: &str = "EVIDENT_INDEX";
const MARKER_CONTENT: &str = "evident index, layout 1\n";
const CURRENT_FILE: &str = "CURRENT";
const LOCK_FILE: &str = "BUILD.lock";
const GENERATIONS_DIR: &str = "generations";
const READERS_DIR: &str = "readers";
const STAGING_PREFIX: &str = ".staging-";
const GENERATION_PREFIX: &str = "gen-";
/// Generations kept after a successful build (the new one and its predecessor).
pub(crate) const KEEP_GENERATIONS: usize = 2;

#[derive(Debug, Clone)]
pub(crate) struct IndexDir {
    root: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Generation {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
}

impl Generation {
    pub(crate) fn manifest_path(&self) -> PathBuf {
        self.path.join(super::files::MANIFEST_FILE)
    }
    pub(crate) fn store_path(&self) -> PathBuf {
        self.path.join("meta.sqlite")
    }
    pub(crate) fn lexical_path(&self) -> PathBuf {
        self.path.join("lexical")
    }

    /// The document index (the feedback lane's).
    pub(crate) fn documents_path(&self) -> PathBuf {
        self.path.join("documents")
    }
}

/// Held by the one build writing to an index; removed when dropped. A lock left
/// by a build that died (its process is gone) is taken over.
#[derive(Debug)]
pub(crate) struct BuildLock {
    path: PathBuf,
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

fn process_alive(pid: u32) -> bool {
    // Linux: a live process has a /proc entry. Elsewhere, assume alive (never steal).
    if Path::new("/proc/self").exists() { Path::new(&format!("/proc/{pid}")).exists() } else { true }
}

/// A generation being written; becomes a `Generation` when published.
#[derive(Debug)]
pub(crate) struct Staging {
    pub(crate) generation: Generation,
    staging_path: PathBuf,
}

/// A build that fails removes what it wrote (publishing moves the directory
/// first, so a published generation is never removed; a killed build leaves
/// its directory to the next build, which clears it).
impl Drop for Staging {
    fn drop(&mut self) {
        if self.staging_path.exists() {
            let _ = fs::remove_dir_all(&self.staging_path);
        }
    }
}

impl Staging {
    /// Where the build writes; the same file names as a published generation.
    pub(crate) fn files(&self) -> Generation {
        Generation { name: self.generation.name.clone(), path: self.staging_path.clone() }
    }
}

impl IndexDir {
    /// Opens `root` for a build, creating it (and its marker) when new or empty.
    pub(crate) fn for_build(root: &Path) -> Result<Self> {
        if root.exists() {
            if !root.is_dir() || (!root.join(MARKER_FILE).is_file() && !is_effectively_empty(root)?) {
                return Err(Error::NotAnIndex { path: root.to_owned(), marker: MARKER_FILE });
            }
        } else {
            fs::create_dir_all(root).at(root)?;
        }
        let marker = root.join(MARKER_FILE);
        if !marker.is_file() {
            fs::write(&marker, MARKER_CONTENT).at(&marker)?;
        }
        fs::create_dir_all(root.join(GENERATIONS_DIR)).at(root)?;
        Ok(Self { root: root.to_owned() })
    }

    /// Opens an existing index for reading.
    pub(crate) fn open(root: &Path) -> Result<Self> {
        if !root.exists() {
            return Err(Error::IndexMissing(root.to_owned()));
        }
        if !root.join(MARKER_FILE).is_file() {
            if root.is_dir() && is_effectively_empty(root)? {
                return Err(Error::IndexMissing(root.to_owned()));
            }
            return Err(Error::NotAnIndex { path: root.to_owned(), marker: MARKER_FILE });
        }
        Ok(Self { root: root.to_owned() })
    }

    /// Where this process keeps private working copies while it reads the
    /// index (see `vector::private_copy`): the index's own `state/readers`,
    /// or, when the index is read-only to this user, a directory under the
    /// system's temporary directory.
    pub(crate) fn reader_scratch(&self) -> PathBuf {
        let own = self.root.join(STATE_DIR).join(READERS_DIR);
        if writable_dir(&own) {
            return own;
        }
        std::env::temp_dir().join("evident-readers")
    }

    /// Takes the build lock, so two builds never write (or clean up) at once.
    pub(crate) fn lock(&self) -> Result<BuildLock> {
        let path = self.root.join(LOCK_FILE);
        for _ in 0..2 {
            match fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    file.write_all(format!("{}\n", std::process::id()).as_bytes()).at(&path)?;
                    return Ok(BuildLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(&path).ok().and_then(|t| t.trim().parse::<u32>().ok());
                    match holder {
                        Some(pid) if process_alive(pid) => {
                            return Err(Error::IndexBusy { path: self.root.clone(), pid });
                        }
                        // The build that held it is gone: take the lock over.
                        _ => fs::remove_file(&path).at(&path)?,
                    }
                }
                Err(e) => return Err(Error::Io { path, source: e }),
            }
        }
        Err(Error::IndexBusy { path: self.root.clone(), pid: 0 })
    }

    /// Where the `CURRENT` pointer of the index at `root` lives (readers watch its identity).
    pub(crate) fn current_path(root: &Path) -> PathBuf {
        root.join(CURRENT_FILE)
    }

    /// The generation `CURRENT` points to, if any build has completed.
    pub(crate) fn current(&self) -> Result<Option<Generation>> {
        let pointer = self.root.join(CURRENT_FILE);
        if !pointer.exists() {
            return Ok(None);
        }
        let name = fs::read_to_string(&pointer).at(&pointer)?.trim().to_owned();
        let path = self.root.join(GENERATIONS_DIR).join(&name);
        if !is_generation_name(&name) || !path.is_dir() {
            return Err(Error::IndexCorrupt {
                path: self.root.clone(),
                reason: format!("CURRENT names `{name}`, which is not a generation here"),
            });
        }
        Ok(Some(Generation { name, path }))
    }

    /// The serving generation, or an error telling the user to build one.
    pub(crate) fn require_current(&self) -> Result<Generation> {
        self.current()?.ok_or_else(|| Error::IndexMissing(self.root.clone()))
    }

    /// Starts a new generation in a staging directory, clearing abandoned ones.
    pub(crate) fn begin(&self) -> Result<Staging> {
        let dir = self.root.join(GENERATIONS_DIR);
        let mut highest = 0u64;
        for entry in fs::read_dir(&dir).at(&dir)? {
            let entry = entry.at(&dir)?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(STAGING_PREFIX) {
                // Left by a build that died; never part of a generation.
                fs::remove_dir_all(entry.path()).at(entry.path())?;
                continue;
            }
            if let Some(n) = generation_number(&name) {
                highest = highest.max(n);
            }
        }
        let name = format!("{GENERATION_PREFIX}{:06}", highest + 1);
        let staging_path = dir.join(format!("{STAGING_PREFIX}{name}"));
        fs::create_dir_all(&staging_path).at(&staging_path)?;
        Ok(Staging { generation: Generation { path: dir.join(&name), name }, staging_path })
    }

    /// Flushes the staging directory, moves it into place, then switches `CURRENT`.
    pub(crate) fn publish(&self, staging: Staging) -> Result<Generation> {
        sync_tree(&staging.staging_path)?;
        fs::rename(&staging.staging_path, &staging.generation.path).at(&staging.generation.path)?;
        let generations = self.root.join(GENERATIONS_DIR);
        sync_dir(&generations)?;

        let tmp = self.root.join(format!("{CURRENT_FILE}.tmp"));
        {
            let mut file = File::create(&tmp).at(&tmp)?;
            file.write_all(format!("{}\n", staging.generation.name).as_bytes()).at(&tmp)?;
            file.sync_all().at(&tmp)?;
        }
        fs::rename(&tmp, self.root.join(CURRENT_FILE)).at(&self.root)?;
        sync_dir(&self.root)?;
        Ok(staging.generation.clone())
    }

    /// Removes all but the newest `KEEP_GENERATIONS` generations, never the current one.
    pub(crate) fn prune(&self) -> Result<Vec<String>> {
        let current = self.current()?.map(|g| g.name);
        let dir = self.root.join(GENERATIONS_DIR);
        let generations = self.generations()?;
        let excess = generations.len().saturating_sub(KEEP_GENERATIONS);
        let mut removed = Vec::new();
        for name in generations.into_iter().take(excess) {
            if Some(&name) == current.as_ref() {
                continue;
            }
            let path = dir.join(&name);
            fs::remove_dir_all(&path).at(&path)?;
            removed.push(name);
        }
        Ok(removed)
    }

    /// Names of the published generations, oldest first.
    pub(crate) fn generations(&self) -> Result<Vec<String>> {
        let dir = self.root.join(GENERATIONS_DIR);
        let mut names: Vec<(u64, String)> = fs::read_dir(&dir)
            .at(&dir)?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                generation_number(&name).map(|n| (n, name))
            })
            .collect();
        names.sort();
        Ok(names.into_iter().map(|(_, n)| n).collect())
    }
}

fn generation_number(name: &str) -> Option<u64> {
    name.strip_prefix(GENERATION_PREFIX)?.parse().ok()
}

fn is_generation_name(name: &str) -> bool {
    generation_number(name).is_some() && !name.contains(['/', '\\'])
}

/// True when a directory holds nothing but hidden files (such as `.gitkeep`).
fn is_effectively_empty(dir: &Path) -> Result<bool> {
    for entry in fs::read_dir(dir).at(dir)? {
        let entry = entry.at(dir)?;
        if !entry.file_name().to_string_lossy().starts_with('.') {
            return Ok(false);
        }
    }
    Ok(true)
}

fn sync_tree(dir: &Path) -> Result<()> {
    for entry in fs::read_dir(dir).at(dir)? {
        let entry = entry.at(dir)?;
        let path = entry.path();
        if entry.file_type().at(&path)?.is_dir() {
            sync_tree(&path)?;
        } else {
            File::open(&path).and_then(|f| f.sync_all()).at(&path)?;
        }
    }
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|f| f.sync_all()).at(dir)
}

/// Whether `dir` exists (or can be made) and this process can create files in it.
fn writable_dir(dir: &Path) -> bool {
    fs::create_dir_all(dir).is_ok() && tempfile::tempfile_in(dir).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_switches_current_and_prune_keeps_two() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("idx");
        let index = IndexDir::for_build(&root).unwrap();
        assert!(index.current().unwrap().is_none());
        for expected in ["gen-000001", "gen-000002", "gen-000003"] {
            let staging = index.begin().unwrap();
            fs::write(staging.files().path.join("manifest.json"), "{}").unwrap();
            let generation = index.publish(staging).unwrap();
            assert_eq!(generation.name, expected);
            assert_eq!(index.current().unwrap().unwrap().name, expected);
            index.prune().unwrap();
        }
        assert_eq!(index.generations().unwrap(), vec!["gen-000002", "gen-000003"]);
    }

    #[test]
    fn abandoned_staging_is_cleared_and_never_current() {
        let tmp = tempfile::tempdir().unwrap();
        let index = IndexDir::for_build(tmp.path()).unwrap();
        let abandoned = index.begin().unwrap();
        let debris = abandoned.files().path.join("meta.sqlite");
        fs::write(&debris, "half-written").unwrap();
        let next = index.begin().unwrap();
        assert!(!debris.exists());
        assert_eq!(next.generation.name, "gen-000001");
        assert!(index.current().unwrap().is_none());
    }

    #[test]
    fn build_lock_is_exclusive_and_stale_locks_are_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        let index = IndexDir::for_build(tmp.path()).unwrap();
        let held = index.lock().unwrap();
        assert!(matches!(index.lock(), Err(Error::IndexBusy { .. })));
        drop(held);
        let again = index.lock().unwrap();
        drop(again);
        // A lock whose process is gone (pid far above any real one here).
        fs::write(tmp.path().join(LOCK_FILE), "4000000000\n").unwrap();
        assert!(index.lock().is_ok());
    }

    #[test]
    fn foreign_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
        assert!(matches!(IndexDir::for_build(tmp.path()), Err(Error::NotAnIndex { .. })));
        assert!(matches!(IndexDir::open(tmp.path()), Err(Error::NotAnIndex { .. })));
        let empty = tempfile::tempdir().unwrap();
        fs::write(empty.path().join(".gitkeep"), "").unwrap();
        assert!(IndexDir::for_build(empty.path()).is_ok());
    }
}
