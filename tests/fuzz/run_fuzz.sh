#!/bin/sh
# Builds the ONNX loader fuzzer with clang (-fsanitize=fuzzer,address) and
# runs it for SECONDS on a seed corpus of the libonnx-testdata models.
#   run_fuzz.sh SOURCE_DIR BUILD_DIR GEN_DIR SECONDS [TESTDATA]
# Exit 77 (skipped) when clang or libFuzzer is missing.
src=$1 out=$2/fuzz gen=$3 secs=${4:-60} data=${5:-/usr/share/libonnx-testdata/data}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || { echo "fuzz: $cc not found; skipping"; exit 77; }
mkdir -p "$out/corpus" || exit 1
probe="$out/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' > "$probe"
"$cc" -fsanitize=fuzzer,address "$probe" -o "$out/probe" 2>/dev/null ||
    { echo "fuzz: $cc has no libFuzzer (install libclang-rt-dev); skipping"; exit 77; }
bin="$out/fuzz_onnx_loader"
if [ ! -x "$bin" ] || [ -n "$(find "$src/src" "$src/tests/fuzz" -name '*.[ch]' -newer "$bin" | head -n 1)" ]; then
    echo "fuzz: building $bin"
    "$cc" -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$src/include" -I"$src/src" -I"$gen" \
        $(find "$src/src" -name '*.c') "$gen/onnx.pb-c.c" "$src/tests/fuzz/fuzz_onnx_loader.c" \
        -lprotobuf-c -lpthread -lm -o "$bin" || exit 1
fi
# seeds: the test models (small ones), once
if [ -d "$data" ] && [ -z "$(ls -A "$out/corpus")" ]; then
    i=0
    for m in $(find "$data" -name model.onnx -size -64k | sort); do
        cp "$m" "$out/corpus/seed_$i.onnx"
        i=$((i + 1))
    done
fi
cd "$out" && ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 corpus
