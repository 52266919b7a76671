#!/bin/sh
# Runs the model table of issue 6 through `cairn bench model --peers` (cairn against
# onnxruntime, alternating in the same run) on 1 and 2 threads and rewrites the table between
# the models-table markers in docs/performance.md (CPU model, date, medians, ratios, RSS).
# Models missing from BUILD_DIR/models are exported first (models/export.py, Debian's
# python3-torch under /usr/bin/python3); onnxruntime runs from BUILD_DIR/venv (models/venv.sh).
#
# usage: bench/models.sh [BUILD_DIR]     (default: build; or $BUILD)
# environment: THREADS="1 2"; MODELS="encoder_s128_b1 ..." (names of models/export.py);
# ITERS=N timed runs of each implementation per case (default 6; 3 for models whose cairn
# run took over a second on the first thread count), WARMUP=N (default 1); DOC=path to write elsewhere.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${BUILD:-$root/build}}
case $build in /*) ;; *) build=$root/$build ;; esac
cairn=$build/cairn
doc=${DOC:-$root/docs/performance.md}
threads=${THREADS:-"1 2"}
iters=${ITERS:-6}
warmup=${WARMUP:-1}
models=${MODELS:-"encoder_s128_b1 encoder_s128_b8 encoder_s512_b1 gpt2stack resnet50 mobilenetv2"}

[ -x "$cairn" ] || { echo "bench/models.sh: $cairn not found: build first (make build)" >&2; exit 1; }
command -v jq > /dev/null || { echo "bench/models.sh: needs jq (apt-get install jq)" >&2; exit 1; }
[ -f "$doc" ] || { echo "bench/models.sh: $doc not found" >&2; exit 1; }
grep -q '^<!-- models-table:begin -->$' "$doc" && grep -q '^<!-- models-table:end -->$' "$doc" ||
    { echo "bench/models.sh: $doc lacks the <!-- models-table:begin/end --> markers" >&2; exit 1; }
sh "$root/models/venv.sh" "$build/venv" ||
    { echo "bench/models.sh: no onnxruntime venv in $build/venv (see above)" >&2; exit 1; }
/usr/bin/python3 "$root/models/export.py" "$build/models" $models --if-missing >&2 ||
    { echo "bench/models.sh: exporting the models failed; they need Debian's python3-torch," \
           "python3-torchvision and python3-onnx (make setup-models)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$("$cairn" info | sed -n 's/^cpu  *//p')
isa=$("$cairn" info | sed -n 's/^isa  *\([^ ]*\).*/\1/p')
start=$(date +%s)
# CPU 0 <-> 1 cache-line round trip (bench_c2c) before and after the run: the VM's two vCPUs
# were seen at ~60 ns (sharing an L3) and at ~400 ns minutes apart, and 2-thread figures move with it
c2c() { "$build/bench/bench_c2c" 0 1 2>/dev/null | sed -n 's/^cache-line round trip[^:]*: \([0-9]*\) ns.*/\1/p'; }
c2c_before=$(c2c || true)
num() { jq -r --arg i "$2" --arg k "$3" '[.results[] | select(.impl == $i) | .[$k]] |
         if length == 0 or .[0] == null then "–" else (.[0] * 10 | round / 10 | tostring) end' "$1"; }

: > "$tmp/rows"
for m in $models; do
    for t in $threads; do
        out=$tmp/$m-$t.json
        echo "bench/models.sh: $m, $t thread(s)" >&2
        # the slow models get fewer runs: cairn's time per run decides
        n=$iters
        if [ -f "$tmp/$m-slow" ]; then n=$(( iters < 3 ? iters : 3 )); fi
        if ! "$cairn" bench model "$build/models/$m.onnx" --threads "$t" --peers --iters "$n" \
             --warmup "$warmup" --json > "$out"; then
            echo "bench/models.sh: cairn bench model failed for $m on $t thread(s)" >&2
            echo "| $m | $t | failed | | | | | | |" >> "$tmp/rows"
            continue
        fi
        jq -e '.results[0].median_ms > 1000' "$out" > /dev/null && touch "$tmp/$m-slow"
        ratio=$(jq -r '.ratio_vs_onnxruntime | if . == null then "–" else (. * 100 | round / 100 | tostring) end' "$out")
        rss_ratio=$(jq -r '[.results[].peak_rss_mb] | if length < 2 or .[1] == null or .[1] == 0 then "–"
                      else (.[0] / .[1] * 100 | round / 100 | tostring) end' "$out")
        err=$(jq -r '.max_rel_err | if . == null then "–" else (. * 1e9 | round / 1e9 | tostring) end' "$out")
        echo "| $m | $t | $(num "$out" cairn median_ms) / $(num "$out" cairn p90_ms) |" \
             "$(num "$out" onnxruntime median_ms) / $(num "$out" onnxruntime p90_ms) | $ratio |" \
             "$(num "$out" cairn peak_rss_mb) | $(num "$out" onnxruntime peak_rss_mb)" \
             "($(num "$out" onnxruntime rss_before_load_mb)) | $rss_ratio | $err | $n |" >> "$tmp/rows"
        jq -r '.results[] | select(.impl == "onnxruntime") | .version' "$out" > "$tmp/ortv.new"
        [ -s "$tmp/ortv.new" ] && cp "$tmp/ortv.new" "$tmp/ortv"
    done
done

{
    c2c_after=$(c2c || true)
    echo '<!-- models-table:begin -->'
    echo "Measured $(date -u +%Y-%m-%d) by \`bench/models.sh\` on **$cpu** (cairn ISA level: $isa),"
    echo "against onnxruntime $(cat "$tmp/ortv" 2>/dev/null || echo '?') (CPU provider, intra-op threads = threads, inter-op 1,"
    echo "sequential, all graph optimisations) in the same run. CPU 0 <-> 1 cache-line round trip"
    echo "(\`build/bench/bench_c2c\`) before / after the run: ${c2c_before:-?} / ${c2c_after:-?} ns."
    echo
    echo "| model (f32) | threads | cairn median / p90 ms | onnxruntime median / p90 ms | cairn / ORT | cairn peak RSS MB | ORT peak RSS MB (before loading) | RSS cairn / ORT | max rel. err | runs |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    cat "$tmp/rows"
    echo
    echo "Models (models/export.py, random weights, opset 14, static shapes): encoder = the BERT-like"
    echo "6-layer encoder stack (MiniLM-L6 shape, no embeddings; s = sequence, b = batch); gpt2stack ="
    echo "12 pre-LN causal decoder blocks at 768, 1×128×768; resnet50 and mobilenetv2 = torchvision's,"
    echo "1×3×224×224. cairn and onnxruntime alternate in bursts of about 0.25 s with 500 ms pauses;"
    echo "inputs are the same random tensors for both, and the outputs are compared before any"
    echo "timing counts (max rel. err = max |cairn − ORT| / max |ORT|). Peak RSS is VmHWM in MB:"
    echo "cairn's of a child process that only loads, plans and runs the model; onnxruntime's of"
    echo "its Python process, whose interpreter, numpy and onnxruntime libraries (the figure in"
    echo "parentheses, before the model is loaded) are included."
    echo '<!-- models-table:end -->'
} > "$tmp/table"

awk -v table="$tmp/table" '
    /^<!-- models-table:begin -->$/ { while ((getline line < table) > 0) print line; skip = 1; next }
    /^<!-- models-table:end -->$/ { skip = 0; next }
    !skip { print }' "$doc" > "$tmp/doc"
cp "$tmp/doc" "$doc"
echo "bench/models.sh: rewrote the models table in $doc ($(( $(date +%s) - start )) s)" >&2
