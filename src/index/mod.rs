//! The on-disk index: a directory of immutable generations and an atomic
//! `CURRENT` pointer. A build writes a staging directory, flushes it, renames
//! it into place and only then switches `CURRENT`; a killed build therefore
//! leaves the previous generation serving. The last two generations are kept.

mod build;
mod files;
mod layout;
mod manifest;
mod vectors;

pub use build::{BuildOptions, BuildSummary, build};
pub use files::{Damage, FileRecord, FileTable, check_lengths, verify};
pub use layout::{Generation, IndexDir, MARKER_FILE};
pub use manifest::Manifest;
