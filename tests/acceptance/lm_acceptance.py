"""What the language-model acceptance scripts (neox_vs_numpy.py, llama_vs_numpy.py) share: the
tally of checks, each within a tolerance relative to the reference's largest |value|, and the
writer of their tiny random .safetensors checkpoints (an 8-byte little-endian header length,
the JSON header, the raw little-endian tensors)."""

import json
import struct

import numpy as np


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, label, got, ref, tol):
        """ok when |got - ref| <= tol * max |ref| everywhere and the shapes agree."""
        bound = tol * np.max(np.abs(ref))
        worst = float(np.max(np.abs(got.astype(np.float64) - ref))) if got.shape == ref.shape else None
        if worst is not None and worst <= bound:
            self.passed += 1
            print(f"ok    {label}: max |diff| {worst:.2e} <= {bound:.2e}")
        else:
            self.failed += 1
            print(f"FAIL  {label}: shape {got.shape} vs {ref.shape}, max |diff| {worst} > {bound:.2e}")

    def finish(self):
        """Prints the summary line and exits non-zero if any check failed."""
        print(f"{self.passed} passed, {self.failed} failed")
        raise SystemExit(1 if self.failed else 0)


def write_safetensors(file, tensors, dtype):
    """Writes `tensors` (name -> array) as F32 or F16 to `file`; returns `file`."""
    header, blobs, offset = {}, [], 0
    for key, value in tensors.items():
        data = np.ascontiguousarray(value, dtype=np.float16 if dtype == "F16" else "<f4").tobytes()
        header[key] = {"dtype": dtype, "shape": list(value.shape),
                       "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    with open(file, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    return file


def next_token_losses(logits, tokens):
    """-log softmax(logits[t])[tokens[t + 1]] for t < T - 1, in float64."""
    m = logits.max(-1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(-1, keepdims=True))
    return -logp[np.arange(len(tokens) - 1), tokens[1:]]


def write_case(path, label, w, dtype, config, tokens):
    """A case's files: the checkpoint, its config.json and the token ids. Returns the weights as
    the file holds them (F16 rounds them), which is what the reference must compute on."""
    if dtype == "F16":
        w = {k: v.astype(np.float16).astype(np.float64) for k, v in w.items()}
    write_safetensors(path(label + ".safetensors"), w, dtype)
    with open(path(label + ".json"), "w") as f:
        json.dump(config, f)
    np.save(path(label + "-ids.npy"), np.array(tokens, np.int64))
    return w


def check_lm(cli, tally, label, tokens, ref, flags, tol):
    """`poslab lm` on a case's files in each precision of `tol` (precision -> tolerance), and
    with --loss-by-position (at the float tolerance), against the reference logits `ref`."""
    files = ["--weights", cli.path(label + ".safetensors"), "--config", cli.path(label + ".json")]
    for precision, bound in tol.items():
        out = cli.path(f"{label}-{precision}.npy")
        cli.run("lm", *files, "--tokens", ",".join(map(str, tokens)), "--precision", precision,
                *flags, "-o", out)
        tally.check(f"{label} logits ({precision})", np.load(out), ref, bound)
    out = cli.path(label + "-loss.npy")
    cli.run("lm", *files, "--tokens-file", cli.path(label + "-ids.npy"), "--loss-by-position",
            *flags, "-o", out)
    tally.check(f"{label} loss by position", np.load(out),
                next_token_losses(ref, np.array(tokens)), tol["float"])
