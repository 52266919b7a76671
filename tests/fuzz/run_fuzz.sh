#!/bin/sh
# Builds a fuzz target with clang (-fsanitize=fuzzer,address,undefined) and
# runs it for SECONDS on a seed corpus of the libonnx-testdata models.
#   run_fuzz.sh SOURCE_DIR BUILD_DIR GEN_DIR SECONDS [TESTDATA [TARGET]]
# TARGET: fuzz_onnx_loader (the default: load, verify, print) or
# fuzz_session (load, compile, run). Each target keeps its own corpus.
# Exit 77 (skipped) when clang or libFuzzer is missing.
src=$1 out=$2/fuzz gen=$3 secs=${4:-60} data=${5:-/usr/share/libonnx-testdata/data}
target=${6:-fuzz_onnx_loader}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || { echo "fuzz: $cc not found; skipping"; exit 77; }
corpus=corpus
[ "$target" = fuzz_onnx_loader ] || corpus="corpus_${target#fuzz_}"
mkdir -p "$out/$corpus" || exit 1
out=$(cd "$out" && pwd) || exit 1 # the fuzzer runs from there: paths below absolute
probe="$out/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' > "$probe"
"$cc" -fsanitize=fuzzer,address "$probe" -o "$out/probe" 2>/dev/null ||
    { echo "fuzz: $cc has no libFuzzer (install libclang-rt-dev); skipping"; exit 77; }
# the library is built by its own CMake tree with clang, so every file gets
# its own flags (ISA-specific kernels included), instrumented for libFuzzer
bin="$out/build/$target"
echo "fuzz: building $bin"
cmake -S "$src" -B "$out/build" -DCMAKE_C_COMPILER="$cc" -DCAIRN_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
cmake --build "$out/build" --target "$target" -j "$(nproc 2>/dev/null || echo 2)" \
    >"$out/build-$target.log" 2>&1 || { tail -n 30 "$out/build-$target.log"; exit 1; }
# seeds: the test models (small ones), once
if [ -d "$data" ] && [ -z "$(ls -A "$out/$corpus")" ]; then
    i=0
    for m in $(find "$data" -name model.onnx -size -64k | sort); do
        cp "$m" "$out/$corpus/seed_$i.onnx"
        i=$((i + 1))
    done
fi
# A model may ask for more memory than there is (a Tile to 5 GB): the
# sanitizer's allocator returns NULL for any block over 2 GB, which cairn
# must turn into an error, before libFuzzer's limits (3 GB a block, 4 GB
# in all) would call it a crash
cd "$out" && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048 \
    "$bin" -max_total_time="$secs" -rss_limit_mb=4096 -malloc_limit_mb=3072 -timeout=20 \
    -print_final_stats=1 "$corpus"
