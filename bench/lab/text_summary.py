#!/usr/bin/python3
"""The text table over seeds: reads the result files of several bench/lab/text.py runs (one
--out directory per seed) and prints each method's held-out loss by context as mean ± sample sd
(n/a where learned positions have no row), then each seed's value at the longest context.

  for s in 0 1 2; do bench/lab/text.py --seed $s --out build/text-seed$s -- --threads 1; done
  bench/lab/text_summary.py build/text-seed0 build/text-seed1 build/text-seed2
"""
import argparse
import glob
import json
import os
import statistics

from methods import trainer_methods



def rows_of(result):
    """(label suffix, rows by context) for the plain model and each RoPE scaling."""
    yield "", result["perplexity_by_context"]
    for scaling, rows in result.get("perplexity_by_context_with_scaling", {}).items():
        yield f" + {scaling}", rows


def cell(values):
    if any(v is None for v in values):
        return "n/a"
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.2f} ± {sd:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="text.py --out directories, one per seed")
    ap.add_argument("--poslab", default="build/release/cpp/poslab", help="whose table orders the methods")
    a = ap.parse_args()
    order = trainer_methods(a.poslab)
    by_dir = []
    for d in a.dirs:
        files = sorted(glob.glob(os.path.join(d, "text-*.json")))
        by_dir.append({os.path.basename(f)[5:-5]: json.load(open(f)) for f in files})
    methods = sorted((m for m in by_dir[0] if all(m in runs for runs in by_dir)),
                     key=lambda m: order.index(m) if m in order else len(order))
    seeds = [runs[methods[0]]["config"]["seed"] for runs in by_dir]
    contexts = [r["context"] for r in by_dir[0][methods[0]]["perplexity_by_context"]]
    print(f"held-out loss in nats per byte by context, mean ± sample sd over seeds {seeds}:\n")
    print("| method | " + " | ".join(str(c) for c in contexts) + " | by seed at " + str(contexts[-1]) + " |")
    print("| --- |" + " --: |" * len(contexts) + " --- |")
    for method in methods:
        labelled = [list(rows_of(runs[method])) for runs in by_dir]
        for k, (suffix, _) in enumerate(labelled[0]):
            per_seed = [[row["loss"] for row in seed_rows[k][1]] for seed_rows in labelled]
            cells = [cell([s[c] for s in per_seed]) for c in range(len(contexts))]
            last = ", ".join("n/a" if s[-1] is None else f"{s[-1]:.2f}" for s in per_seed)
            print(f"| {method}{suffix} | " + " | ".join(cells) + f" | {last} |")


if __name__ == "__main__":
    main()
