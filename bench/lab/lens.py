#!/usr/bin/python3
"""The position lens on the lab's byte-level text models (docs/lens.md, "Trained lab models"):
for each method's checkpoint that bench/lab/text.py kept, and as the control the same model at
its random initialisation (`poslab train --steps 0`, the same seed), `poslab lens` on the first
T bytes of the held-out tenth of the sample, at T = N (the trained context) and at T = 8N; then
a table of role counts, the mean local score, the loss with positions in order, shuffled and
all 0, and for the rotation methods how many heads lean on the turning frequency pairs. A
benchmark, not a test: a minute.

  bench/lab/lens.py [--poslab build/release/cpp/poslab] [--runs build/bench-lab-text]
      [--train-len 64] [--times 8] [--methods learned,sinusoidal,...]
"""
import argparse
import json
import os
import subprocess

from methods import trainer_methods

ROLES = ["sink", "previous-token", "induction", "local", "broad"]


def random_init(a, method):
    """The control: the method's model as initialised, before any step."""
    path = os.path.join(a.runs, f"random-{method}.safetensors")
    subprocess.run([a.poslab, "train", "--task", "text", "--text-file", os.path.join(a.runs, "sample.txt"),
                    "--position", method, "--train-len", str(a.train_len), "--test-len", str(a.train_len),
                    "--steps", "0", "-q", "-o", os.path.join(a.runs, f"random-{method}.json"),
                    "--checkpoint", path], check=True)
    return path


def lens(a, weights, T, text):
    path = os.path.join(a.runs, f"lens-text-{T}.txt")
    with open(path, "wb") as f:
        f.write(text[:T])
    out = weights.replace(".safetensors", f"-lens-{T}.json")
    subprocess.run([a.poslab, "lens", "--weights", weights, "--text-file", path, "--period", str(T // 2),
                    "--shift", "0", "-o", out], check=True, capture_output=True)
    return json.load(open(out))


def summary(report):
    counts = ", ".join(f"{report['role_counts'][r]} {r}" for r in ROLES if report["role_counts"][r])
    local = sum(h["scores"]["local"] for h in report["heads"]) / len(report["heads"])
    s = report["shuffle"]
    loss = "n/a" if s is None else " / ".join(f"{s['mean_loss'][k]:.2f}" for k in ("index", "shuffled", "constant"))
    b = report["rope_bands"]
    bands = "—" if b is None else f"{b['positional_heads']} positional (u {b['uniform_share']:.2f})"
    return counts, local, loss, bands


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--poslab", default="build/release/cpp/poslab")
    ap.add_argument("--runs", default="build/bench-lab-text")
    ap.add_argument("--train-len", type=int, default=64)
    ap.add_argument("--times", type=int, default=8)
    ap.add_argument("--methods", help="comma-separated; default: every method the trainer has (poslab methods)")
    a = ap.parse_args()
    a.methods = a.methods or ",".join(trainer_methods(a.poslab))
    sample = open(os.path.join(a.runs, "sample.txt"), "rb").read()
    held = sample[len(sample) - len(sample) // 10:]
    N, long = a.train_len, a.train_len * a.times
    print(f"`poslab lens --text-file` on the first T bytes of the held-out tenth (induction period T/2), "
          f"each method's text model of bench/lab/text.py and the same model at initialisation; roles of its "
          f"8 heads, their mean local score (W = 4) and the loss in nats per byte with positions in order / "
          f"shuffled / all 0:\n")
    print(f"| method | model | roles at T = {N} | local | loss: order / shuffled / 0 | RoPE bands at T = {N} "
          f"| roles at T = {long} | local |")
    print("| --- | --- | --- | --: | --- | --- | --- | --: |")
    for method in a.methods.split(","):
        for label, weights in (("trained", os.path.join(a.runs, f"text-{method}.safetensors")),
                               ("random init", random_init(a, method))):
            at_n = summary(lens(a, weights, N, held))
            at_long = (("n/a (no rows past N)", None, "", "") if method == "learned"
                       else summary(lens(a, weights, long, held)))
            fmt = lambda x: "n/a" if x is None else f"{x:.2f}"
            print(f"| {method} | {label} | {at_n[0]} | {fmt(at_n[1])} | {at_n[2]} | {at_n[3]} | {at_long[0]} "
                  f"| {fmt(at_long[1])} |")

if __name__ == "__main__":
    main()
