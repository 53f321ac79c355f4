//! Which store a generation's vectors live in: the one place that knows both
//! adapters, so the trait file (`store`) depends on neither.

use std::path::Path;

use super::edge::EdgeStore;
use super::server::ServerStore;
use super::settings::VectorManifest;
use super::store::{SearchTuning, VectorStore};
use super::unavailable::Unavailable;
use crate::corpus::Backend;

/// Opens the vector store a generation's manifest describes, for reading;
/// `scratch` is where an embedded store's private copy goes.
pub(crate) fn open_store(
    manifest: &VectorManifest,
    generation: &Path,
    scratch: &Path,
) -> Result<Box<dyn VectorStore>, Unavailable> {
    let tuning = SearchTuning::for_points(manifest.hnsw_ef, manifest.points);
    match manifest.backend {
        Backend::Embedded => Ok(Box::new(EdgeStore::open(&generation.join("vectors"), scratch, tuning)?)),
        Backend::Qdrant => {
            let (Some(url), Some(collection)) = (&manifest.url, &manifest.collection) else {
                return Err(Unavailable("manifest names no Qdrant server or collection".into()));
            };
            Ok(Box::new(ServerStore::connect(url, collection, tuning)?))
        }
    }
}
