#!/usr/bin/env python3
"""The CUDA issue's targets, read from results files of poslab-bench-cuda and
torch_baseline.py: for each target, PosLab's best validated row against each peer's, the ratio
(peer median / PosLab median: above 1 is PosLab faster) and whether the goal is met. Prints a
Markdown table, the one the closing note and docs/cuda.md carry.

    python3 bench/cuda/targets.py public/bench/poslab-h100-DATE.json public/bench/torch-*.json

Rows that failed validation or have no time are never used; a target with no row on one side
says "not measured". Memory-bound kernels are judged on batched time at >= 256 MB moved, next
to the device-to-device copy of the same bytes where the file has it.
"""

import json
import sys

POSITION_LENGTHS = (4096, 8192)
MB256 = 256 * 2 ** 20


def load(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for r in doc["results"]:
            if r.get("validated") is False or not isinstance(r.get("median_ms"), (int, float)):
                continue
            rows.append({**r, "source": doc.get("source", "poslab")})
    return rows


def is_peer(r):
    return r["source"] == "pytorch"


def fastest(rows):
    return min(rows, key=lambda r: r["median_ms"]) if rows else None


def attention_rows(rows, L, d, dtype, mask, position=None, B=None):
    def match(r):
        s, p = r["shape"], r.get("params", {})
        return (r["kernel"] == "attention" and s.get("Lq") == L and s.get("d") == d
                and r["dtype"] == dtype and p.get("mask") == mask
                and p.get("position") == position and (B is None or s.get("B") == B))
    return [r for r in rows if match(r)]


def ratio_row(target, shape, ours, theirs, goal):
    if not ours or not theirs:
        missing = "PosLab" if not ours else "the peer"
        return [target, shape, describe(ours), describe(theirs), "—", f"≥ {goal:g}×",
                f"not measured ({missing})"]
    ratio = theirs["median_ms"] / ours["median_ms"]
    return [target, shape, describe(ours), describe(theirs), f"{ratio:.2f}×", f"≥ {goal:g}×",
            "met" if ratio >= goal else "short"]


def describe(r):
    if not r:
        return "—"
    backend = r.get("params", {}).get("backend")
    return f"{r['variant']}{f' [{backend}]' if backend else ''} {r['median_ms']:.3f} ms"


def plain_targets(rows):
    out = []
    for d in (64, 128):
        for dtype in ("fp16", "bf16"):
            for mask in ("none", "causal"):
                mine = attention_rows(rows, 4096, d, dtype, mask)
                ours = fastest([r for r in mine if not is_peer(r) and "flash" in r["variant"]])
                theirs = fastest([r for r in mine if r["variant"] == "torch-flash"])
                out.append(ratio_row("fused ≥ SDPA flash", f"L 4096 d {d} {dtype} {mask}", ours,
                                     theirs, 1.0))
    return out


def position_targets(rows):
    out = []
    for L in POSITION_LENGTHS:
        for position, mask in (("alibi", "causal+alibi"), ("t5", "t5")):
            mine = attention_rows(rows, L, 128, "fp16", mask, position, B=4)
            ours = fastest([r for r in mine if not is_peer(r) and r["params"].get("in_kernel")])
            shape = f"L {L} d 128 fp16 B 4 H 16"
            for variant, goal in (("torch-sdpa+bias", 2.0), ("torch-flex", 1.0),
                                  ("flash-attn", 1.0)):
                theirs = fastest([r for r in mine if r["variant"] == variant])
                if theirs or variant != "flash-attn":
                    out.append(ratio_row(f"{position} in kernel vs {variant}", shape, ours,
                                         theirs, goal))
        mine = attention_rows(rows, L, 128, "fp16", "causal+rope", "rope", B=4)
        ours = fastest([r for r in mine if not is_peer(r) and r["params"].get("in_kernel")])
        theirs = fastest([r for r in mine if r["variant"] == "torch-rope+flash"])
        out.append(ratio_row("RoPE fused vs RoPE + SDPA flash", f"L {L} d 128 fp16 B 4 H 16",
                             ours, theirs, 1.15))
    return out


def bandwidth_targets(rows):
    out = []
    groups = {}
    for r in rows:
        if is_peer(r) or r["kernel"] not in ("rope", "alibi", "t5", "sinusoidal"):
            continue
        if r.get("bytes", 0) < MB256 or "pct_peak_bandwidth_batched" not in r:
            continue
        key = (r["kernel"], r["dtype"])
        if key not in groups or r["pct_peak_bandwidth_batched"] > \
                groups[key]["pct_peak_bandwidth_batched"]:
            groups[key] = r
    for (kernel, dtype), r in sorted(groups.items()):
        pct = r["pct_peak_bandwidth_batched"]
        copy = r.get("pct_copy_batched")
        out.append([f"{kernel} ≥ 85% of HBM peak", f"{dtype} {r['bytes'] / 2 ** 20:.0f} MB",
                    f"{r['variant']} {r['batched_ms']:.3f} ms (batched)",
                    f"copy: {copy:.1f}% of its speed" if copy is not None else "copy: not timed",
                    f"{pct:.1f}%", "≥ 85%", "met" if pct >= 85.0 else "short"])
    for kernel in ("rope", "alibi", "t5", "sinusoidal"):
        if not any(k == kernel for k, _ in groups):
            out.append([f"{kernel} ≥ 85% of HBM peak", "≥ 256 MB", "—", "—", "—", "≥ 85%",
                        "not measured"])
    return out


def table(rows):
    head = ["target", "shape", "PosLab", "peer", "ratio", "goal", "status"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(paths):
    if not paths:
        sys.exit("targets.py: error: give the results files (poslab-bench-cuda and "
                 "torch_baseline.py JSON)")
    rows = load(paths)
    print(table(plain_targets(rows) + position_targets(rows) + bandwidth_targets(rows)))


if __name__ == "__main__":
    main(sys.argv[1:])
