"""Acceptance check: `poslab lm` on GPT-NeoX checkpoints against an independent float64 NumPy
forward pass.

Usage: python3 neox_vs_numpy.py PATH/TO/poslab
The model below is written from Hugging Face's modeling_gpt_neox.py (GPTNeoXAttention with
rotate_half on the first int(d * rotary_pct) dims, GPTNeoXMLP with the exact erf GELU, parallel
or sequential residual, untied embed_out), not from the C++ core. The checkpoint is a tiny
random one written here byte by byte (safetensors: an 8-byte little-endian header length, the
JSON header, the raw little-endian tensors), with its config.json.
Tolerance: |got - ref| <= 1e-4 * max |ref| for the logits, in both precisions (the float path
accumulates in float32), and the same for the losses by position.
"""

import math
import sys

import numpy as np

from cli_runner import ScratchCli
from lm_acceptance import Tally, check_lm, write_case

CLI = ScratchCli(sys.argv[1], "poslab-neox-")
path = CLI.path
TOL = 1e-4
TALLY = Tally()
erf = np.vectorize(math.erf)




def random_model(config, rng):
    V, E, I = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    w = {"gpt_neox.embed_in.weight": rng.uniform(-1, 1, (V, E))}
    for n in range(config["num_hidden_layers"]):
        p = f"gpt_neox.layers.{n}."
        w[p + "input_layernorm.weight"] = rng.uniform(0.5, 1.5, E)
        w[p + "input_layernorm.bias"] = rng.uniform(-0.2, 0.2, E)
        w[p + "post_attention_layernorm.weight"] = rng.uniform(0.5, 1.5, E)
        w[p + "post_attention_layernorm.bias"] = rng.uniform(-0.2, 0.2, E)
        w[p + "attention.query_key_value.weight"] = rng.uniform(-0.3, 0.3, (3 * E, E))
        w[p + "attention.query_key_value.bias"] = rng.uniform(-0.2, 0.2, 3 * E)
        w[p + "attention.dense.weight"] = rng.uniform(-0.2, 0.2, (E, E))
        w[p + "attention.dense.bias"] = rng.uniform(-0.1, 0.1, E)
        w[p + "mlp.dense_h_to_4h.weight"] = rng.uniform(-0.3, 0.3, (I, E))
        w[p + "mlp.dense_h_to_4h.bias"] = rng.uniform(-0.2, 0.2, I)
        w[p + "mlp.dense_4h_to_h.weight"] = rng.uniform(-0.15, 0.15, (E, I))
        w[p + "mlp.dense_4h_to_h.bias"] = rng.uniform(-0.1, 0.1, E)
        # A buffer older checkpoints carry: ignored by the loader.
        w[p + "attention.rotary_emb.inv_freq"] = np.zeros(2)
    w["gpt_neox.final_layer_norm.weight"] = rng.uniform(0.5, 1.5, E)
    w["gpt_neox.final_layer_norm.bias"] = rng.uniform(-0.2, 0.2, E)
    w["embed_out.weight"] = rng.uniform(-0.5, 0.5, (V, E))
    return w


def layer_norm(x, g, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def forward(w, config, tokens, inv_freq, attention_factor=1.0):
    E, H = config["hidden_size"], config["num_attention_heads"]
    d = E // H
    R = int(d * config["rotary_pct"])
    eps = config["layer_norm_eps"]
    T = len(tokens)
    angles = np.arange(T)[:, None] * inv_freq[None, :]           # (T, R/2)
    cos = np.concatenate([np.cos(angles)] * 2, -1) * attention_factor  # (T, R)
    sin = np.concatenate([np.sin(angles)] * 2, -1) * attention_factor

    def rope(x):  # (H, T, d): x*cos + rotate_half(x)*sin on the first R dims
        rot, rest = x[..., :R], x[..., R:]
        half = np.concatenate([-rot[..., R // 2:], rot[..., : R // 2]], -1)
        return np.concatenate([rot * cos + half * sin, rest], -1)

    x = w["gpt_neox.embed_in.weight"][tokens]
    causal = np.triu(np.ones((T, T), bool), 1)
    for n in range(config["num_hidden_layers"]):
        p = f"gpt_neox.layers.{n}."
        a = layer_norm(x, w[p + "input_layernorm.weight"], w[p + "input_layernorm.bias"], eps)
        qkv = a @ w[p + "attention.query_key_value.weight"].T + w[p + "attention.query_key_value.bias"]
        qkv = qkv.reshape(T, H, 3 * d).transpose(1, 0, 2)        # (H, T, 3d): [q | k | v]
        q, k, v = rope(qkv[..., :d]), rope(qkv[..., d:2 * d]), qkv[..., 2 * d:]
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        scores[:, causal] = -np.inf
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        merged = (weights @ v).transpose(1, 0, 2).reshape(T, E)
        attn = merged @ w[p + "attention.dense.weight"].T + w[p + "attention.dense.bias"]

        def mlp(m):
            h = m @ w[p + "mlp.dense_h_to_4h.weight"].T + w[p + "mlp.dense_h_to_4h.bias"]
            h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
            return h @ w[p + "mlp.dense_4h_to_h.weight"].T + w[p + "mlp.dense_4h_to_h.bias"]

        ln2 = (w[p + "post_attention_layernorm.weight"], w[p + "post_attention_layernorm.bias"])
        if config["use_parallel_residual"]:
            x = x + attn + mlp(layer_norm(x, *ln2, eps))
        else:
            h = x + attn
            x = h + mlp(layer_norm(h, *ln2, eps))
    f = layer_norm(x, w["gpt_neox.final_layer_norm.weight"], w["gpt_neox.final_layer_norm.bias"], eps)
    return f @ w["embed_out.weight"].T


def default_inv_freq(R, base):
    return 1.0 / base ** (np.arange(0, R, 2) / R)


def case(label, config, dtype, tokens, rng, scaling=None):
    w = write_case(path, label, random_model(config, rng), dtype, config, tokens)
    d = config["hidden_size"] // config["num_attention_heads"]
    R = int(d * config["rotary_pct"])
    inv_freq = default_inv_freq(R, config["rotary_emb_base"])
    extra = []
    if scaling == "linear":  # position interpolation: θ / f
        inv_freq = inv_freq / 2.0
        extra = ["--rope-scaling", "linear", "--rope-factor", "2"]
    if scaling == "dynamic":  # NTK base from the whole length S = T past N
        N, f, S = config["max_position_embeddings"], 2.0, len(tokens)
        base = config["rotary_emb_base"] * ((f * S / N) - (f - 1)) ** (R / (R - 2))
        inv_freq = default_inv_freq(R, base)
        extra = ["--rope-scaling", "dynamic", "--rope-factor", "2"]
    ref = forward(w, config, np.array(tokens), inv_freq)
    check_lm(CLI, TALLY, label, tokens, ref, extra, {"float": TOL, "double": TOL})


def main():
    rng = np.random.default_rng(14)
    base = {"model_type": "gpt_neox", "vocab_size": 97, "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "intermediate_size": 96, "max_position_embeddings": 16,
            "rotary_pct": 0.25, "rotary_emb_base": 10000, "layer_norm_eps": 1e-5,
            "use_parallel_residual": True, "hidden_act": "gelu", "tie_word_embeddings": False}
    tokens = [int(t) for t in rng.integers(0, 97, 12)]
    long_tokens = [int(t) for t in rng.integers(0, 97, 40)]  # past max_position_embeddings
    case("parallel-pct25-f32", base, "F32", tokens, rng)
    case("sequential-pct100-f16", {**base, "use_parallel_residual": False, "rotary_pct": 1.0},
         "F16", tokens, rng)
    case("parallel-long", base, "F32", long_tokens, rng)
    case("linear-scaling", base, "F32", tokens, rng, scaling="linear")
    case("dynamic-scaling-long", base, "F32", long_tokens, rng, scaling="dynamic")
    TALLY.finish()


main()
