#!/usr/bin/env python3
"""Quantised copies of exported models, as onnxruntime's tools make them.

    build/venv/bin/python models/quantize.py [--static | --qop] [--force] DIR NAME...

For each DIR/NAME.onnx (models/export.py's output) writes DIR/NAME_int8.onnx with
onnxruntime.quantization.quantize_dynamic (weights int8, per tensor): every MatMul becomes
DynamicQuantizeLinear on its activation, MatMulInteger against the int8 weights, Cast and a
Mul by the two scales. With --static, writes DIR/NAME_qdq.onnx with quantize_static in the
QDQ form instead (activations u8, weights int8 per tensor, calibrated by MinMax on four
random inputs drawn with a fixed seed): QuantizeLinear -> DequantizeLinear around every
quantised tensor, the weights stored in 8 bits behind a DequantizeLinear. With --qop, writes
DIR/NAME_qop.onnx: quantize_static in the QOperator form (the same calibration), 8-bit data
between QLinearConv / QLinearMatMul and onnxruntime's own com.microsoft ops (QLinearAdd,
QLinearMul, QLinearSoftmax, QLinearGlobalAveragePool, QGemm). Runs under the
Python of the build folder's venv (models/venv.sh), which has onnxruntime; existing outputs
are kept unless --force is given.

Measure with `cairn bench model DIR/NAME_int8.onnx --peers --tol 2e-2`: a quantised model's
outputs differ by ~1e-2 between implementations (onnxruntime's own optimised and unoptimised
graphs by 7.5e-3 on the MiniLM encoder), because a one-ulp difference in a float op upstream of
a DynamicQuantizeLinear can move an activation to the next 8-bit step. The QDQ form rounds
every activation, and its output too, to 8 bits: use --tol 0.1 there (onnxruntime's own
graphs differ by 6.7e-2 on the encoder, a few steps of the output's grid).
"""
import os
import sys


def random_reader(path, count=4, seed=0):
    """Calibration inputs for quantize_static: `count` draws of every graph input."""
    import numpy as np
    import onnx
    from onnxruntime.quantization import CalibrationDataReader

    model = onnx.load(path, load_external_data=False)
    types = {1: np.float32, 6: np.int32, 7: np.int64}
    rng = np.random.default_rng(seed)
    feeds = []
    for _ in range(count):
        feed = {}
        for inp in model.graph.input:
            tt = inp.type.tensor_type
            shape = [d.dim_value if d.dim_value > 0 else 1 for d in tt.shape.dim]
            dt = types.get(tt.elem_type)
            if dt is None:
                raise SystemExit(f"models/quantize.py: input {inp.name}: element type "
                                 f"{tt.elem_type} not supported for calibration")
            if dt == np.float32:
                feed[inp.name] = rng.standard_normal(shape).astype(dt)
            else:
                feed[inp.name] = rng.integers(0, 2, shape).astype(dt)
        feeds.append(feed)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(feeds)

        def get_next(self):
            return next(self.it, None)

    return Reader()


def main(argv):
    force = "--force" in argv
    static = "--static" in argv
    qop = "--qop" in argv
    args = [a for a in argv if a not in ("--force", "--static", "--qop")]
    if static and qop:
        print("models/quantize.py: --static and --qop exclude each other", file=sys.stderr)
        return 2
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        from onnxruntime.quantization import (QuantFormat, QuantType, quantize_dynamic,
                                              quantize_static)
    except ImportError as e:
        print(f"models/quantize.py: needs onnxruntime (the build venv's Python): {e}",
              file=sys.stderr)
        return 1
    out_dir = args[0]
    for name in args[1:]:
        src = os.path.join(out_dir, f"{name}.onnx")
        suffix = "qdq" if static else "qop" if qop else "int8"
        dst = os.path.join(out_dir, f"{name}_{suffix}.onnx")
        if not os.path.exists(src):
            print(f"models/quantize.py: {src} not found (export it first: "
                  f"/usr/bin/python3 models/export.py {out_dir} {name})", file=sys.stderr)
            return 1
        if os.path.exists(dst) and not force:
            print(f"models/quantize.py: {dst} exists (--force to redo)", file=sys.stderr)
            continue
        if static or qop:
            fmt = QuantFormat.QDQ if static else QuantFormat.QOperator
            quantize_static(src, dst, random_reader(src), quant_format=fmt,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        else:
            quantize_dynamic(src, dst, weight_type=QuantType.QInt8)
        print(f"models/quantize.py: wrote {dst}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
