"""Test-only: loaded by Python when this folder is on PYTHONPATH; makes onnxruntime's outputs
wrong by 1 % so that the test can check that `cairn bench model --peers` refuses to report
timings when cairn and onnxruntime disagree."""
try:
    import onnxruntime as _ort

    _run = _ort.InferenceSession.run

    def _wrong(self, *a, **k):
        return [o * 1.01 + 0.01 for o in _run(self, *a, **k)]

    _ort.InferenceSession.run = _wrong
except ImportError:
    pass
