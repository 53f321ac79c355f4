//! The on-disk index: a directory of immutable generations and an atomic
//! `CURRENT` pointer. A build writes a staging directory, flushes it, renames
//! it into place and only then switches `CURRENT`; a killed build therefore
//! leaves the previous generation serving. The last two generations are kept.

mod build;
mod files;
mod layout;
mod manifest;
mod vectors;

pub(crate) use build::BuildSummary;
pub use build::{BuildOptions, build};
pub(crate) use files::{Damage, check_lengths, verify};
pub(crate) use layout::{Generation, IndexDir};
pub(crate) use manifest::Manifest;
