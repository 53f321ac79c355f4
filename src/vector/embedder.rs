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
    /// How many sessions the pool may hold.
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

/// How many query texts' vectors are kept by default, oldest evicted first.
pub(crate) const QUERY_CACHE: usize = 256;

/// Overrides `QUERY_CACHE` (`0` keeps none: every query is embedded, as a
/// benchmark of the embedder needs).
pub(crate) const QUERY_CACHE_VARIABLE: &str = "EVIDENT_QUERY_CACHE";

/// The cache size a value of `QUERY_CACHE_VARIABLE` asks for; the default when unset or not a count.
fn query_cache_capacity(value: Option<&str>) -> usize {
    value.and_then(|v| v.trim().parse().ok()).unwrap_or(QUERY_CACHE)
}

struct Recent {
    capacity: usize,
    vectors: std::collections::HashMap<String, Vec<f32>>,
    order: std::collections::VecDeque<String>,
}

impl Recent {
    fn new(capacity: usize) -> Self {
        Self { capacity, vectors: Default::default(), order: Default::default() }
    }

    fn insert(&mut self, text: &str, vector: &[f32]) {
        if self.capacity == 0 || self.vectors.contains_key(text) {
            return;
        }
        if self.order.len() >= self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.vectors.remove(&oldest);
        }
        self.order.push_back(text.to_owned());
        self.vectors.insert(text.to_owned(), vector.to_vec());
    }
}

/// A batch's place among the batches, and its vectors.
type Embedded = (usize, Result<Vec<Vec<f32>>, Unavailable>);

/// Takes the workers' batches as they finish and gives them to `done` in turn.
fn hand_back_in_order<B>(
    receive: &std::sync::mpsc::Receiver<Embedded>,
    batches: &[B],
    done: &mut impl FnMut(&B, Vec<Vec<f32>>) -> Result<(), Unavailable>,
) -> Result<(), Unavailable> {
    let mut finished = std::collections::BTreeMap::new();
    let mut turn = 0;
    for (index, vectors) in receive {
        finished.insert(index, vectors);
        while let Some(vectors) = finished.remove(&turn) {
            let batch = batches.get(turn).ok_or_else(|| Unavailable("a batch that was never asked for".into()))?;
            done(batch, vectors?)?;
            turn += 1;
        }
    }
    if turn < batches.len() {
        return Err(Unavailable("embedding stopped before every batch was embedded".into()));
    }
    Ok(())
}

/// The cores this process may use.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
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

    /// Loads the model `info` (already read with `ModelInfo::read`) describes:
    /// one session now, more (up to one per core) while callers contend, each
    /// with the runtime's default threads (a server's pool, as before the build's).
    pub(crate) fn load_described(info: ModelInfo) -> Result<Self, Unavailable> {
        Self::load_sessions(info, cores().clamp(1, MAX_SESSIONS), 1, None)
    }

    /// A build's pool: `sessions` sessions (default: one per core, at most
    /// `MAX_SESSIONS`) loaded now, the cores shared among them (a build keeps
    /// every session busy, so sessions that each used every core would only
    /// contend for them).
    pub fn load_pool(models_dir: &Path, name: &str, sessions: Option<usize>) -> Result<Self, Unavailable> {
        let sessions = sessions.unwrap_or_else(cores).clamp(1, MAX_SESSIONS);
        let threads = (cores() / sessions).max(1);
        Self::load_sessions(ModelInfo::read(models_dir, name)?, sessions, sessions, Some(threads))
    }

    /// A pool that may hold `capacity` sessions, `loaded` of them loaded now,
    /// each with `threads` intra-op threads (`None`: the runtime's default, every core).
    fn load_sessions(
        info: ModelInfo,
        capacity: usize,
        loaded: usize,
        threads: Option<usize>,
    ) -> Result<Self, Unavailable> {
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
            // The runtime's threads wait asleep, not spinning: a spinning thread
            // takes a core the other searches in flight need (16 clients on two
            // cores, p99 164 → 127 ms; with spinning only inside a run, the
            // 16-client p50 was 40 % higher; one client, within the noise).
            let mut options = InitOptionsUserDefined::new()
                .with_environment(environment.clone())
                .with_max_length(described.max_length)
                .with_session_config("session.intra_op.allow_spinning", "0");
            if let Some(threads) = threads {
                options = options.with_intra_threads(threads);
            }
            TextEmbedding::try_new_from_user_defined(model, options)
                .map_err(|e| Unavailable(format!("embedding model could not be loaded ({e})")))
        };
        // The first session is loaded now, so a model that cannot load disables the lane at once.
        let sessions = (0..loaded.max(1)).map(|_| make().map(|m| Arc::new(Mutex::new(m)))).collect::<Result<_, _>>()?;
        Ok(Self {
            info,
            make: Box::new(make),
            sessions: Mutex::new(sessions),
            capacity,
            next: AtomicUsize::new(0),
            growing: AtomicBool::new(false),
            recent: Mutex::new(Recent::new(query_cache_capacity(std::env::var(QUERY_CACHE_VARIABLE).ok().as_deref()))),
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

    pub(crate) fn info(&self) -> &ModelInfo {
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
    pub(crate) fn embed_passages(&self, texts: &[String], batch_size: usize) -> Result<Vec<Vec<f32>>, Unavailable> {
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{}{t}", self.info.passage_prefix)).collect();
        if self.info.dynamic_quantization {
            return prefixed.iter().map(|t| self.embed_one(t)).collect();
        }
        self.embed(&prefixed, batch_size)
    }

    /// Embeds the passage texts of every batch in `batches` on all the pool's
    /// sessions at once (one batch per session at a time) and hands each
    /// batch's vectors to `done` in the batches' order. A batch is embedded the
    /// same way whichever session takes it, so the vectors do not depend on how
    /// many sessions there are. Stops at the first error, embedding's or `done`'s.
    pub fn embed_batches_in_order<B: Sync>(
        &self,
        batches: &[B],
        texts_of: impl Fn(&B) -> Vec<String> + Sync,
        batch_size: usize,
        mut done: impl FnMut(&B, Vec<Vec<f32>>) -> Result<(), Unavailable>,
    ) -> Result<(), Unavailable> {
        let workers = self.capacity.min(batches.len()).max(1);
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            // Bounded: a worker that runs ahead waits instead of piling up vectors.
            let (send, receive) = std::sync::mpsc::sync_channel(workers);
            for _ in 0..workers {
                let (send, next, stop, texts_of) = (send.clone(), &next, &stop, &texts_of);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let turn = next.fetch_add(1, Ordering::Relaxed);
                        let Some(batch) = batches.get(turn) else { break };
                        let vectors = self.embed_passages(&texts_of(batch), batch_size);
                        if send.send((turn, vectors)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(send);
            let outcome = hand_back_in_order(&receive, batches, &mut done);
            // Workers see the stop flag, or a closed channel, and finish.
            stop.store(true, Ordering::Relaxed);
            drop(receive);
            outcome
        })
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
        let mut recent = Recent::new(QUERY_CACHE);
        for i in 0..QUERY_CACHE + 2 {
            recent.insert(&format!("q{i}"), &[i as f32]);
        }
        recent.insert("q5", &[-1.0]); // already known: kept as it was
        assert_eq!(recent.vectors.len(), QUERY_CACHE);
        assert!(!recent.vectors.contains_key("q0") && !recent.vectors.contains_key("q1"));
        assert_eq!(recent.vectors["q5"], [5.0]);
        assert_eq!(recent.order.len(), QUERY_CACHE);
    }

    #[test]
    fn a_cache_of_zero_keeps_nothing_and_a_bad_size_keeps_the_default() {
        let mut none = Recent::new(query_cache_capacity(Some("0")));
        none.insert("q", &[1.0]);
        assert!(none.vectors.is_empty() && none.order.is_empty());
        assert_eq!(query_cache_capacity(Some(" 16 ")), 16);
        for bad in [None, Some(""), Some("-1"), Some("many")] {
            assert_eq!(query_cache_capacity(bad), QUERY_CACHE, "{bad:?}");
        }
    }
}
