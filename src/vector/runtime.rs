//! The models directory and the ONNX runtime every model runs on: where a
//! model is installed, what its `MODEL.json` says of it, and the one runtime
//! environment a process may have. Shared by the embedder and the reranker;
//! never downloads (what `scripts/fetch_model.py` did not install is missing,
//! with the command that installs it).

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::unavailable::Unavailable;

pub(crate) const MODELS_DIR_VARIABLE: &str = "EVIDENT_MODELS_DIR";
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

/// What a model is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ModelKind {
    /// Text → one unit vector (the dense lane).
    #[default]
    Embedding,
    /// (query, passage) → a relevance score (the reranking stage).
    CrossEncoder,
}

/// How token vectors become one text vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PoolingKind {
    #[default]
    Mean,
    Cls,
    /// A cross-encoder has no pooling: it outputs a score.
    None,
}

/// What `MODEL.json` (written by `scripts/fetch_model.py`, the one place a
/// model is defined) says of a model. Fields added after the first release
/// default to what all-MiniLM-L6-v2, the only model then, was.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct ModelInfo {
    /// The installed name: the model's directory, what corpus.toml names.
    #[serde(skip)]
    pub(crate) name: String,
    /// The models directory it was read from (its files and the runtime are there).
    #[serde(skip)]
    pub(crate) models_dir: PathBuf,
    pub(crate) model_id: String,
    #[serde(default)]
    pub(crate) kind: ModelKind,
    pub(crate) dimension: usize,
    pub(crate) max_length: usize,
    #[serde(default)]
    pub(crate) pooling: PoolingKind,
    /// Prepended to a query / a passage before embedding (e5's "query: ").
    #[serde(default)]
    pub(crate) query_prefix: String,
    #[serde(default)]
    pub(crate) passage_prefix: String,
    /// Dynamically quantised weights quantise activations per batch, so a
    /// text's vector depends slightly on what it was batched with.
    #[serde(default)]
    pub(crate) dynamic_quantization: bool,
    /// The ONNX runtime library, relative to the models directory.
    pub(crate) runtime: String,
}

impl ModelInfo {
    /// What the model `name` installed in `models_dir` is, without loading it.
    pub(crate) fn read(models_dir: &Path, name: &str) -> Result<Self, Unavailable> {
        let path = models_dir.join(name).join(MODEL_MANIFEST);
        let bytes = std::fs::read(&path).map_err(|_| {
            Unavailable(format!(
                "model {name} is not installed in {} (no {MODEL_MANIFEST}); install it with \
                 `scripts/fetch_model.py --model {name}`",
                models_dir.display()
            ))
        })?;
        let mut info: Self = serde_json::from_slice(&bytes).map_err(|e| {
            Unavailable(format!(
                "{name}/{MODEL_MANIFEST} is unreadable ({e}); reinstall with `scripts/fetch_model.py --model {name}`"
            ))
        })?;
        info.name = name.to_owned();
        info.models_dir = models_dir.to_owned();
        Ok(info)
    }

    /// Reads one of the model's files (`tokenizer.json`, `model.onnx`, …).
    pub(crate) fn read_file(&self, file: &str) -> Result<Vec<u8>, Unavailable> {
        let path = self.models_dir.join(&self.name).join(file);
        std::fs::read(&path).map_err(|e| {
            Unavailable(format!(
                "model file {file} not found in {} ({e}); reinstall with `scripts/fetch_model.py --model {}`",
                path.display(),
                self.name
            ))
        })
    }

    /// The four tokenizer files every model directory holds.
    pub(crate) fn tokenizer_files(&self) -> Result<fastembed::TokenizerFiles, Unavailable> {
        Ok(fastembed::TokenizerFiles {
            tokenizer_file: self.read_file("tokenizer.json")?,
            config_file: self.read_file("config.json")?,
            special_tokens_map_file: self.read_file("special_tokens_map.json")?,
            tokenizer_config_file: self.read_file("tokenizer_config.json")?,
        })
    }

    /// The runtime environment this model runs in.
    pub(crate) fn environment(&self) -> Result<ort::environment::Environment, Unavailable> {
        let runtime = self.models_dir.join(&self.runtime);
        if !runtime.is_file() {
            return Err(Unavailable(format!(
                "ONNX runtime {} not found; install it with `scripts/fetch_model.py`",
                runtime.display()
            )));
        }
        runtime_environment(&runtime)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_names_the_command_that_installs_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = ModelInfo::read(dir.path(), "bge-small-en").unwrap_err().0;
        assert!(err.contains("scripts/fetch_model.py --model bge-small-en"), "{err}");
    }

    #[test]
    fn a_first_release_model_json_reads_as_mean_pooled_embeddings_without_prefixes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("m")).unwrap();
        let old = r#"{"model_id": "sentence-transformers/all-MiniLM-L6-v2", "dimension": 384, "max_length": 256,
                      "pooling": "mean", "normalized": true, "runtime": "onnxruntime/lib.so", "files": {}}"#;
        std::fs::write(dir.path().join("m/MODEL.json"), old).unwrap();
        let info = ModelInfo::read(dir.path(), "m").unwrap();
        assert_eq!((info.name.as_str(), info.kind, info.pooling), ("m", ModelKind::Embedding, PoolingKind::Mean));
        assert!(info.query_prefix.is_empty() && !info.dynamic_quantization);
    }
}
