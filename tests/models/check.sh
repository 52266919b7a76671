#!/bin/sh
# One model of tests/models against onnxruntime (a ctest; see check_ort.py):
#   sh tests/models/check.sh BUILD_DIR CAIRN MODEL.onnx [WORK_NAME [FORMAT [--per-channel]]]
# (WORK_NAME: the work folder's name under BUILD_DIR/models_check, the model's by default;
# tests that run one model under different settings give each its own. FORMAT qdq or qop:
# the model statically quantised in that form first, and compared as check_quant.py does)
# Makes sure the build folder's venv exists first; exit 77 (skipped) only when it cannot be
# created, e.g. without python3-venv or the package index.
set -u
build=$1 cairn=$2 model=$3 work=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
if ! sh "$here/../../models/venv.sh" "$build/venv"; then
  echo "SKIPPED: the virtual environment $build/venv with onnxruntime could not be created" >&2
  exit 77
fi
name=${work:-$(basename "$model" .onnx)}
if [ $# -ge 5 ]; then
  shift 4
  exec "$build/venv/bin/python" "$here/check_quant.py" "$cairn" "$model" \
       "$build/models_check/$name" "$@"
fi
exec "$build/venv/bin/python" "$here/check_ort.py" "$cairn" "$model" "$build/models_check/$name"
