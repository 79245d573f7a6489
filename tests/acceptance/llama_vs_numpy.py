"""Acceptance check: `poslab lm` on Llama-family checkpoints (llama, mistral, qwen2, qwen3,
smollm3) against an independent float64 NumPy forward pass.

Usage: python3 llama_vs_numpy.py PATH/TO/poslab
The model below is written from Hugging Face's modeling_llama.py (LlamaRMSNorm, LlamaMLP with
silu, LlamaAttention with repeat_kv for grouped-query heads and rotate_half over the whole
head, q/k/v/o biases when attention_bias, lm_head tied to embed_tokens when
tie_word_embeddings), the members' differences from modeling_qwen2.py (q/k/v biases, no o
bias), modeling_qwen3.py (q_norm and k_norm over each head before RoPE) and modeling_mistral.py
with masking_utils.py's sliding window (key j visible to query i when i - W < j <= i; Qwen's
on the layers its layer_types or max_window_layers make sliding), modeling_smollm3.py and
configuration_smollm3.py (no RoPE in a layer whose no_rope_layers entry is 0, the list built
from no_rope_layer_interval when absent; with use_sliding_window and a sliding_window the NoPE
layers slide), and the RoPE scalings from
modeling_rope_utils.py (linear, dynamic NTK, YaRN, llama3), not from the C++ core. The checkpoint is a tiny random one written here byte
by byte (safetensors: an 8-byte little-endian header length, the JSON header, the raw
little-endian tensors), with its config.json.
Tolerance: |got - ref| <= 1e-4 * max |ref| for the float path's logits (it accumulates in
float32) and for the losses by position; 1e-5 * max |ref| for `--precision double`.
"""

import math
import sys

import numpy as np

from cli_runner import ScratchCli
from lm_acceptance import Tally, check_lm, write_case

CLI = ScratchCli(sys.argv[1], "poslab-llama-")
path = CLI.path
TOL = {"float": 1e-4, "double": 1e-5}
TALLY = Tally()




def head_dim(config):
    return config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]


def biases(config):
    """(q/k/v biased, o biased) as each member's attention builds its projections."""
    if config["model_type"] == "qwen2":
        return True, False
    if config["model_type"] == "mistral":
        return False, False
    bias = config.get("attention_bias", False)
    return bias, bias


def no_rope_layers(config):
    """config.no_rope_layers as SmolLM3Config.__post_init__ builds it (1: RoPE, 0: NoPE); every
    layer rotates in the other members."""
    N = config["num_hidden_layers"]
    if config["model_type"] != "smollm3":
        return [1] * N
    if config.get("no_rope_layers") is not None:
        return config["no_rope_layers"]
    interval = config.get("no_rope_layer_interval", 4)
    return [int((i + 1) % interval != 0) for i in range(N)]


def window_of(config, layer):
    """The sliding window of a layer, 0 for full causal attention."""
    if config["model_type"] == "smollm3":  # SmolLM3Config's layer_types: its NoPE layers slide
        on = config.get("use_sliding_window", False) and config.get("sliding_window") is not None
        types = config.get("layer_types") or [
            "sliding_attention" if on and not rope else "full_attention"
            for rope in no_rope_layers(config)]
        return config["sliding_window"] if types[layer] == "sliding_attention" else 0
    if config["model_type"] == "mistral":
        return config.get("sliding_window") or 0
    if config["model_type"] in ("qwen2", "qwen3") and config.get("use_sliding_window"):
        types = config.get("layer_types") or [
            "sliding_attention" if i >= config.get("max_window_layers", 28) else "full_attention"
            for i in range(config["num_hidden_layers"])]
        return config.get("sliding_window", 4096) if types[layer] == "sliding_attention" else 0
    return 0


def random_model(config, rng):
    V, E, I = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    H, K, d = config["num_attention_heads"], config["num_key_value_heads"], head_dim(config)
    qkv_bias, o_bias = biases(config)
    w = {"model.embed_tokens.weight": rng.uniform(-1, 1, (V, E))}
    for n in range(config["num_hidden_layers"]):
        p = f"model.layers.{n}."
        w[p + "input_layernorm.weight"] = rng.uniform(0.5, 1.5, E)
        for name, rows in (("q_proj", H * d), ("k_proj", K * d), ("v_proj", K * d)):
            w[p + f"self_attn.{name}.weight"] = rng.uniform(-0.3, 0.3, (rows, E))
            if qkv_bias:
                w[p + f"self_attn.{name}.bias"] = rng.uniform(-0.2, 0.2, rows)
        w[p + "self_attn.o_proj.weight"] = rng.uniform(-0.2, 0.2, (E, H * d))
        if o_bias:
            w[p + "self_attn.o_proj.bias"] = rng.uniform(-0.1, 0.1, E)
        if config["model_type"] == "qwen3":
            w[p + "self_attn.q_norm.weight"] = rng.uniform(0.5, 1.5, d)
            w[p + "self_attn.k_norm.weight"] = rng.uniform(0.5, 1.5, d)
        w[p + "mlp.gate_proj.weight"] = rng.uniform(-0.3, 0.3, (I, E))
        w[p + "mlp.up_proj.weight"] = rng.uniform(-0.3, 0.3, (I, E))
        w[p + "mlp.down_proj.weight"] = rng.uniform(-0.2, 0.2, (E, I))
        w[p + "post_attention_layernorm.weight"] = rng.uniform(0.5, 1.5, E)
        # A buffer older checkpoints carry: ignored by the loader.
        w[p + "self_attn.rotary_emb.inv_freq"] = np.zeros(d // 2)
    w["model.norm.weight"] = rng.uniform(0.5, 1.5, E)
    if not config["tie_word_embeddings"]:
        w["lm_head.weight"] = rng.uniform(-0.5, 0.5, (V, E))
    return w


def rms_norm(x, g, eps):  # LlamaRMSNorm
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * g


def silu(x):
    return x / (1.0 + np.exp(-x))


def rope_parameters(config, T):
    """inv_freq and attention_factor as modeling_rope_utils' ROPE_INIT_FUNCTIONS compute them
    for a sequence of T positions (dynamic NTK reads T)."""
    d, base = head_dim(config), config.get("rope_theta", 10000.0)
    inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
    s = config.get("rope_scaling")
    if not s:
        return inv_freq, 1.0
    kind, f = s.get("rope_type", s.get("type")), s["factor"]
    P = config["max_position_embeddings"]
    original = s.get("original_max_position_embeddings") or \
        config.get("original_max_position_embeddings") or P
    if kind == "linear":
        return inv_freq / f, 1.0
    if kind == "dynamic":  # the base grows once the sequence passes max_position_embeddings
        S = max(T, P)
        base = base * ((f * S / P) - (f - 1)) ** (d / (d - 2))
        return 1.0 / base ** (np.arange(0, d, 2) / d), 1.0
    if kind == "yarn":
        beta_fast, beta_slow = s.get("beta_fast", 32), s.get("beta_slow", 1)

        def correction_dim(rotations):
            return d * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

        low = max(math.floor(correction_dim(beta_fast)), 0)
        high = min(math.ceil(correction_dim(beta_slow)), d - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
        extrapolation = 1 - ramp
        inv = inv_freq / f * (1 - extrapolation) + inv_freq * extrapolation
        return inv, 0.1 * math.log(f) + 1.0
    if kind == "llama3":
        low_ff, high_ff = s["low_freq_factor"], s["high_freq_factor"]
        low_wavelen, high_wavelen = original / low_ff, original / high_ff
        wavelen = 2 * math.pi / inv_freq
        inv = np.where(wavelen > low_wavelen, inv_freq / f, inv_freq)
        smooth = (original / wavelen - low_ff) / (high_ff - low_ff)
        smoothed = (1 - smooth) * inv / f + smooth * inv
        medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
        return np.where(medium, smoothed, inv), 1.0
    raise ValueError(kind)


def forward(w, config, tokens):
    H, K = config["num_attention_heads"], config["num_key_value_heads"]
    d, eps, T = head_dim(config), config["rms_norm_eps"], len(tokens)
    inv_freq, attention_factor = rope_parameters(config, T)
    angles = np.arange(T)[:, None] * inv_freq[None, :]                    # (T, d/2)
    cos = np.concatenate([np.cos(angles)] * 2, -1) * attention_factor     # (T, d)
    sin = np.concatenate([np.sin(angles)] * 2, -1) * attention_factor

    def rope(x):  # (heads, T, d): x*cos + rotate_half(x)*sin
        return x * cos + np.concatenate([-x[..., d // 2:], x[..., : d // 2]], -1) * sin

    def proj(x, name):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    x = w["model.embed_tokens.weight"][tokens]
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    use_rope = no_rope_layers(config)
    for n in range(config["num_hidden_layers"]):
        W = window_of(config, n)
        hidden = (j > i) | ((j <= i - W) if W else False)  # causal, and outside the window
        p = f"model.layers.{n}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = proj(a, p + "self_attn.q_proj").reshape(T, H, d).transpose(1, 0, 2)
        k = proj(a, p + "self_attn.k_proj").reshape(T, K, d).transpose(1, 0, 2)
        v = proj(a, p + "self_attn.v_proj").reshape(T, K, d).transpose(1, 0, 2)
        if config["model_type"] == "qwen3":  # q_norm, k_norm over each head's d values
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        if use_rope[n]:  # SmolLM3Attention: `if self.use_rope:`
            q, k = rope(q), rope(k)
        k, v = np.repeat(k, H // K, axis=0), np.repeat(v, H // K, axis=0)  # repeat_kv
        scores = q @ k.transpose(0, 2, 1) * d ** -0.5
        scores[:, hidden] = -np.inf
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        merged = (weights @ v).transpose(1, 0, 2).reshape(T, H * d)
        h = x + proj(merged, p + "self_attn.o_proj")
        m = rms_norm(h, w[p + "post_attention_layernorm.weight"], eps)
        gate, up = m @ w[p + "mlp.gate_proj.weight"].T, m @ w[p + "mlp.up_proj.weight"].T
        x = h + (silu(gate) * up) @ w[p + "mlp.down_proj.weight"].T
    head = w["model.embed_tokens.weight" if config["tie_word_embeddings"] else "lm_head.weight"]
    return rms_norm(x, w["model.norm.weight"], eps) @ head.T


def case(label, config, dtype, tokens, rng, flags=(), ref_config=None):
    """`flags` are extra `poslab lm` options; `ref_config` the config the reference computes
    when they change it (--rope-scaling replacing the file's rope_scaling)."""
    w = write_case(path, label, random_model(config, rng), dtype, config, tokens)
    ref = forward(w, ref_config or config, np.array(tokens))
    check_lm(CLI, TALLY, label, tokens, ref, flags, TOL)


def main():
    rng = np.random.default_rng(29)
    base = {"model_type": "llama", "vocab_size": 97, "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96,
            "max_position_embeddings": 16, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
            "hidden_act": "silu", "tie_word_embeddings": False}
    tokens = [int(t) for t in rng.integers(0, 97, 12)]
    long_tokens = [int(t) for t in rng.integers(0, 97, 40)]  # past max_position_embeddings
    case("gqa-untied-f32", base, "F32", tokens, rng)
    case("mqa-tied-f16", {**base, "num_key_value_heads": 1, "tie_word_embeddings": True},
         "F16", tokens, rng)
    case("mha-head-dim-bias", {**base, "num_key_value_heads": 4, "head_dim": 8,
                               "attention_bias": True}, "F32", tokens, rng)
    case("linear-legacy-type", {**base, "rope_scaling": {"type": "linear", "factor": 2.0}},
         "F32", tokens, rng)
    case("dynamic-long", {**base, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}},
         "F32", long_tokens, rng)
    case("yarn-long", {**base, "max_position_embeddings": 32, "rope_scaling": {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8}},
         "F32", long_tokens, rng)
    case("llama3-long", {**base, "rope_theta": 500000.0, "rope_scaling": {
        "rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0}}, "F32", long_tokens, rng)
    case("qwen2-qkv-bias", {**base, "model_type": "qwen2"}, "F32", tokens, rng)
    case("qwen2-sliding-layer-1", {**base, "model_type": "qwen2", "use_sliding_window": True,
                                   "sliding_window": 5, "max_window_layers": 1},
         "F32", tokens, rng)
    case("mistral-window-4-f16", {**base, "model_type": "mistral", "sliding_window": 4},
         "F16", tokens, rng)
    case("mistral-no-window", {**base, "model_type": "mistral", "sliding_window": None},
         "F32", tokens, rng)
    case("qwen3-qk-norm", {**base, "model_type": "qwen3", "head_dim": 24,
                           "num_key_value_heads": 1, "tie_word_embeddings": True,
                           "use_sliding_window": True, "sliding_window": 3,
                           "layer_types": ["sliding_attention", "full_attention"]},
         "F32", long_tokens, rng)
    case("cli-linear-flag", base, "F32", tokens, rng,
         flags=("--rope-scaling", "linear", "--rope-factor", "2"),
         ref_config={**base, "rope_scaling": {"rope_type": "linear", "factor": 2.0}})
    smollm3 = {**base, "model_type": "smollm3", "tie_word_embeddings": True}
    case("smollm3-nope-interval-2", {**smollm3, "no_rope_layer_interval": 2},
         "F32", long_tokens, rng)
    case("smollm3-nope-list-sliding-bias-f16", {**smollm3, "no_rope_layers": [0, 1],
                                                "use_sliding_window": True, "sliding_window": 4,
                                                "attention_bias": True},
         "F16", long_tokens, rng)
    case("smollm3-yarn-every-layer-rotates", {**smollm3, "max_position_embeddings": 32,
                                              "no_rope_layers": [1, 1], "rope_scaling": {
                                                  "rope_type": "yarn", "factor": 4.0,
                                                  "original_max_position_embeddings": 8}},
         "F32", long_tokens, rng)
    TALLY.finish()


main()
