"""bench/cuda/targets.py, the table of the CUDA issue's targets, on small hand-made results
files: which rows it compares (fastest validated fused variant, in-kernel position rows, the
peer named), the ratio's direction, failed and untimed rows left out, missing sides reported,
and the memory-bound rule (batched time, >= 256 MB, the copy roofline beside it).

Usage: python3 bench_targets.py
"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "cuda"))
import targets  # noqa: E402


def attention(variant, ms, L=4096, d=128, dtype="fp16", mask="none", B=4, **params):
    return {"kernel": "attention", "variant": variant, "dtype": dtype, "median_ms": ms,
            "validated": True, "shape": {"B": B, "H": 16, "Lq": L, "Lk": L, "d": d},
            "params": {"mask": mask, **params}}


def write(tmp, name, source, results):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump({"source": source, "device": {}, "results": results}, f)
    return path


class Targets(unittest.TestCase):
    def rows(self, ours, peers):
        with tempfile.TemporaryDirectory() as tmp:
            return targets.load([write(tmp, "p.json", "poslab", ours),
                                 write(tmp, "t.json", "pytorch", peers)])

    def find(self, table, target, shape_part):
        return next(r for r in table if r[0] == target and shape_part in r[1])

    def test_plain_takes_the_fastest_validated_fused_variant(self):
        rows = self.rows([attention("2-flash", 2.0), attention("3-flash128", 1.5),
                          {**attention("3-flash128", 0.1), "validated": False},
                          attention("1-naive", 0.2)],
                         [attention("torch-flash", 1.8), attention("torch-math", 0.5)])
        row = self.find(targets.plain_targets(rows), "fused ≥ SDPA flash", "d 128 fp16 none")
        self.assertIn("3-flash128 1.500 ms", row[2])
        self.assertIn("torch-flash 1.800 ms", row[3])
        self.assertEqual(row[4:], ["1.20×", "≥ 1×", "met"])

    def test_a_missing_side_is_not_measured(self):
        rows = self.rows([attention("2-flash", 2.0)], [])
        row = self.find(targets.plain_targets(rows), "fused ≥ SDPA flash", "d 128 fp16 none")
        self.assertEqual(row[-1], "not measured (the peer)")
        row = self.find(targets.plain_targets(rows), "fused ≥ SDPA flash", "d 64 fp16 none")
        self.assertEqual(row[-1], "not measured (PosLab)")

    def test_position_rows_compare_in_kernel_against_each_peer(self):
        alibi = dict(mask="causal+alibi", position="alibi")
        rows = self.rows(
            [attention("2-flash", 1.0, in_kernel=True, **alibi),
             attention("1-naive", 0.5, in_kernel=False, **alibi),  # a bias tensor: not a target
             attention("2-flash", 0.4, B=2, in_kernel=True, **alibi)],  # another shape
            [attention("torch-sdpa+bias", 2.5, in_kernel=False, backend="efficient", **alibi),
             attention("torch-flex", 0.9, in_kernel=True, **alibi)])
        table = targets.position_targets(rows)
        sdpa = self.find(table, "alibi in kernel vs torch-sdpa+bias", "L 4096")
        self.assertEqual(sdpa[3], "torch-sdpa+bias [efficient] 2.500 ms")
        self.assertEqual(sdpa[4:], ["2.50×", "≥ 2×", "met"])
        flex = self.find(table, "alibi in kernel vs torch-flex", "L 4096")
        self.assertEqual(flex[4:], ["0.90×", "≥ 1×", "short"])
        self.assertFalse(any("flash-attn" in r[0] for r in table))  # not installed: no row

    def test_rope_fused_against_rope_then_flash(self):
        rope = dict(mask="causal+rope", position="rope")
        rows = self.rows([attention("2-flash", 1.0, in_kernel=True, **rope),
                          attention("rope+2-flash", 1.1, in_kernel=False, **rope)],
                         [attention("torch-rope+flash", 1.2, in_kernel=False, **rope)])
        row = self.find(targets.position_targets(rows), "RoPE fused vs RoPE + SDPA flash",
                        "L 4096")
        self.assertEqual(row[4:], ["1.20×", "≥ 1.15×", "met"])

    def test_bandwidth_uses_batched_rows_past_256_mb_with_the_copy(self):
        big, small = 256 * 2 ** 20, 64 * 2 ** 20
        rope = {"kernel": "rope", "variant": "2-vec16", "dtype": "fp16", "median_ms": 1.0,
                "validated": True, "batched_ms": 0.09, "bytes": big,
                "pct_peak_bandwidth_batched": 86.0, "pct_copy_batched": 97.5}
        rows = self.rows([rope, {**rope, "bytes": small, "pct_peak_bandwidth_batched": 99.0},
                          {**rope, "kernel": "sinusoidal", "dtype": "fp32",
                           "pct_peak_bandwidth_batched": 77.7}], [])
        table = targets.bandwidth_targets(rows)
        row = self.find(table, "rope ≥ 85% of HBM peak", "fp16")
        self.assertEqual(row[1:], ["fp16 256 MB", "2-vec16 0.090 ms (batched)",
                                   "copy: 97.5% of its speed", "86.0%", "≥ 85%", "met"])
        self.assertEqual(self.find(table, "sinusoidal ≥ 85% of HBM peak", "")[-1], "short")
        self.assertEqual(self.find(table, "alibi ≥ 85% of HBM peak", "")[-1], "not measured")

    def test_the_table_is_markdown(self):
        text = targets.table([["a", "b", "c", "d", "e", "f", "g"]])
        self.assertEqual(text.splitlines()[1], "| --- | --- | --- | --- | --- | --- | --- |")
        self.assertEqual(text.splitlines()[2], "| a | b | c | d | e | f | g |")


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
