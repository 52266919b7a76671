#!/bin/sh
# Runs `cairn conformance` on one ONNX backend test folder and fails when any
# test FAILs or when the PASS count drops below the committed baseline.
#   check.sh CAIRN DATA_DIR BASELINE_FILE
# A missing data folder (libonnx-testdata not installed) skips the check
# with exit 77, which ctest reports as skipped.
cairn=$1 data=$2 baseline=$3
if [ ! -d "$data" ]; then
    echo "conformance: $data not found (install Debian's libonnx-testdata); skipping"
    exit 77
fi
want=$(tr -dc 0-9 < "$baseline")
out=$("$cairn" conformance "$data")
rc=$?
summary=$(printf '%s\n' "$out" | tail -n 1)
printf '%s\n' "$out" | grep '^FAIL' || true
echo "$summary"
passed=$(printf '%s\n' "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) unsupported$/\1/p')
failed=$(printf '%s\n' "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) unsupported$/\2/p')
if [ -z "$passed" ] || [ -z "$failed" ]; then
    echo "conformance: no summary line (cairn exited with $rc)"
    exit 1
fi
if [ "$failed" -ne 0 ] || [ "$rc" -ne 0 ]; then
    echo "conformance: $failed test(s) FAILED (wrong answers); exit status $rc"
    exit 1
fi
if [ "$passed" -lt "$want" ]; then
    echo "conformance: $passed passed, below the baseline of $want in $baseline"
    exit 1
fi
echo "conformance: ok ($passed passed, baseline $want)"
