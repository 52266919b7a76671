#!/usr/bin/env python3
"""Dynamically quantised copies of exported models, as onnxruntime's tools make them.

    build/venv/bin/python models/quantize.py DIR NAME...

For each DIR/NAME.onnx (models/export.py's output) writes DIR/NAME_int8.onnx with
onnxruntime.quantization.quantize_dynamic (weights int8, per tensor): every MatMul becomes
DynamicQuantizeLinear on its activation, MatMulInteger against the int8 weights, Cast and a
Mul by the two scales. Runs under the Python of the build folder's venv (models/venv.sh),
which has onnxruntime; existing outputs are kept unless --force is given.

Measure with `cairn bench model DIR/NAME_int8.onnx --peers --tol 2e-2`: a quantised model's
outputs differ by ~1e-2 between implementations (onnxruntime's own optimised and unoptimised
graphs by 7.5e-3 on the MiniLM encoder), because a one-ulp difference in a float op upstream of
a DynamicQuantizeLinear can move an activation to the next 8-bit step.
"""
import os
import sys


def main(argv):
    force = "--force" in argv
    args = [a for a in argv if a != "--force"]
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:
        print(f"models/quantize.py: needs onnxruntime (the build venv's Python): {e}",
              file=sys.stderr)
        return 1
    out_dir = args[0]
    for name in args[1:]:
        src = os.path.join(out_dir, f"{name}.onnx")
        dst = os.path.join(out_dir, f"{name}_int8.onnx")
        if not os.path.exists(src):
            print(f"models/quantize.py: {src} not found (export it first: "
                  f"/usr/bin/python3 models/export.py {out_dir} {name})", file=sys.stderr)
            return 1
        if os.path.exists(dst) and not force:
            print(f"models/quantize.py: {dst} exists (--force to redo)", file=sys.stderr)
            continue
        quantize_dynamic(src, dst, weight_type=QuantType.QInt8)
        print(f"models/quantize.py: wrote {dst}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
