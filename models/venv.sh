#!/bin/sh
# Creates the virtual environment VENV (e.g. build/venv) with models/requirements.txt, once:
# a stamp holding the requirements' checksum says it is complete, so a failed or interrupted
# install is redone and a changed requirements file reinstalls. Concurrent callers (ctest -j)
# wait on a lock. Exit 0 ready, 1 it could not be created (the reason on stderr).
#   sh models/venv.sh VENV [PYTHON]      PYTHON defaults to /usr/bin/python3, else python3
set -u
venv=${1:?usage: models/venv.sh VENV [PYTHON]}
here=$(cd "$(dirname "$0")" && pwd)
req=$here/requirements.txt
py=${2:-}
[ -n "$py" ] || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3 || py=python3; }
want=$(cksum < "$req")
stamp=$venv/.cairn-requirements
mkdir -p "$(dirname "$venv")" || exit 1
exec 9> "$venv.lock"
command -v flock > /dev/null && flock 9
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
if ! "$py" -c "import venv, ensurepip" 2> /dev/null; then
  echo "models/venv.sh: $py cannot create virtual environments (no venv/ensurepip module);" \
       "install Debian's python3-venv (apt-get install python3-venv)" >&2
  exit 1
fi
rm -rf "$venv"
echo "models/venv.sh: creating $venv (onnxruntime, numpy, onnx from the package index)" >&2
"$py" -m venv "$venv" || { echo "models/venv.sh: '$py -m venv $venv' failed" >&2; exit 1; }
if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2; then
  echo "models/venv.sh: pip could not install $req into $venv (is the package index" \
       "reachable?)" >&2
  exit 1
fi
echo "$want" > "$stamp"
