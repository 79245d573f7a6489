"""Acceptance check: `poslab lm` and `poslab gpt2` against Hugging Face transformers itself.

Usage: python3 lm_vs_transformers.py PATH/TO/poslab
Reads tests/fixtures/transformers/ (written by transformers_fixtures.py on a machine with
transformers; its meta.json files name the version): each case's checkpoint as
save_pretrained wrote it (one file or shards with their index), its config.json as the Hub
ships it and as transformers 5 writes it (rope_parameters), and the logits
AutoModelForCausalLM.from_pretrained computed in float64 with eager attention. Every config
file and token sequence runs in both precisions, and once with --loss-by-position.
Tolerance: |got - ref| <= 1e-4 * max |ref| in float (float32 accumulation), 1e-5 in double.
"""

import json
import os
import sys

import numpy as np

from cli_runner import ScratchCli
from lm_acceptance import Tally, next_token_losses

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                        "transformers")
TOL = {"float": 1e-4, "double": 1e-5}
CLI = ScratchCli(sys.argv[1], "poslab-transformers-")
TALLY = Tally()


def weights_of(folder):
    index = os.path.join(folder, "model.safetensors.index.json")
    return index if os.path.exists(index) else os.path.join(folder, "model.safetensors")


def run(case, folder, config, ids, flags):
    """The logits (or losses) `poslab` gives for `ids` on this case's checkpoint and `config`."""
    out = CLI.path(f"{case}-out.npy")
    files = ["--weights", weights_of(folder), "--config", os.path.join(folder, config)]
    if json.load(open(os.path.join(folder, config)))["model_type"] == "gpt2":
        CLI.run("gpt2", *files, "--tokens", ",".join(map(str, ids)), *flags, "-o", out)
    else:
        ids_file = CLI.path(f"{case}-ids.npy")
        np.save(ids_file, np.array(ids, np.int64))
        CLI.run("lm", *files, "--tokens-file", ids_file, *flags, "-o", out)
    return np.load(out)


def main():
    cases = sorted(c for c in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, c)))
    for case in cases:
        folder = os.path.join(FIXTURES, case)
        meta = json.load(open(os.path.join(folder, "meta.json")))
        assert "error" not in meta, f"{case}: the fixture failed to build: {meta['error']}"
        for k in range(len(meta["runs"])):
            ids = [int(t) for t in np.load(os.path.join(folder, f"ids-{k}.npy"))]
            ref = np.load(os.path.join(folder, f"logits-{k}.npy"))
            for config in ("config.json", "config-transformers5.json"):
                label = f"{case} {config} T={len(ids)}"
                try:
                    for precision, tol in TOL.items():
                        got = run(case, folder, config, ids, ("--precision", precision))
                        TALLY.check(f"{label} logits ({precision})", got, ref, tol)
                    if meta["case"] != "gpt2":  # poslab gpt2 has no --loss-by-position
                        got = run(case, folder, config, ids, ("--loss-by-position",))
                        TALLY.check(f"{label} loss by position", got,
                                    next_token_losses(ref, np.array(ids)), TOL["float"])
                except RuntimeError as e:
                    TALLY.failed += 1
                    print(f"FAIL  {label}: {e}")
    TALLY.finish()


main()
