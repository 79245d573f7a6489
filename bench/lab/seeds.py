#!/usr/bin/python3
"""The lab's methods over several seeds, natively: one `poslab train --seeds S` per method, then
a table of each metric's mean ± sample sd (docs/lab.md, Metrics) and the methods the ranking
rule (|Δmean| > sd₁ + sd₂) separates on the primary metric. A benchmark, not a test: minutes.

  bench/lab/seeds.py [--poslab build/release/cpp/poslab] [--seeds 3] [--task copy]
      [--train-len 8] [--methods learned,rope,...] [--out DIR] [-- more poslab train options]

Steps and the embedding scale are the core's defaults (the task's, the method's) unless given
after `--` (e.g. `-- --steps 2000 --embed-scale 4`).
"""
import argparse
import json
import os
import subprocess
import sys
import time

from methods import trainer_methods

METRICS = [
    ("exact_match_in_distribution", "in distribution"),
    ("exact_match_n_to_2n", "exact N+1..2N"),
    ("answer_accuracy_n_to_2n", "answer tokens N+1..2N"),
    ("exact_match_2n_to_4n", "exact 2N+1..4N"),
]
TRAINED = 0.9  # train/metrics.hpp's kTrainedThreshold


def cell(s):
    if s["mean"] is None:
        return "n/a"
    return f"{s['mean']:.2f} ± {s['sd']:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--poslab", default="build/release/cpp/poslab")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--task", default="copy")
    ap.add_argument("--train-len", type=int, default=8)
    ap.add_argument("--methods", help="comma-separated; default: every method the trainer has (poslab methods)")
    ap.add_argument("--out", default="build/bench-lab-seeds")
    ap.add_argument("extra", nargs="*", help="more poslab train options, after --")
    a = ap.parse_args()
    a.methods = a.methods or ",".join(trainer_methods(a.poslab))
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for method in a.methods.split(","):
        out = os.path.join(a.out, f"{a.task}-{method}.json")
        cmd = [a.poslab, "train", "--task", a.task, "--position", method, "--train-len", str(a.train_len),
               "--seeds", str(a.seeds), "-q", "-o", out, *a.extra]
        start = time.monotonic()
        subprocess.run(cmd, check=True)
        seconds = time.monotonic() - start
        result = json.load(open(out))
        rows.append((method, result["summary"], seconds, result["config"]["embed_scale"]))
        print(f"{method}: {seconds:.0f} s", file=sys.stderr)

    print(f"`poslab train --task {a.task} --train-len {a.train_len} --seeds {a.seeds} "
          f"{' '.join(a.extra)}` per method (steps {result['config']['steps']}; embedding scale: "
          f"{', '.join(f'{m} {e:g}' for m, _, _, e in rows)}):\n")
    print("| method | " + " | ".join(label for _, label in METRICS) + " | seconds |")
    print("| --- |" + " --: |" * (len(METRICS) + 1))
    for method, summary, seconds, _ in rows:
        values = [cell(summary[name]) for name, _ in METRICS]
        trained = summary["exact_match_in_distribution"]["mean"] >= TRAINED
        print(f"| {method}{'' if trained else ' (did not train)'} | " + " | ".join(values) + f" | {seconds:.0f} |")
    print("\nper seed, exact N+1..2N: " + "; ".join(
        f"{m} {[round(v, 2) for v in s['exact_match_n_to_2n']['values']]}" for m, s, _, _ in rows))
    print("per seed, in distribution: " + "; ".join(
        f"{m} {[round(v, 2) for v in s['exact_match_in_distribution']['values']]}" for m, s, _, _ in rows))


if __name__ == "__main__":
    main()
