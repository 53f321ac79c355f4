//! Loads the embedding model and the ONNX runtime from the models directory and
//! embeds text in batches. Never downloads: what `scripts/setup` did not put
//! there makes the lane unavailable, with the reason.
//!
//! Concurrent requests do not queue on one model: a small pool of sessions
//! (one per core, at most `MAX_SESSIONS`) grows when every session is busy.
//! A session embeds one call at a time (fastembed needs `&mut`).

use fastembed::{InitOptionsUserDefined, Pooling, TextEmbedding, UserDefinedEmbeddingModel};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::runtime::{ModelInfo, ModelKind, PoolingKind};
use super::unavailable::Unavailable;

/// The most sessions a pool holds: each holds the model's weights (≈ 90 MB
/// for all-MiniLM-L6-v2), and more sessions than cores only queue on the CPU.
pub const MAX_SESSIONS: usize = 4;

type Session = Arc<Mutex<TextEmbedding>>;

pub struct Embedder {
    info: ModelInfo,
    /// Makes one more session (reads the model files again; the runtime is shared).
    make: Box<dyn Fn() -> Result<TextEmbedding, Unavailable> + Send + Sync>,
    sessions: Mutex<Vec<Session>>,
    capacity: usize,
    /// Which session a caller waits for when all are busy and the pool is full.
    next: AtomicUsize,
    /// Whether a caller is loading another session: one at a time, or every
    /// caller arriving while all sessions are busy would load its own (a
    /// load takes seconds when the cores are busy) and keep its request waiting.
    growing: AtomicBool,
    /// Recent query texts' vectors: an agent often repeats a query (paging, a
    /// second tool on the same words), and embedding is most of a hybrid call.
    recent: Mutex<Recent>,
}

/// The vectors of the last `QUERY_CACHE` texts embedded one by one, oldest evicted first.
pub const QUERY_CACHE: usize = 256;

#[derive(Default)]
struct Recent {
    vectors: std::collections::HashMap<String, Vec<f32>>,
    order: std::collections::VecDeque<String>,
}

impl Recent {
    fn insert(&mut self, text: &str, vector: &[f32]) {
        if self.vectors.contains_key(text) {
            return;
        }
        if self.order.len() >= QUERY_CACHE
            && let Some(oldest) = self.order.pop_front()
        {
            self.vectors.remove(&oldest);
        }
        self.order.push_back(text.to_owned());
        self.vectors.insert(text.to_owned(), vector.to_vec());
    }
}

fn poisoned() -> Unavailable {
    Unavailable("embedding model is poisoned".into())
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("info", &self.info).finish_non_exhaustive()
    }
}

impl Embedder {
    /// Loads the embedding model `name` from `models_dir`, or says why it cannot.
    pub fn load(models_dir: &Path, name: &str) -> Result<Self, Unavailable> {
        Self::load_described(ModelInfo::read(models_dir, name)?)
    }

    /// Loads the model `info` (already read with `ModelInfo::read`) describes.
    pub fn load_described(info: ModelInfo) -> Result<Self, Unavailable> {
        let pooling = match (info.kind, info.pooling) {
            (ModelKind::Embedding, PoolingKind::Mean) => Pooling::Mean,
            (ModelKind::Embedding, PoolingKind::Cls) => Pooling::Cls,
            _ => return Err(Unavailable(format!("model {} is not a sentence-embedding model", info.name))),
        };
        let environment = info.environment()?;
        let described = info.clone();
        let make = move || {
            let model =
                UserDefinedEmbeddingModel::new(described.read_file("model.onnx")?, described.tokenizer_files()?)
                    .with_pooling(pooling.clone());
            let options = InitOptionsUserDefined::new()
                .with_environment(environment.clone())
                .with_max_length(described.max_length);
            TextEmbedding::try_new_from_user_defined(model, options)
                .map_err(|e| Unavailable(format!("embedding model could not be loaded ({e})")))
        };
        // The first session is loaded now, so a model that cannot load disables the lane at once.
        let first = make()?;
        let capacity = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, MAX_SESSIONS);
        Ok(Self {
            info,
            make: Box::new(make),
            sessions: Mutex::new(vec![Arc::new(Mutex::new(first))]),
            capacity,
            next: AtomicUsize::new(0),
            growing: AtomicBool::new(false),
            recent: Mutex::new(Recent::default()),
        })
    }

    /// How many sessions the pool has loaded so far.
    pub fn sessions_loaded(&self) -> usize {
        self.sessions.lock().map_or(0, |s| s.len())
    }

    /// A session for a caller who found none idle: a new one while the pool
    /// may grow (one caller loads at a time), else the next one in turn
    /// (waiting for it, as it would without a pool).
    fn busy_session(&self, loaded: &[Session]) -> Result<Session, Unavailable> {
        if loaded.len() < self.capacity
            && self.growing.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok()
        {
            // Loading takes a while; it happens outside the pool's lock, by one caller at a time.
            let made = (self.make)();
            self.growing.store(false, Ordering::Release);
            let fresh = Arc::new(Mutex::new(made?));
            let mut sessions = self.sessions.lock().map_err(|_| poisoned())?;
            if sessions.len() < self.capacity {
                sessions.push(Arc::clone(&fresh));
            }
            return Ok(fresh);
        }
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % loaded.len().max(1);
        loaded.get(turn).cloned().ok_or_else(poisoned)
    }

    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Embeds `texts` (unit-length vectors), `batch_size` at a time, on an
    /// idle session if there is one. The idle session's lock is kept, not
    /// tried and let go, so two callers never both pick it and one wait.
    pub fn embed<S: AsRef<str> + Send + Sync>(
        &self,
        texts: &[S],
        batch_size: usize,
    ) -> Result<Vec<Vec<f32>>, Unavailable> {
        let run = |model: &mut TextEmbedding| {
            model.embed(texts, Some(batch_size.max(1))).map_err(|e| Unavailable(format!("embedding failed ({e})")))
        };
        let loaded: Vec<Session> = self.sessions.lock().map_err(|_| poisoned())?.clone();
        for session in &loaded {
            if let Ok(mut model) = session.try_lock() {
                return run(&mut model);
            }
        }
        let session = self.busy_session(&loaded)?;
        let mut model = session.lock().map_err(|_| poisoned())?;
        run(&mut model)
    }

    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, Unavailable> {
        self.embed(&[text], 1)?.pop().ok_or_else(|| Unavailable("embedding returned nothing".into()))
    }

    /// Passages' vectors, each text with the model's passage prefix. A model
    /// whose vectors depend on their batch (dynamic quantisation) embeds one
    /// text per call, so a passage's vector is the same in every build (a
    /// rebuild that reuses some vectors embeds the rest in other batches).
    pub fn embed_passages(&self, texts: &[String], batch_size: usize) -> Result<Vec<Vec<f32>>, Unavailable> {
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{}{t}", self.info.passage_prefix)).collect();
        if self.info.dynamic_quantization {
            return prefixed.iter().map(|t| self.embed_one(t)).collect();
        }
        self.embed(&prefixed, batch_size)
    }

    /// Query texts, each embedded on its own (a batch of one: the vector does
    /// not depend on what else was asked), reusing recent texts' vectors.
    pub fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Unavailable> {
        let mut out = Vec::with_capacity(texts.len());
        for text in texts {
            let known = self.recent.lock().ok().and_then(|r| r.vectors.get(*text).cloned());
            let vector = match known {
                Some(v) => v,
                None => {
                    let v = self.embed_one(&format!("{}{text}", self.info.query_prefix))?;
                    if let Ok(mut recent) = self.recent.lock() {
                        recent.insert(text, &v);
                    }
                    v
                }
            };
            out.push(vector);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_vectors_keep_the_last_texts_and_evict_the_oldest() {
        let mut recent = Recent::default();
        for i in 0..QUERY_CACHE + 2 {
            recent.insert(&format!("q{i}"), &[i as f32]);
        }
        recent.insert("q5", &[-1.0]); // already known: kept as it was
        assert_eq!(recent.vectors.len(), QUERY_CACHE);
        assert!(!recent.vectors.contains_key("q0") && !recent.vectors.contains_key("q1"));
        assert_eq!(recent.vectors["q5"], [5.0]);
        assert_eq!(recent.order.len(), QUERY_CACHE);
    }
}
