#!/usr/bin/env python3
"""Per-node times of a model in onnxruntime, to set beside `cairn profile`.

usage: build/venv/bin/python bench/ort_profile.py MODEL.onnx [THREADS] [RUNS]

Runs the model RUNS times (default 20) on random inputs of its declared
shapes with onnxruntime's CPU provider (intra-op threads = THREADS,
default 1; sequential; all graph optimisations), with onnxruntime's own
profiling on, and prints each node's median kernel time in microseconds
in execution order, then their sum. onnxruntime's fused and layout nodes
(names ending _nchwc, Reorder*) are what it actually ran.
"""
import collections
import json
import os
import sys
import tempfile

import numpy as np
import onnxruntime as ort


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    model = sys.argv[1]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.enable_profiling = True
    so.log_severity_level = 3  # errors only (not the initializer clean-up warnings)
    so.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "ort")
    s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    feeds = {}
    rng = np.random.default_rng(1)
    types = {"tensor(float)": np.float32, "tensor(uint8)": np.uint8, "tensor(int8)": np.int8,
             "tensor(int64)": np.int64}
    for i in s.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        t = types.get(i.type, np.float32)
        feeds[i.name] = (rng.random(shape) * (255 if t == np.uint8 else 1)).astype(t)
    for _ in range(runs):
        s.run(None, feeds)
    path = s.end_profiling()
    with open(path) as f:
        events = json.load(f)
    times = collections.OrderedDict()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            times.setdefault(e["name"][: -len("_kernel_time")], []).append(e["dur"])
    total = 0
    for name, v in times.items():
        v.sort()
        med = v[len(v) // 2]
        total += med
        print(f"{med:8d}  {name}")
    print(f"{total:8d}  total (us, sum of the medians)")


if __name__ == "__main__":
    main()
