//! Loads the embedding model and the ONNX runtime from the models directory and
//! embeds text in batches. Never downloads: what `scripts/setup` did not put
//! there makes the lane unavailable, with the reason.

use fastembed::{InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::unavailable::Unavailable;

pub const MODELS_DIR_VARIABLE: &str = "EVIDENT_MODELS_DIR";
const MODEL_DIR: &str = "all-MiniLM-L6-v2";
const MODEL_MANIFEST: &str = "MODEL.json";

/// `$EVIDENT_MODELS_DIR`, else `$XDG_DATA_HOME/evident/models`, else
/// `~/.local/share/evident/models` (where `scripts/setup` installs).
pub fn default_models_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(MODELS_DIR_VARIABLE).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("evident").join("models")
}

/// What `MODEL.json` says of the model.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ModelInfo {
    pub model_id: String,
    pub dimension: usize,
    pub max_length: usize,
    /// The ONNX runtime library, relative to the models directory.
    pub runtime: String,
}

pub struct Embedder {
    info: ModelInfo,
    // fastembed needs `&mut` to embed; one call at a time per model.
    model: Mutex<TextEmbedding>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("info", &self.info).finish_non_exhaustive()
    }
}

/// ONNX Runtime allows one environment per process, and the library, once
/// loaded, stays: the first successful load is shared by every later model.
static ENVIRONMENT: Mutex<Option<ort::environment::Environment>> = Mutex::new(None);

fn runtime_environment(runtime: &Path) -> Result<ort::environment::Environment, Unavailable> {
    // Held while loading, so two threads never both try to create the environment.
    let mut shared = ENVIRONMENT.lock().map_err(|_| Unavailable("ONNX runtime state is poisoned".into()))?;
    if let Some(environment) = shared.as_ref() {
        return Ok(environment.clone());
    }
    // ort panics when a runtime named by ORT_DYLIB_PATH is missing; `init_from`
    // returns an error instead, which becomes "vector lane disabled".
    let environment = ort::init_from(runtime)
        .map_err(|e| Unavailable(format!("ONNX runtime could not be loaded ({e})")))?
        .with_name("evident")
        // A research tool does not report on its users (ONNX Runtime would
        // write a device id and usage database under the home directory).
        .with_telemetry(false)
        .build()
        .map_err(|e| Unavailable(format!("ONNX runtime could not start ({e})")))?;
    *shared = Some(environment.clone());
    Ok(environment)
}

impl Embedder {
    /// What the installed model is, without loading it (cheap: one small file).
    pub fn read_info(models_dir: &Path) -> Result<ModelInfo, Unavailable> {
        let path = models_dir.join(MODEL_DIR).join(MODEL_MANIFEST);
        let bytes = std::fs::read(&path).map_err(|e| {
            Unavailable(format!("model file {MODEL_MANIFEST} not found in {} ({e}); run scripts/setup", path.display()))
        })?;
        serde_json::from_slice(&bytes)
            .map_err(|e| Unavailable(format!("{MODEL_MANIFEST} is unreadable ({e}); run scripts/setup")))
    }

    /// Loads from `models_dir`, or says why it cannot.
    pub fn load(models_dir: &Path) -> Result<Self, Unavailable> {
        Self::load_described(models_dir, Self::read_info(models_dir)?)
    }

    /// Loads the model `info` (already read with `read_info`) describes.
    pub fn load_described(models_dir: &Path, info: ModelInfo) -> Result<Self, Unavailable> {
        let model_dir = models_dir.join(MODEL_DIR);
        let read = |name: &str| {
            std::fs::read(model_dir.join(name)).map_err(|e| {
                Unavailable(format!("model file {name} not found in {} ({e}); run scripts/setup", model_dir.display()))
            })
        };
        let runtime = models_dir.join(&info.runtime);
        if !runtime.is_file() {
            return Err(Unavailable(format!("ONNX runtime {} not found; run scripts/setup", runtime.display())));
        }
        let environment = runtime_environment(&runtime)?;
        let tokenizer = TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let model = UserDefinedEmbeddingModel::new(read("model.onnx")?, tokenizer).with_pooling(Pooling::Mean);
        let options = InitOptionsUserDefined::new().with_environment(environment).with_max_length(info.max_length);
        let model = TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|e| Unavailable(format!("embedding model could not be loaded ({e})")))?;
        Ok(Self { info, model: Mutex::new(model) })
    }

    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Embeds `texts` (unit-length vectors), `batch_size` at a time.
    pub fn embed<S: AsRef<str> + Send + Sync>(
        &self,
        texts: &[S],
        batch_size: usize,
    ) -> Result<Vec<Vec<f32>>, Unavailable> {
        let mut model = self.model.lock().map_err(|_| Unavailable("embedding model is poisoned".into()))?;
        model.embed(texts, Some(batch_size.max(1))).map_err(|e| Unavailable(format!("embedding failed ({e})")))
    }

    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, Unavailable> {
        self.embed(&[text], 1)?.pop().ok_or_else(|| Unavailable("embedding returned nothing".into()))
    }
}
