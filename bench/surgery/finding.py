#!/usr/bin/python3
"""The finding of docs/surgery.md, measured: position surgery on the lab's byte-level RoPE text
models (docs/lab.md, "Train short, test long"), one per seed, each trained natively with the lab's
defaults at N = --train-len, swept on the held-out tenth of the page's sample (the part the model
never trained on) in windows of 4N bytes, and the tables printed as markdown:

- bands: zero each quarter of the rotation pairs (--group P/4; pair 0 the highest frequency),
  and keep the top p of them for p in 1, 0.75, 0.5, 0.25, 0;
- layers: each layer NoPE;
- heads: each head NoPE and, separately, ablated, beside its lens role, read on the first N bytes
  (the sweep's own lens, inside the trained context) and on the first 4N (`poslab lens`, past N).

Every change is in nats per byte against the unmodified model: within N (the losses at positions
< N of each window) and past N (positions N..4N−1), mean ± sample sd over the seeds. A benchmark,
not a test: about 30 s of training per seed (skipped when the checkpoint is already in --out)
and seconds of sweeps.

  bench/surgery/finding.py [--poslab build/release/cpp/poslab] [--out build/surgery-finding]
      [--seeds 0,1,2] [--train-len 64] [--times 4] [--retrain]

Seed 0's model is the page's (web/src/content/text-rope.safetensors, the same bits): the runs
use one thread, as that one was made (a run is the same bits for a given thread count).
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "lab"))
from text import sample_text  # noqa: E402  (bench/lab/text.py: the page's sample, byte for byte)

ROLES = ["sink", "previous-token", "induction", "local", "broad"]


def train(a, seed, sample):
    """The lab's RoPE text model of `seed`, as bench/lab/text.py trains it (docs/lab.md)."""
    folder = os.path.join(a.out, f"seed{seed}")
    weights = os.path.join(folder, "text-rope.safetensors")
    if os.path.exists(weights) and not a.retrain:
        print(f"seed {seed}: {weights} (kept; --retrain to train again)", file=sys.stderr)
        return weights
    os.makedirs(folder, exist_ok=True)
    cmd = [a.poslab, "train", "--task", "text", "--text-file", sample, "--position", "rope",
           "--train-len", str(a.train_len), "--test-len", str(16 * a.train_len), "--seed", str(seed),
           "--threads", "1", "-q", "-o", os.path.join(folder, "text-rope.json"),
           "--checkpoint", weights, "--checkpoint-dtype", "f16"]
    print(f"seed {seed}: {' '.join(cmd)}", file=sys.stderr)
    subprocess.run(cmd, check=True)
    return weights


def checkpoint_config(weights):
    with open(weights, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    return json.loads(header["__metadata__"]["config"])


def sweep(a, weights, held, kind, window, extra=()):
    out = weights.replace(".safetensors", f"-surgery-{kind}-{window}.json")
    cmd = [a.poslab, "surgery", "--weights", weights, "--text-file", held, "--sweep", kind,
           "--window", str(window), *extra, "-o", out]
    subprocess.run(cmd, check=True, capture_output=True)
    return json.load(open(out))


def lens_roles(a, weights, held, length):
    """Each head's lens role on the first `length` bytes of the held-out text."""
    text = weights.replace(".safetensors", f"-lens-{length}.txt")
    with open(held, "rb") as f, open(text, "wb") as out:
        out.write(f.read(length))
    report = weights.replace(".safetensors", f"-lens-{length}.json")
    subprocess.run([a.poslab, "lens", "--weights", weights, "--text-file", text, "-o", report],
                   check=True, capture_output=True)
    return {(h["layer"], h["head"]): h["role"] for h in json.load(open(report))["heads"]}


def split(losses, N):
    """The mean loss at positions < N and ≥ N of a (T − 1,) curve."""
    return float(np.mean(losses[:N])), float(np.mean(losses[N:]))


def ms(values, digits=3):
    v = np.asarray(values, dtype=float)
    if len(v) == 1:
        return f"{round(float(v[0]), digits) + 0.0:+.{digits}f}"
    sd = float(np.std(v, ddof=1))
    m = round(float(np.mean(v)), digits) + 0.0  # no "-0.000"
    return f"{m:+.{digits}f} ± {sd:.{digits}f}"


def plain(values, digits=2):
    v = np.asarray(values, dtype=float)
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
    return f"{np.mean(v):.{digits}f} ± {sd:.{digits}f}"


def ci_count(rows):
    """In how many seeds the 95 % bootstrap interval of the whole-window change lies above 0, and
    in how many below."""
    return f"{sum(1 for r in rows if r['delta_ci'][0] > 0)} / {sum(1 for r in rows if r['delta_ci'][1] < 0)}"


def by_seed(values):
    return ", ".join(f"{round(v, 3) + 0.0:+.3f}" for v in values)


def wavelengths(first, last, base, pairs):
    lam = [2 * math.pi * base ** (i / pairs) for i in range(first, last)]
    return "–".join(f"{x:,.0f}".replace(",", " ") for x in (lam[0], lam[-1])) if len(lam) > 1 else f"{lam[0]:.0f}"


def ranks(x):
    order = np.argsort(x)
    r = np.empty(len(x))
    r[order] = np.arange(len(x))
    return r


def spearman(x, y):
    return float(np.corrcoef(ranks(np.asarray(x)), ranks(np.asarray(y)))[0, 1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--poslab", default=os.path.join(ROOT, "build/release/cpp/poslab"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build/surgery-finding"))
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--train-len", type=int, default=64, help="N, the trained context")
    ap.add_argument("--times", type=int, default=4, help="windows of times·N bytes")
    ap.add_argument("--retrain", action="store_true", help="train even where a checkpoint is in --out")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    N, W = a.train_len, a.times * a.train_len
    os.makedirs(a.out, exist_ok=True)
    sample = sample_text(os.path.join(a.out, "sample.txt"))
    data = open(sample, "rb").read()
    held = os.path.join(a.out, "held-out.txt")
    with open(held, "wb") as f:  # the text task's split (cpp/src/train/text.cpp): the last ⌊n/10⌋ bytes
        f.write(data[len(data) - len(data) // 10:])

    runs = []
    for seed in seeds:
        weights = train(a, seed, sample)
        config = checkpoint_config(weights)
        if config["position"] != "rope" or config.get("keep_fraction", 1.0) != 1.0:
            sys.exit(f"{weights}: not a RoPE model (position {config['position']})")
        if config["train_len"] != N:
            sys.exit(f"{weights}: trained at N = {config['train_len']}, not {N}: --retrain, or another --out")
        pairs = config["n_embd"] // config["n_head"] // 2
        group = max(1, pairs // 4)
        runs.append({
            "seed": seed, "config": config, "pairs": pairs, "group": group,
            "bands": sweep(a, weights, held, "bands", W, ["--group", str(group)]),
            "layers": sweep(a, weights, held, "layers", W),
            "heads": sweep(a, weights, held, "heads", W),
            "roles_w": lens_roles(a, weights, held, W),
        })
        print(f"seed {seed}: swept", file=sys.stderr)

    c = runs[0]["config"]
    P, K, base = runs[0]["pairs"], runs[0]["group"], c["base"]
    b0 = runs[0]["bands"]
    print(f"Lab RoPE text models (width {c['n_embd']}, {c['n_layer']} layers × {c['n_head']} heads, head dim "
          f"{2 * P}: P = {P} pairs, base {base:g}), N = {N}, seeds {a.seeds}; `poslab surgery --text-file` on the "
          f"held-out tenth of the sample ({b0['tokens']} bytes) in {b0['windows']} windows of {W}; "
          f"changes in nats per byte, mean ± sd over the seeds.\n")

    print("Unmodified model:\n")
    print(f"| loss within N (positions 0..{N - 1}) | loss past N ({N}..{W - 2}) | whole window |")
    print("| --: | --: | --: |")
    within = [split(r["bands"]["baseline"]["loss_by_position"], N)[0] for r in runs]
    past = [split(r["bands"]["baseline"]["loss_by_position"], N)[1] for r in runs]
    whole = [r["bands"]["baseline"]["loss_mean"] for r in runs]
    print(f"| {plain(within)} | {plain(past)} | {plain(whole)} |\n")

    # Bands: the quarters zeroed one at a time, then the top p kept (the lowest 1 − p zeroed).
    print(f"Rotation pairs zeroed (`--sweep bands --group {K}`; pair 0 the highest frequency, wavelength "
          f"2π·{base:g}^(i/{P}) positions; \"CI > 0 / < 0\": in how many seeds the 95 % bootstrap interval of the "
          f"whole-window change lies above 0 / below 0):\n")
    print("| intervention | pairs zeroed | wavelengths | Δ within N | Δ past N | Δ past N by seed | Δ whole window "
          "| CI > 0 / < 0 |")
    print("| --- | --- | --: | --: | --: | --- | --: | --: |")

    def band_row(label, pick):
        rows = [pick(r["bands"]["interventions"]) for r in runs]
        zeroed = rows[0]["params"].get("rope_zero_pairs", [])
        span = ", ".join(f"{x}:{y}" for x, y in zeroed) or "none"
        lam = ", ".join(wavelengths(x, y, base, P) for x, y in zeroed) or "—"
        print(f"| {label} | {span} | {lam} | {ms([x['delta_within_context'] for x in rows])} "
              f"| {ms([x['delta_past_context'] for x in rows])} | {by_seed([x['delta_past_context'] for x in rows])} "
              f"| {ms([x['delta_mean'] for x in rows])} | {ci_count(rows)} |")

    def zero(first):
        return lambda items: next(i for i in items if i["kind"] == "zero_pairs" and i["params"]["rope_zero_pairs"][0][0] == first)

    def keep(p):
        return lambda items: next(i for i in items if i["kind"] == "keep_top" and abs(i["params"]["fraction"] - p) < 1e-9)

    labels = {0: "zero the highest quarter", K: "zero the second quarter", 2 * K: "zero the third quarter",
              3 * K: "zero the lowest quarter (keep the top 0.75)"} if P == 4 * K else {}
    for first in range(0, P, K):
        band_row(labels.get(first, f"zero pairs {first}:{min(P, first + K)}"), zero(first))
    for p, label in ((0.5, "zero the lowest half (keep the top 0.5)"),
                     (0.25, "zero the lowest three quarters (keep the top 0.25)"),
                     (0.0, "zero every pair (keep the top 0: NoPE in every layer)")):
        band_row(label, keep(p))
    print()

    # Layers.
    print("Each layer NoPE (`--sweep layers`), and every layer NoPE (keep top 0 of the bands sweep):\n")
    print("| intervention | Δ within N | Δ past N | Δ whole window | CI > 0 / < 0 |")
    print("| --- | --: | --: | --: | --: |")
    for layer in range(c["n_layer"]):
        rows = [next(i for i in r["layers"]["interventions"] if i["params"]["layer"] == layer) for r in runs]
        print(f"| NoPE layer {layer} | {ms([x['delta_within_context'] for x in rows])} "
              f"| {ms([x['delta_past_context'] for x in rows])} | {ms([x['delta_mean'] for x in rows])} | {ci_count(rows)} |")
    rows = [keep(0.0)(r["bands"]["interventions"]) for r in runs]
    print(f"| NoPE, every layer | {ms([x['delta_within_context'] for x in rows])} "
          f"| {ms([x['delta_past_context'] for x in rows])} | {ms([x['delta_mean'] for x in rows])} | {ci_count(rows)} |\n")

    # Heads: one record per (seed, layer, head).
    heads = []
    for r in runs:
        at_w = {(i["params"]["layer"], i["params"]["head"], i["kind"]): i for i in r["heads"]["interventions"]}
        for layer in range(c["n_layer"]):
            for head in range(c["n_head"]):
                nope, ablate = at_w[(layer, head, "nope_head")], at_w[(layer, head, "ablate_head")]
                lens_n = nope["lens"]  # the sweep's lens reads the first N bytes
                heads.append({
                    "seed": r["seed"], "layer": layer, "head": head,
                    "role_n": lens_n["role"], "role_w": r["roles_w"][(layer, head)],
                    "bands_n": lens_n["bands"], "turning": lens_n["turning_share"],
                    "local_n": lens_n["scores"]["local"], "prev_n": lens_n["scores"]["previous_token"],
                    "nope_in": nope["delta_within_context"], "nope_past": nope["delta_past_context"],
                    "abl_in": ablate["delta_within_context"], "abl_past": ablate["delta_past_context"],
                })

    def group_table(title, key, order):
        print(title)
        print("| group | heads | NoPE Δ within N | NoPE Δ past N | ablated Δ within N | ablated Δ past N "
              "| NoPE worse than ablation (within N) |")
        print("| --- | --: | --: | --: | --: | --: | --: |")
        for value in order:
            hs = [h for h in heads if key(h) == value]
            if not hs:
                continue
            worse = sum(1 for h in hs if h["nope_in"] > h["abl_in"])
            print(f"| {value} | {len(hs)} | {ms([h['nope_in'] for h in hs])} | {ms([h['nope_past'] for h in hs])} "
                  f"| {ms([h['abl_in'] for h in hs])} | {ms([h['abl_past'] for h in hs])} | {worse}/{len(hs)} |")
        print()

    total = len(heads)
    group_table(f"Each head NoPE and ablated (`--sweep heads`), grouped over the {total} heads of the {len(runs)} "
                f"seeds (mean ± sd over the heads of the group). By the lens's role read on the first {N} bytes "
                f"(inside the trained context, the heads sweep's own lens):\n",
                lambda h: h["role_n"], ROLES)
    group_table(f"By the lens's role read on the first {W} bytes (`poslab lens`, past N):\n",
                lambda h: h["role_w"], ROLES)
    group_table(f"By the lens's bands (turning share on {N} bytes against the cut u + (1 − u)/2):\n",
                lambda h: h["bands_n"], ["positional", "semantic"])
    group_table("By layer:\n", lambda h: f"layer {h['layer']}", [f"layer {l}" for l in range(c["n_layer"])])

    x = [h["turning"] for h in heads]
    # u: the share of energy spread evenly over the P pairs and the unrotated term that the
    # turning pairs (wavelength ≤ N) hold (docs/lens.md); the cut is u + (1 − u)/2.
    u = sum(1 for i in range(P) if 2 * math.pi * base ** (i / P) <= N) / (P + 1)
    print(f"Turning share of the {total} heads at T = {N}: mean {np.mean(x):.2f}, {min(x):.2f}–{max(x):.2f} "
          f"(u = {u:.2f}, the positional cut {u + (1 - u) / 2:.2f}).\n")
    print(f"Spearman correlation over the {total} heads of the turning share (at T = {N}) with the change when "
          f"the head is made NoPE: {spearman(x, [h['nope_in'] for h in heads]):+.2f} within N, "
          f"{spearman(x, [h['nope_past'] for h in heads]):+.2f} past N; of its local score with it: "
          f"{spearman([h['local_n'] for h in heads], [h['nope_in'] for h in heads]):+.2f} within N.\n")

    print("Every head:\n")
    print(f"| seed | head | role at {N} | role at {W} | turning share | NoPE Δ within N | NoPE Δ past N "
          f"| ablated Δ within N | ablated Δ past N |")
    print("| --: | --- | --- | --- | --: | --: | --: | --: | --: |")
    for h in heads:
        print(f"| {h['seed']} | {h['layer']}:{h['head']} | {h['role_n']} | {h['role_w']} | {h['turning']:.2f} "
              f"| {h['nope_in']:+.3f} | {h['nope_past']:+.3f} | {h['abl_in']:+.3f} | {h['abl_past']:+.3f} |")


if __name__ == "__main__":
    main()
