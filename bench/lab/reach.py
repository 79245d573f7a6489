#!/usr/bin/python3
"""How far each run of a sweep directory reaches: the longest length L such that every length
1..L has exact match >= 0.9 (the issue's bar), as L and L / N, per run and as mean ± sd over a
method's seeds, beside the first answer position and EOS accuracy at L + 1 (where addition
runs fail first). A benchmark report, not a test.

  bench/lab/reach.py DIR [--threshold 0.9]

DIR is a `poslab sweep run` output directory (its runs/*.json).
"""
import argparse
import glob
import json
import os
import statistics
from collections import defaultdict


def reach(result, threshold):
    by_length = result["accuracy_by_length"]
    L = 0
    while str(L + 1) in by_length and by_length[str(L + 1)] >= threshold:
        L += 1
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--threshold", type=float, default=0.9)
    a = ap.parse_args()
    groups = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(a.dir, "runs", "*.json"))):
        r = json.load(open(path))
        c = r["config"]
        L = reach(r, a.threshold)
        tokens = r["token_accuracy_by_position"].get(str(L + 1))
        first, last = (tokens[0], tokens[-1]) if tokens else (None, None)
        groups[c["position"]].append((c["seed"], L, c["train_len"], first, last))
    print(f"| method | reach (L, exact match >= {a.threshold} on 1..L) by seed | L / N | "
          "at L + 1: first answer token, EOS |")
    print("| --- | --- | --: | --- |")
    for method, runs in groups.items():
        N = runs[0][2]
        ratios = [L / N for _, L, _, _, _ in runs]
        sd = statistics.stdev(ratios) if len(ratios) > 1 else 0.0
        fail = "; ".join(f"{f:.2f}, {e:.2f}" if f is not None else "n/a" for *_, f, e in runs)
        print(f"| {method} | {', '.join(str(L) for _, L, _, _, _ in runs)} (seeds "
              f"{', '.join(str(s) for s, *_ in runs)}) | {statistics.mean(ratios):.2f} ± {sd:.2f} | {fail} |")


if __name__ == "__main__":
    main()
