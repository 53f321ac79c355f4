//! The generation a server serves: a handle that follows `CURRENT`, so a
//! rebuild is served without a restart.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::index::IndexDir;
use crate::search::Reader;
use crate::surface::ToolError;

/// Follows the index directory's `CURRENT` pointer: a call after a rebuild
/// opens the new generation; calls in flight keep the one they started with.
/// `CURRENT` is read only when its file identity (inode, length, modification
/// time) changed since the last call — a publish replaces it by rename — so
/// a call costs one `stat`, not a read and a parse.
pub(crate) struct CurrentGeneration {
    dir: PathBuf,
    models_dir: Option<PathBuf>,
    open: RwLock<Option<Served>>,
}

/// The open generation and the identity of the `CURRENT` file that named it.
struct Served {
    index: Arc<Reader>,
    current: Option<FileIdentity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileIdentity {
    fn of(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Self { device: meta.dev(), inode: meta.ino(), len: meta.len(), modified: meta.modified().ok() })
    }
}

impl CurrentGeneration {
    /// Opens the serving generation now, so a server can refuse to start without one.
    pub(crate) fn open(dir: &Path, models_dir: Option<&Path>) -> crate::Result<Self> {
        let current = FileIdentity::of(&IndexDir::current_path(dir));
        let index = Arc::new(Reader::open(dir, models_dir)?);
        Ok(Self {
            dir: dir.to_owned(),
            models_dir: models_dir.map(Path::to_owned),
            open: RwLock::new(Some(Served { index, current })),
        })
    }

    /// The serving generation, reopened when `CURRENT` has moved.
    pub(crate) fn get(&self) -> Result<Arc<Reader>, ToolError> {
        let identity = FileIdentity::of(&IndexDir::current_path(&self.dir));
        if let Ok(guard) = self.open.read()
            && let Some(served) = guard.as_ref()
            && identity.is_some()
            && served.current == identity
        {
            return Ok(Arc::clone(&served.index));
        }
        let current = IndexDir::open(&self.dir).and_then(|d| d.require_current()).map_err(ToolError::from)?;
        let reuse = self.open.read().ok().and_then(|guard| {
            guard.as_ref().filter(|s| s.index.generation.name == current.name).map(|s| Arc::clone(&s.index))
        });
        let index = match reuse {
            Some(index) => index,
            None => {
                tracing::info!(generation = %current.name, "opening new index generation");
                Arc::new(Reader::open(&self.dir, self.models_dir.as_deref()).map_err(ToolError::from)?)
            }
        };
        if let Ok(mut guard) = self.open.write() {
            *guard = Some(Served { index: Arc::clone(&index), current: identity });
        }
        Ok(index)
    }
}
