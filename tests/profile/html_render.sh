#!/bin/sh
# Renders the profiler's HTML report in headless Chromium and checks the
# screenshot is not blank (the page is self-contained: no network needed).
#   html_render.sh CAIRN WORKDIR
# Exit 77 (skipped) when Debian's chromium is not installed.
cairn=$1 work=$2
browser=$(command -v chromium || command -v chromium-browser) || {
    echo "html_render: chromium not installed; skipping"; exit 77; }
mkdir -p "$work" || exit 1
html="$work/profile.html" shot="$work/profile.png"
rm -f "$html" "$shot"
"$cairn" profile demo --dim seq=8 --iters 2 --warmup 0 --threads 1 --no-counters \
    --html "$html" >/dev/null || exit 1
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1200,1600 --screenshot="$shot" "file://$html" >/dev/null 2>&1
[ -s "$shot" ] || { echo "html_render: no screenshot"; exit 1; }
# not blank: decode the PNG's pixel stream and require ink (non-white bytes)
# in a real share of it, in many distinct shades
python3 - "$shot" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
ink = sum(1 for b in raw[::7] if b not in (0, 255)) / max(1, len(raw[::7]))
shades = len(set(raw[::7]))
print(f"html_render: {ink:.1%} of sampled bytes inked, {shades} distinct values")
sys.exit(0 if ink > 0.01 and shades > 16 else 1)
PY
