#!/usr/bin/python3
"""Train short, test long on real text (Press et al. 2022, Figure 1), natively: one byte-level
language model per method (`poslab train --task text`), then the held-out loss in nats per byte
by context, and RoPE's again under each inference-time scaling (docs/lab.md, "Train short, test
long"). A benchmark, not a test: minutes.

  bench/lab/text.py [--poslab build/release/cpp/poslab] [--text-file F] [--train-len 64]
      [--test-len 1024] [--methods learned,sinusoidal,...] [--out DIR] [-- more poslab train options]

The text defaults to the page's sample (web/src/content/licences/: the Free Software
Foundation's licence texts as Debian ships them, concatenated in the order of its index.js);
the last 10% is held out.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

from methods import trainer_methods


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "web/src/content/licences")


def sample_text(path):
    """The page's sample, byte for byte: the files index.js names, in its order."""
    order = re.findall(r"'\./([\w.-]+\.txt)\?raw'", open(os.path.join(SAMPLE, "index.js")).read())
    data = b"".join(open(os.path.join(SAMPLE, name), "rb").read() for name in order)
    # Rewritten only when it differs: runs of another seed may be reading it.
    if not os.path.exists(path) or open(path, "rb").read() != data:
        with open(path, "wb") as out:
            out.write(data)
    return path


def write_example(a, rows):
    """The view's example: each method's curves by context and a tenth of its loss curve."""
    runs = {}
    for method, result, _ in rows:
        keep = {k: result[k] for k in ("config", "perplexity_by_context", "perplexity_by_context_with_scaling", "wall_time_s") if k in result}
        keep["loss_curve"] = result["loss_curve"][::10]
        runs[method] = keep
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    example = {
        "command": f"bench/lab/text.py --methods {a.methods} --train-len {a.train_len} --test-len {a.test_len} --seed {a.seed} --example FILE"
                   + (f" -- {' '.join(a.extra)}" if a.extra else ""),
        "commit": commit,
        "settings": {"N": a.train_len, "M": a.test_len, "seed": a.seed, "methods": a.methods.split(",")},
        "runs": runs,
    }
    with open(a.example, "w") as f:
        json.dump(example, f, separators=(",", ":"))
        f.write("\n")


def cell(row):
    return "n/a" if row["loss"] is None else f"{row['loss']:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--poslab", default="build/release/cpp/poslab")
    ap.add_argument("--text-file")
    ap.add_argument("--train-len", type=int, default=64)
    ap.add_argument("--test-len", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", help="comma-separated; default: every method the trainer has (poslab methods)")
    ap.add_argument("--out", default="build/bench-lab-text")
    ap.add_argument("--reuse", action="store_true", help="print from the result files already in --out, training none")
    ap.add_argument("--example", help="also write the page's example (web/src/lab/example/text.json) here")
    ap.add_argument("extra", nargs="*", help="more poslab train options, after --")
    a = ap.parse_args()
    a.methods = a.methods or ",".join(trainer_methods(a.poslab))
    os.makedirs(a.out, exist_ok=True)
    text = a.text_file or sample_text(os.path.join(a.out, "sample.txt"))
    rows = []
    for method in a.methods.split(","):
        out = os.path.join(a.out, f"text-{method}.json")
        # Each model is kept (F16) for the position lens (bench/lab/lens.py).
        cmd = [a.poslab, "train", "--task", "text", "--text-file", text, "--position", method,
               "--train-len", str(a.train_len), "--test-len", str(a.test_len), "--seed", str(a.seed),
               "-q", "-o", out, "--checkpoint", os.path.join(a.out, f"text-{method}.safetensors"),
               "--checkpoint-dtype", "f16", *a.extra]
        start = time.monotonic()
        if not a.reuse:
            subprocess.run(cmd, check=True)
        result = json.load(open(out))
        seconds = result["wall_time_s"] if a.reuse else time.monotonic() - start
        rows.append((method, result, seconds))
        print(f"{method}: {seconds:.0f} s", file=sys.stderr)

    if a.example:
        write_example(a, rows)
    config = rows[0][1]["config"]
    contexts = [r["context"] for r in rows[0][1]["perplexity_by_context"]]
    print(f"`poslab train --task text --train-len {a.train_len} --test-len {a.test_len} --seed {a.seed} "
          f"{' '.join(a.extra)}` per method on {os.path.getsize(text)} bytes (width {config['width']}, "
          f"{config['layers']} layers, batch {config['batch']}, steps {config['steps']}); held-out loss "
          f"in nats per byte by context:\n")
    print("| method | " + " | ".join(str(c) for c in contexts) + (" | training s |" if a.reuse else " | seconds |"))
    print("| --- |" + " --: |" * (len(contexts) + 1))
    for method, result, seconds in rows:
        print(f"| {method} | " + " | ".join(cell(r) for r in result["perplexity_by_context"]) + f" | {seconds:.0f} |")
        for scaling, scaled in result.get("perplexity_by_context_with_scaling", {}).items():
            print(f"| {method} + {scaling} | " + " | ".join(cell(r) for r in scaled) + " | |")


if __name__ == "__main__":
    main()
