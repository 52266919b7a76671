"""Checks that cairn runs a statically quantised model as onnxruntime does.

    VENV/bin/python tests/models/check_quant.py CAIRN MODEL.onnx WORK_DIR FORMAT [--tol 0.05] [--per-channel]

Quantises the f32 MODEL with onnxruntime's quantize_static (models/quantize.py's seeded
calibration: u8 activations, int8 weights) in FORMAT `qdq` (QuantizeLinear/DequantizeLinear
pairs around float ops) or `qop` (QLinearConv / QLinearMatMul and onnxruntime's com.microsoft
ops: QLinearAdd, QLinearMul, QLinearSoftmax, QLinearGlobalAveragePool, QGemm), runs cairn
(1 thread) and onnxruntime on check_ort.py's inputs, and requires each output to agree within
tol x max |onnxruntime| (max |cairn - ort| / max |ort| <= tol) with the same shape and type.

Implementations of a quantised graph legitimately differ by steps of its 8-bit grids (a value
near a rounding boundary lands on either side and the step propagates), so the bounds are
not check_ort.py's rtol 1e-4 but a fraction of the output's range: the largest difference
within `tol`, the mean within tol / 10, which a few boundary cases pass and a wrong scale,
zero point or operand order does not. onnxruntime's own two graphs (all optimisations
against none) are compared the same way and printed beside as the yardstick.
Exit 0 pass, 1 mismatch or failure.
"""
import argparse
import os
import shutil
import sys

import numpy as np
import onnx

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "models"))
import check_ort  # noqa: E402
import quantize  # noqa: E402


def rel(a, b):
    """max |a - b| / max |b| and mean |a - b| / max |b| over float64 copies"""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    scale = float(np.max(np.abs(b64))) if b.size else 0.0
    d = np.abs(a64 - b64)
    if scale == 0.0:
        return (0.0, 0.0) if not d.any() else (np.inf, np.inf)
    return float(np.max(d)) / scale, float(np.mean(d)) / scale


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cairn")
    p.add_argument("model")
    p.add_argument("work")
    p.add_argument("format", choices=["qdq", "qop"])
    p.add_argument("--tol", type=float, default=0.05)
    p.add_argument("--per-channel", action="store_true",
                   help="weights quantised per output channel (QLinearConv, QGemm's columns)")
    a = p.parse_args()

    import logging

    import onnxruntime as ort
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice
    ort.set_default_logger_severity(3)  # onnxruntime's notes on unused initializers

    a.cairn = os.path.abspath(a.cairn)
    os.makedirs(a.work, exist_ok=True)
    a.work = os.path.abspath(a.work)
    os.chdir(a.work)
    # quantize_static writes NAME-inferred.onnx beside the model it is given and deletes it
    # after: two tests quantising one model at once (its QDQ and QOperator forms) raced on
    # that file, in the source tree. Each test quantises its own copy in its own folder.
    src = os.path.join(a.work, "model_f32.onnx")
    shutil.copyfile(a.model, src)
    a.model = src
    qpath = os.path.join(a.work, f"model_{a.format}{'_pc' if a.per_channel else ''}.onnx")
    fmt = QuantFormat.QDQ if a.format == "qdq" else QuantFormat.QOperator
    quantize_static(a.model, qpath, quantize.random_reader(a.model), quant_format=fmt,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    per_channel=a.per_channel)
    qmodel = onnx.load(qpath)
    ms_ops = sorted({n.op_type for n in qmodel.graph.node if n.domain == "com.microsoft"})
    print(f"{a.format}: {len(qmodel.graph.node)} nodes; com.microsoft ops: {ms_ops or 'none'}")

    feeds = check_ort.make_inputs(onnx.load(a.model))
    outs = check_ort.run_cairn(a.cairn, qpath, a.work, feeds)
    if outs is None:
        return 1
    names, want = check_ort.run_ort(qpath, feeds)
    _, plain = check_ort.run_ort(qpath, feeds, optimize=False)
    if len(outs) != len(want):
        print(f"FAIL: cairn gave {len(outs)} outputs, onnxruntime {len(want)}")
        return 1
    ok = True
    for name, got, w, w0 in zip(names, outs, want, plain):
        if got.shape != w.shape or got.dtype != w.dtype:
            print(f"FAIL {name}: cairn gave {got.dtype} {list(got.shape)}, onnxruntime "
                  f"{w.dtype} {list(w.shape)}")
            ok = False
            continue
        mx, mean = rel(got, w)
        ymx, ymean = rel(w0, w)
        good = mx <= a.tol and mean <= a.tol / 10
        print(f"{'ok  ' if good else 'FAIL'} {name} {list(w.shape)}: cairn vs onnxruntime max "
              f"{mx:.3g} mean {mean:.3g} of max |ort| (bounds {a.tol:g}, {a.tol / 10:g}); "
              f"onnxruntime unoptimised vs optimised: max {ymx:.3g} mean {ymean:.3g}")
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
