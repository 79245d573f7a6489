"""Acceptance check: `poslab rope-config` (the RoPE inspector) against Hugging Face transformers'
own modeling_rope_utils on the inspector's bundled configs (web/src/content/rope-configs).

Usage: python3 rope_config_vs_transformers.py PATH/TO/poslab
tests/fixtures/transformers/rope-configs.json holds, per config and layer type, the inv_freq and
attention factor transformers computed (transformers_fixtures.py, where transformers runs; a
config transformers itself refuses is listed with its error and not compared). Each layer
type's scheme in the report must match: inv_freq_scaled within 1e-6 relative (transformers
computes them in float32), the attention factor within 1e-12.
"""

import json
import os
import sys

import numpy as np

from cli_runner import ScratchCli
from lm_acceptance import Tally

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "fixtures", "transformers", "rope-configs.json")
CONFIGS = os.path.join(HERE, "..", "..", "web", "src", "content", "rope-configs")
KINDS = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked"}
CLI = ScratchCli(sys.argv[1], "poslab-rope-config-")
TALLY = Tally()


def scheme_for(report, layer_type):
    """The scheme of the first RoPE layer of this layer type (any, for one shared by all)."""
    for layer in report["layers"]:
        kind_matches = layer_type == "None" or layer["attention"] == KINDS[layer_type]
        if layer["scheme"] >= 0 and kind_matches:
            return report["schemes"][layer["scheme"]]
    raise AssertionError(f"no RoPE layer of type {layer_type}")


def main():
    golden = json.load(open(GOLDEN))
    print("transformers", golden.pop("transformers"))
    for file, entry in sorted(golden.items()):
        if "error" in entry:
            why = entry["error"].splitlines()[0]
            print(f"not compared  {file}: transformers refuses it ({why})")
            continue
        out = CLI.path(file)
        CLI.run("rope-config", "--config", os.path.join(CONFIGS, file), "-o", out)
        report = json.load(open(out))
        for layer_type, want in entry.items():
            if layer_type == "rope_parameters":
                continue
            got = scheme_for(report, layer_type)
            ref = np.array(want["inv_freq"])
            label = f"{file} {layer_type} ({want['rope_type']})"
            # Each frequency relative to itself: they span six orders of magnitude.
            TALLY.check(label + " inv_freq / transformers'", np.array(got["inv_freq_scaled"]) / ref,
                        np.ones_like(ref), 1e-6)
            TALLY.check(label + " attention factor", np.array([got["attention_factor"]]),
                        np.array([want["attention_factor"]]), 1e-12)
    TALLY.finish()


main()
