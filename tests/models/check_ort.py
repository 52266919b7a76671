"""Checks that cairn computes what onnxruntime computes on one model (f32).

    VENV/bin/python tests/models/check_ort.py CAIRN MODEL.onnx WORK_DIR [--rtol 1e-4] [--atol 1e-5]

Generates inputs from the model's declared inputs (floats: normal, seed 1; int64 *mask*
inputs: a padding mask whose later rows end in zeros; other ints: ids in [0, 100)), writes them
as ONNX TensorProto files, runs `CAIRN run MODEL --inputs ... --outputs ...` once on 1 thread,
runs onnxruntime (1 intra-op thread, sequential, all graph optimisations) on the same inputs
and requires every output element to satisfy |cairn - ort| <= atol + rtol * |ort|, the same
shapes and no NaN where onnxruntime has none. Prints the worst element of each output.
Exit 0 pass, 1 mismatch or failure.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

NP = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.INT64: np.int64,
      onnx.TensorProto.INT32: np.int32, onnx.TensorProto.BOOL: np.bool_}


def make_inputs(model):
    rng = np.random.default_rng(1)
    init = {i.name for i in model.graph.initializer}
    feeds = {}
    for vi in model.graph.input:
        if vi.name in init:
            continue
        tt = vi.type.tensor_type
        shape = [d.dim_value for d in tt.shape.dim]
        if any(s <= 0 for s in shape):
            sys.exit(f"{vi.name}: symbolic or unknown dims {shape}; the test models are static")
        dt = NP[tt.elem_type]
        if dt == np.float32:
            v = rng.standard_normal(shape).astype(np.float32)
        elif "mask" in vi.name:
            v = np.ones(shape, dt)
            for b in range(1, shape[0]):
                v[b, shape[-1] - (shape[-1] * b) // (2 * shape[0]):] = 0
        else:
            v = rng.integers(0, 100, shape).astype(dt)
        feeds[vi.name] = v
    return feeds


def run_cairn(cairn, model_path, work, feeds, threads=1):
    """Runs `cairn run` on feeds (written as TensorProto files under work); returns the list
    of outputs, or None after printing why it failed."""
    in_dir, out_dir = os.path.join(work, "inputs"), os.path.join(work, "outputs")
    os.makedirs(in_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    for d in (in_dir, out_dir):
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    for i, (name, v) in enumerate(feeds.items()):
        with open(os.path.join(in_dir, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, name).SerializeToString())
    cmd = [cairn, "run", model_path, "--inputs", in_dir, "--outputs", out_dir, "--iters", "1",
           "--warmup", "0", "--threads", str(threads)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited {r.returncode}\n{r.stdout}{r.stderr}")
        return None
    outs = []
    for i in range(len(os.listdir(out_dir))):
        t = onnx.TensorProto()
        with open(os.path.join(out_dir, f"output_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        outs.append(numpy_helper.to_array(t))
    return outs


def run_ort(model_path, feeds, optimize=True):
    """onnxruntime on 1 intra-op thread, sequential; all graph optimisations or none.
    Returns (output names, outputs)."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model_path, so, providers=["CPUExecutionProvider"])
    return [o.name for o in sess.get_outputs()], sess.run(None, feeds)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cairn")
    p.add_argument("model")
    p.add_argument("work")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    a = p.parse_args()

    model = onnx.load(a.model)
    feeds = make_inputs(model)
    outs = run_cairn(a.cairn, a.model, a.work, feeds)
    if outs is None:
        return 1
    names, want = run_ort(a.model, feeds)
    if len(outs) != len(want):
        print(f"FAIL: cairn gave {len(outs)} outputs, onnxruntime {len(want)}")
        return 1

    ok = True
    for name, got, w in zip(names, outs, want):
        if got.shape != w.shape or got.dtype != w.dtype:
            print(f"FAIL {name}: cairn gave {got.dtype} {list(got.shape)}, onnxruntime "
                  f"{w.dtype} {list(w.shape)}")
            ok = False
            continue
        g64, w64 = got.astype(np.float64), w.astype(np.float64)
        err = np.abs(g64 - w64)
        bound = a.atol + a.rtol * np.abs(w64)
        bad = ~(err <= bound)  # NaN in cairn's output counts as bad
        excess = np.where(np.isnan(err), np.inf, err / bound)
        k = np.unravel_index(int(np.argmax(excess)), w.shape) if w.size else ()
        scale = float(np.max(np.abs(w64))) if w.size else 0.0
        worst = (f"worst at {list(map(int, k))}: cairn {g64[k]:.9g} ort {w64[k]:.9g} "
                 f"(|diff| {err[k]:.3g}, bound {bound[k]:.3g})") if w.size else "empty"
        print(f"{'FAIL' if bad.any() else 'ok  '} {name} {list(w.shape)}: "
              f"{int(bad.sum())} of {w.size} outside atol {a.atol:g} + rtol {a.rtol:g}; "
              f"max |ort| {scale:.3g}; {worst}")
        ok = ok and not bad.any()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
