"""Reference results from PosLab's CPU core, through the `poslab` CLI, for the peers that
bench/cuda/torch_baseline.py times; and the tolerance policy of
cpp/cuda/include/poslab/cuda/compare.hpp, so a peer's row is validated the way PosLab's are.

Arrays travel as .npy files in a scratch folder. Only numpy is needed here (no torch), so
tests/cuda/core_reference_test.py checks this module on any machine with the CLI.
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np

# |got - ref| <= atol + rtol * |ref|, per storage type (compare.hpp explains the numbers).
TOLERANCE = {"fp32": (1e-5, 1e-5), "fp16": (1e-3, 1e-3), "bf16": (8e-3, 8e-3)}


def compare(got, ref, dtype):
    """The fields a benchmark row records about its check against the core."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        raise ValueError(f"compare: shapes {got.shape} and {ref.shape} differ")
    atol, rtol = TOLERANCE[dtype]
    error = np.abs(got - ref)
    bad = ~(error <= atol + rtol * np.abs(ref))  # NaN and inf fail too
    worst = float(np.max(error)) if error.size else 0.0
    return {"max_abs_error": worst if np.isfinite(worst) else None,  # JSON has no NaN
            "max_abs_reference": float(np.max(np.abs(ref))) if ref.size else 0.0,
            "tolerance": {"atol": atol, "rtol": rtol},
            "failures": int(bad.sum()),
            "validated": not bool(bad.any())}


class Core:
    """Runs the `poslab` CLI (the readable CPU reference) on numpy arrays."""

    def __init__(self, exe):
        self.exe = exe
        self.dir = tempfile.mkdtemp(prefix="poslab-reference-")
        self.count = 0

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def _path(self, stem):
        self.count += 1
        return os.path.join(self.dir, f"{self.count}-{stem}.npy")

    def _save(self, stem, array):
        path = self._path(stem)
        np.save(path, np.ascontiguousarray(array, dtype=np.float32))
        return path

    def _run(self, *args):
        out = self._path("out")
        result = subprocess.run([self.exe, *map(str, args), "-o", out], capture_output=True,
                                text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{self.exe} {args[0]}: {result.stderr.strip()}")
        return np.load(out)

    def alibi_slopes(self, heads):
        """m_h, (H,) float32."""
        return self._run("alibi-slopes", "--heads", heads)

    def t5_bucket_of_distance(self, length, bidirectional=True, buckets=32, max_distance=128):
        """Buckets of j - i for j - i in [-(length - 1), length - 1], (2·length - 1,) int32:
        entry length - 1 + delta is distance delta."""
        flags = ["--buckets", buckets, "--max-distance", max_distance]
        if bidirectional:
            flags.append("--bidirectional")
        before = self._run("t5-buckets", "--qlen", length, "--klen", 1, *flags)[:, 0]  # 0, -1, ..
        after = self._run("t5-buckets", "--qlen", 1, "--klen", length, *flags)[0]  # 0, 1, ..
        return np.concatenate([before[::-1], after[1:]])

    def rope(self, x, offset=0, style="neox"):
        """x (H, L, D) rotated at positions offset.., float32."""
        return self._run("rope", "--in", self._save("x", x), "--style", style, "--offset", offset)

    def attention(self, q, k, v, mask="none", offset=0, bias=None):
        """softmax(q kᵀ/√d + bias + mask) v for q (H, R, d), k and v (H, Lk, d); query r sits
        at position r + offset (the mask rule of mask.hpp)."""
        args = ["attention", "--q", self._save("q", q), "--k", self._save("k", k),
                "--v", self._save("v", v), "--mask", mask, "--offset", offset]
        if bias is not None:
            args += ["--bias", self._save("bias", bias)]
        return self._run(*args)


def alibi_bias_rows(slopes, rows, length):
    """-m_h·|i - j| for queries `rows` and keys [0, length), (H, R, length) float32, in double
    then rounded as poslab::alibi_bias does."""
    distance = np.abs(np.asarray(rows, dtype=np.float64)[:, None] - np.arange(length)[None, :])
    return (-np.asarray(slopes, dtype=np.float64)[:, None, None] * distance).astype(np.float32)


def t5_bias_rows(table, bucket_of_distance, rows, length):
    """table[bucket(j - i), h] for queries `rows` and keys [0, length), (H, R, length)."""
    delta = np.arange(length)[None, :] - np.asarray(rows)[:, None]
    buckets = bucket_of_distance[delta + (len(bucket_of_distance) - 1) // 2]
    return np.ascontiguousarray(np.asarray(table, dtype=np.float32)[buckets].transpose(2, 0, 1))
