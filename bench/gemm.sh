#!/bin/sh
# Runs the standard f32 GEMM table of issue 4 through `cairn bench gemm
# --peers` on 1 and 2 threads and rewrites the table between the gemm-table
# markers in docs/performance.md (CPU model, date, cairn's kernel, medians,
# fraction of the calibrated peak, cairn / best peer).
#
# usage: bench/gemm.sh [BUILD_DIR]     (default: build)
# environment: THREADS="1 2" to choose the thread counts; SHAPES="MxNxK ..."
# to choose the shapes; REPEAT=N runs each case N times (default 3) and keeps
# each library's best median over them (on a shared machine a neighbour's
# burst can hit one library's turns in one repeat and not the others');
# DOC=path to write elsewhere; a machine file from
# `cairn calibrate` is used when there is one (else bench calibrates quickly).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cairn=$build/cairn
doc=${DOC:-$root/docs/performance.md}
threads=${THREADS:-"1 2"}
repeat=${REPEAT:-3}
shapes=${SHAPES:-"256x256x256 512x512x512 1024x1024x1024 2048x2048x2048 128x1536x384 128x384x1536 1x4096x4096 8x4096x4096 512x768x3072"}

[ -x "$cairn" ] || { echo "bench/gemm.sh: $cairn not found: build first (cmake --build build)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench/gemm.sh: needs jq (apt-get install jq)" >&2; exit 1; }
[ -f "$doc" ] || { echo "bench/gemm.sh: $doc not found" >&2; exit 1; }
grep -q '^<!-- gemm-table:begin -->$' "$doc" && grep -q '^<!-- gemm-table:end -->$' "$doc" ||
    { echo "bench/gemm.sh: $doc lacks the <!-- gemm-table:begin/end --> markers" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$("$cairn" info | sed -n 's/^cpu  *//p')
isa=$("$cairn" info | sed -n 's/^isa  *\([^ ]*\).*/\1/p')
start=$(date +%s)
# CPU 0 <-> 1 cache-line round trip (bench_c2c) before and after the run: the VM's two vCPUs
# were seen at ~60 ns (sharing an L3) and at ~400 ns minutes apart, and 2-thread figures move with it
c2c() { "$build/bench/bench_c2c" 0 1 2>/dev/null | sed -n 's/^cache-line round trip[^:]*: \([0-9]*\) ns.*/\1/p'; }
c2c_before=$(c2c || true)

# peer cell: "GFLOP/s" or a dash when it was skipped
cell() { jq -r --arg i "$2" '[.results[] | select(.impl == $i) | .gflops] |
          if length == 0 then "–" else (.[0] * 10 | round / 10 | tostring) end' "$1"; }

: > "$tmp/rows"
for t in $threads; do
    for s in $shapes; do
        m=${s%%x*}; rest=${s#*x}; n=${rest%%x*}; k=${rest#*x}
        out=$tmp/$s-$t.json
        echo "bench/gemm.sh: $m x $n x $k, $t thread(s)" >&2
        r=0
        rm -f "$tmp"/try-*.json
        while [ "$r" -lt "$repeat" ]; do
            r=$((r + 1))
            if ! "$cairn" bench gemm --m "$m" --n "$n" --k "$k" --threads "$t" --peers --json > "$tmp/try-$r.json"; then
                echo "bench/gemm.sh: cairn bench gemm failed for $s on $t thread(s)" >&2
                exit 1
            fi
        done
        # each library's best median over the repeats: a neighbour's burst
        # that hits one library's slots in one repeat does not decide the row
        jq -s '{threads: .[0].threads, peak_gflops: .[0].peak_gflops, peak_source: .[0].peak_source,
                results: ([.[].results[]] | group_by(.impl) | map(max_by(.gflops)))}
               | .ratio_vs_best_peer = ([.results[] | select(.impl == "cairn") | .gflops][0] /
                   ([.results[] | select(.impl != "cairn") | .gflops] | if length == 0 then null else max end))' \
            "$tmp"/try-*.json > "$out"
        c=$(cell "$out" cairn); ob=$(cell "$out" openblas); bl=$(cell "$out" blis); dn=$(cell "$out" onednn)
        pf=$(jq -r '.results[] | select(.impl == "cairn") | .peak_fraction |
                    if . == null then "–" else (. * 1000 | round / 10 | tostring) + " %" end' "$out")
        ratio=$(jq -r '.ratio_vs_best_peer | if . == null then "–" else (. * 100 | round / 100 | tostring) end' "$out")
        # two decimals: jq prints 1.0 as "1" and 0.9 as "0.9"
        case $ratio in –) ;; *) ratio=$(printf '%.2f' "$ratio") ;; esac
        echo "| ${m}×${n}×${k} | $t | $c | $pf | $ob | $bl | $dn | $ratio |" >> "$tmp/rows"
        jq -r '.results[] | select(.impl == "cairn") | .detail' "$out" > "$tmp/variant"
        jq -r '.results[] | select(.impl != "cairn") | "\(.impl): \(.detail)"' "$out" > "$tmp/peers.new"
        [ -s "$tmp/peers.new" ] && cp "$tmp/peers.new" "$tmp/peers"
        jq -r '"\(.threads) \(.peak_gflops // 0 | . * 10 | round / 10) \(.peak_source)"' "$out" >> "$tmp/peaks"
    done
done

{
    c2c_after=$(c2c || true)
    echo '<!-- gemm-table:begin -->'
    echo "Measured $(date -u +%Y-%m-%d) by \`bench/gemm.sh\` on **$cpu** (cairn ISA level: $isa)."
    echo "cairn's kernel: $(cat "$tmp/variant")."
    echo "Peers: $(paste -sd';' "$tmp/peers" 2>/dev/null | sed 's/;/; /g')."
    echo "CPU 0 <-> 1 cache-line round trip (\`build/bench/bench_c2c\`) before / after the run: ${c2c_before:-?} / ${c2c_after:-?} ns."
    echo "Calibrated f32 peak (\`cairn calibrate\`): $(sort -un "$tmp/peaks" | awk '{printf "%s%s GFLOP/s on %s thread%s", (NR>1?", ":""), $2, $1, ($1>1?"s":"")}')."
    echo
    echo "| M×N×K | threads | cairn GFLOP/s | cairn % of peak | OpenBLAS | BLIS | oneDNN | cairn / best peer |"
    echo "|---|---|---|---|---|---|---|---|"
    cat "$tmp/rows"
    echo
    echo "Each case ran $repeat time(s); each library's cell is its best median over the repeats."
    echo "Medians of at least 5 runs and 0.3 s per library (3 runs when one run takes over 1 s),"
    echo "alternating between the libraries in bursts with a 120 ms pause between them so that"
    echo "one library's idle spinning threads do not slow the next; GFLOP/s = 2·M·N·K / time."
    echo '<!-- gemm-table:end -->'
} > "$tmp/table"

awk -v table="$tmp/table" '
    /^<!-- gemm-table:begin -->$/ { while ((getline line < table) > 0) print line; skip = 1; next }
    /^<!-- gemm-table:end -->$/ { skip = 0; next }
    !skip { print }' "$doc" > "$tmp/doc"
cp "$tmp/doc" "$doc"
echo "bench/gemm.sh: rewrote the GEMM table in $doc ($(( $(date +%s) - start )) s)" >&2
