"""Acceptance check: bench/cuda/core_reference.py, the module that validates the PyTorch peers
of poslab-bench-cuda against PosLab's CPU core, gives what independent float64 NumPy gives.

Usage: python3 peer_reference.py PATH/TO/poslab
The peers run only on a GPU machine with torch; this checks their reference path anywhere:
attention on a block of query rows at an offset (causal), the ALiBi and T5 bias rows built
from the core's slopes and buckets, RoPE in both pairings, and the tolerance policy.
Tolerance: 1e-5 absolute (the core works in float32 with double accumulation).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "cuda"))
import core_reference as ref  # noqa: E402

results = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail}")


def close(name, got, want, tol=1e-5):
    err = float(np.max(np.abs(np.asarray(got, np.float64) - want)))
    check(name, err <= tol, f"max |err| {err:.2e}")


def softmax_attention(q, k, v, bias):
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    s = s + bias
    s -= s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    return (w / w.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


def numpy_rope(x, positions, style):
    d = x.shape[-1]
    inv = 10000.0 ** (-np.arange(0, d, 2) / d)
    ang = np.asarray(positions, np.float64)[:, None] * inv[None, :]
    c, s = np.cos(ang), np.sin(ang)
    x = x.astype(np.float64)
    if style == "neox":
        a, b = x[..., : d // 2], x[..., d // 2:]
        return np.concatenate([a * c - b * s, a * s + b * c], axis=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = a * c - b * s, a * s + b * c
    return out


def main():
    core = ref.Core(sys.argv[1])
    rng = np.random.default_rng(3)
    H, L, d = 3, 150, 16
    q, k, v = (rng.uniform(-1, 1, (H, L, d)).astype(np.float32) for _ in range(3))
    q *= 3
    rows = np.arange(100, 150)  # a block of rows, as the peers are checked on

    slopes = core.alibi_slopes(H)
    close("alibi slopes", slopes, [2.0 ** (-8 * (h + 1) / 2) if h < 2 else 2.0 ** -2
                                   for h in range(H)], 1e-7)
    alibi = ref.alibi_bias_rows(slopes, rows, L)
    full = core._run("alibi", "--heads", H, "--len", L)  # the core's (H, L, L) tensor
    check("ALiBi bias rows equal the core's tensor", np.array_equal(alibi, full[:, rows]))
    causal = np.where(np.arange(L)[None, :] > rows[:, None], -np.inf, 0.0)
    got = core.attention(q[:, rows], k, v, mask="causal", offset=int(rows[0]), bias=alibi)
    close("causal attention with ALiBi on rows 100-149", got,
          softmax_attention(q[:, rows], k, v, alibi.astype(np.float64) + causal))

    by_distance = core.t5_bucket_of_distance(L)
    full = core._run("t5-buckets", "--qlen", L, "--klen", L, "--bidirectional")  # (L, L)
    delta = np.arange(L)[None, :] - np.arange(L)[:, None]
    check("T5 buckets by distance equal the (L, L) buckets", np.array_equal(
        by_distance[delta + L - 1], full))
    table = rng.standard_normal((32, H)).astype(np.float32)
    t5 = ref.t5_bias_rows(table, by_distance, rows, L)
    check("T5 bias rows look up table[bucket, h]",
          t5.shape == (H, len(rows), L) and t5[2, 5, 7] == table[full[rows[5], 7], 2])
    got = core.attention(q[:, rows], k, v, bias=t5)
    close("attention with T5 bias rows", got, softmax_attention(q[:, rows], k, v, t5))

    for style in ("neox", "gptj"):
        close(f"RoPE {style} at offset 100", core.rope(q[:, rows], offset=100, style=style),
              numpy_rope(q[:, rows], rows, style))

    check("tolerance: inside passes", ref.compare([1.0009], [1.0], "fp16")["validated"])
    check("tolerance: outside fails", not ref.compare([1.0021], [1.0], "fp16")["validated"])
    check("tolerance: NaN fails", not ref.compare([np.nan], [1.0], "bf16")["validated"])
    c = ref.compare([0.5, 2.0], [0.5, 2.1], "fp32")
    check("tolerance: fields", c["failures"] == 1 and abs(c["max_abs_error"] - 0.1) < 1e-12
          and c["max_abs_reference"] == 2.1 and c["tolerance"] == {"atol": 1e-5, "rtol": 1e-5})
    try:
        core.attention(q, k[:, :, :8], v)
        check("a CLI error is raised with its message", False)
    except RuntimeError as e:
        check("a CLI error is raised with its message", "poslab: error:" in str(e), str(e)[:80])
    core.close()
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
