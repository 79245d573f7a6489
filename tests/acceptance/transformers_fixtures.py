"""Writes tests/fixtures/transformers/: tiny random checkpoints made and run by Hugging Face
transformers itself, so that `poslab` is checked against the real library in CI, where it is
not installed (lm_vs_transformers.py reads them).

Run where transformers and torch are installed (the lent GPU machine's image has both; the
model runs on its CPU):  python3 tests/acceptance/transformers_fixtures.py --out DIR

Each case folder holds what a user downloads and what transformers computes from it:
- config.json: the config as the Hub ships it (transformers 4's keys: rope_theta, rope_scaling);
- config-transformers5.json: the same config as this transformers' save_pretrained writes it
  (transformers 5 writes rope_parameters instead);
- model.safetensors (or shards with model.safetensors.index.json), written by save_pretrained
  in the case's dtype;
- ids-K.npy / logits-K.npy: token ids and the logits of
  AutoModelForCausalLM.from_pretrained(folder, float64, eager attention) on them;
- meta.json: versions, the dtype, the largest difference between the two configs' logits
  (0 when transformers reads both the same way) and any error.
rope-configs.json: inv_freq and attention factor per layer type for the RoPE inspector's bundled
configs, from modeling_rope_utils' functions.
"""

import argparse
import json
import os
import shutil
import tempfile
import traceback

import numpy as np
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

VOCAB = 61
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": VOCAB,
         "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 16,
         "rope_theta": 10000.0, "rms_norm_eps": 1e-5, "hidden_act": "silu",
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
SHORT, LONG = 12, 40  # LONG passes max_position_embeddings: the scalings extrapolate


def cases():
    """(name, hub config, storage dtype, token counts, shard size or None)."""
    long_factor = [1.0, 1.5, 3.0, 6.0]  # head_dim 8: 4 pairs
    yield "llama-gqa-untied", LLAMA, torch.bfloat16, [SHORT], None
    yield "llama-gqa-sharded", LLAMA, torch.bfloat16, [SHORT], "20KB"
    yield "llama-mqa-tied-f32", {**LLAMA, "num_key_value_heads": 1, "tie_word_embeddings": True,
                                 "torch_dtype": "float32"}, torch.float32, [SHORT], None
    yield "llama-head-dim-bias-f16", {**LLAMA, "head_dim": 16, "attention_bias": True,
                                      "torch_dtype": "float16"}, torch.float16, [SHORT], None
    yield "llama-linear", {**LLAMA, "rope_scaling": {"type": "linear", "factor": 2.0}}, \
        torch.bfloat16, [SHORT], None
    yield "llama-dynamic", {**LLAMA, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}, \
        torch.bfloat16, [SHORT, LONG], None
    yield "llama-yarn", {**LLAMA, "max_position_embeddings": 32, "rope_scaling": {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8}}, \
        torch.bfloat16, [LONG], None
    yield "llama3", {**LLAMA, "rope_theta": 500000.0, "rope_scaling": {
        "rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0}}, torch.bfloat16, [LONG], None
    # Phi-3's layout: the original length at the top level, the factor implied by the two.
    yield "llama-longrope", {**LLAMA, "max_position_embeddings": 32,
                             "original_max_position_embeddings": 8, "rope_scaling": {
                                 "type": "longrope", "short_factor": [1.0, 1.1, 1.2, 1.5],
                                 "long_factor": long_factor}}, torch.bfloat16, [6, LONG], None
    yield "qwen2-bias", {**LLAMA, "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
                         "use_sliding_window": False}, torch.bfloat16, [SHORT], None
    yield "qwen2-sliding", {**LLAMA, "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
                            "use_sliding_window": True, "sliding_window": 5,
                            "max_window_layers": 1}, torch.bfloat16, [SHORT], None
    yield "qwen3-qk-norm", {**LLAMA, "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                            "head_dim": 24, "num_key_value_heads": 1, "tie_word_embeddings": True,
                            "use_sliding_window": True, "sliding_window": 3,
                            "layer_types": ["sliding_attention", "full_attention"]}, \
        torch.bfloat16, [LONG], None
    yield "mistral-window", {**LLAMA, "architectures": ["MistralForCausalLM"],
                             "model_type": "mistral", "sliding_window": 4}, \
        torch.bfloat16, [SHORT], None
    yield "gemma3-text", {
        "architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "vocab_size": VOCAB,
        "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 3,
        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
        "query_pre_attn_scalar": 24, "sliding_window": 4, "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 8.0},
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
        "max_position_embeddings": 64, "rms_norm_eps": 1e-6,
        "hidden_activation": "gelu_pytorch_tanh", "final_logit_softcapping": None,
        "attn_logit_softcapping": None, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}, \
        torch.bfloat16, [20], None
    yield "gpt2", {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": VOCAB,
                   "n_positions": 32, "n_embd": 32, "n_layer": 2, "n_head": 4,
                   "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
                   "torch_dtype": "float32"}, torch.float32, [SHORT], None
    yield "gpt-neox", {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox",
                       "vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 128,
                       "num_hidden_layers": 2, "num_attention_heads": 4,
                       "max_position_embeddings": 32, "rotary_pct": 0.25,
                       "rotary_emb_base": 10000, "use_parallel_residual": True,
                       "hidden_act": "gelu", "layer_norm_eps": 1e-5,
                       "tie_word_embeddings": False, "torch_dtype": "float16"}, \
        torch.float16, [SHORT], None
    # SmolLM3: layer 1 of 3 NoPE by no_rope_layers (1 rotates, 0 not), and sliding there
    # (use_sliding_window); tied, its default. Last, so the cases before keep their seeds.
    yield "smollm3-nope", {**LLAMA, "architectures": ["SmolLM3ForCausalLM"],
                           "model_type": "smollm3", "num_hidden_layers": 3,
                           "no_rope_layers": [1, 0, 1], "no_rope_layer_interval": 4,
                           "use_sliding_window": True, "sliding_window": 4,
                           "tie_word_embeddings": True}, torch.bfloat16, [SHORT, LONG], None


def randomise(model, model_type, seed):
    """Weights large enough that attention is far from uniform and position matters."""
    g = torch.Generator().manual_seed(seed)
    for name, p in model.named_parameters():
        if "norm" in name or "ln_" in name or "layernorm" in name:
            # Gemma's RMSNorm multiplies by (1 + w): its weights sit around 0.
            lo, hi = (-0.5, 0.5) if model_type == "gemma3_text" else (0.5, 1.5)
        elif name.endswith("bias"):
            lo, hi = -0.2, 0.2
        elif "embed" in name or "wte" in name or "wpe" in name:
            lo, hi = -1.0, 1.0
        else:
            lo, hi = -0.3, 0.3
        with torch.no_grad():
            p.copy_(torch.rand(p.shape, generator=g, dtype=torch.float64) * (hi - lo) + lo)


def load_float64(folder):
    kwargs = {"attn_implementation": "eager"}
    try:
        return AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float64, **kwargs).eval()
    except TypeError:
        return AutoModelForCausalLM.from_pretrained(folder, torch_dtype=torch.float64,
                                                    **kwargs).eval()


def logits_of(model, ids):
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), use_cache=False)
    return out.logits[0].to(torch.float64).numpy()


def make_case(out, index, name, hub, dtype, lengths, shard):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    meta = {"case": name, "dtype": str(dtype).replace("torch.", ""), "sharded": bool(shard),
            "transformers": transformers.__version__, "torch": torch.__version__}
    try:
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(hub, f, indent=2)
        config = AutoConfig.from_pretrained(folder)
        model = AutoModelForCausalLM.from_config(config, attn_implementation="eager")
        randomise(model, hub["model_type"], 1000 + index)
        model.to(dtype)
        with tempfile.TemporaryDirectory() as saved:
            kwargs = {"max_shard_size": shard} if shard else {}
            model.save_pretrained(saved, **kwargs)
            for file in os.listdir(saved):
                if file.endswith(".safetensors") or file.endswith(".index.json"):
                    shutil.copy(os.path.join(saved, file), folder)
            shutil.copy(os.path.join(saved, "config.json"),
                        os.path.join(folder, "config-transformers5.json"))
            meta["files"] = sorted(os.listdir(folder))
            ref = load_float64(folder)  # the Hub's config.json and the saved weights
            ref5 = load_float64(saved)  # the config as this transformers writes it
        rng = np.random.default_rng(2000 + index)
        meta["runs"], worst = [], 0.0
        for k, T in enumerate(lengths):
            ids = [int(t) for t in rng.integers(0, hub["vocab_size"], T)]
            logits = logits_of(ref, ids)
            worst = max(worst, float(np.abs(logits_of(ref5, ids) - logits).max()))
            np.save(os.path.join(folder, f"ids-{k}.npy"), np.array(ids, np.int64))
            np.save(os.path.join(folder, f"logits-{k}.npy"), logits)
            meta["runs"].append({"tokens": T, "max_abs_logit": float(np.abs(logits).max())})
        meta["config_json_vs_transformers5_max_diff"] = worst
        rotary = getattr(getattr(ref, "model", None), "rotary_emb", None)
        if rotary is not None and hasattr(rotary, "inv_freq"):
            meta["inv_freq"] = rotary.inv_freq.tolist()
            meta["attention_scaling"] = float(getattr(rotary, "attention_scaling", 1.0))
    except Exception as e:  # recorded, so one broken case does not lose the others
        meta["error"] = f"{type(e).__name__}: {e}"
        meta["traceback"] = traceback.format_exc()[-3000:]
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    print(name, meta.get("error", f"ok, {meta.get('config_json_vs_transformers5_max_diff')}"))


def rope_of(config, layer_type):
    """(inv_freq, attention_factor) as this transformers computes them for one layer type."""
    from transformers import modeling_rope_utils as mru

    params = getattr(config, "rope_parameters", None) or {}
    if layer_type is not None and layer_type in params:
        params = params[layer_type]
    else:
        layer_type = None  # one object for every layer type
    kind = params.get("rope_type", "default") if params else "default"
    fn = mru.ROPE_INIT_FUNCTIONS.get(kind)
    if fn is None and kind == "default":  # transformers 5 keeps it on each RotaryEmbedding
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        fn = LlamaRotaryEmbedding.compute_default_rope_parameters
    for call in (lambda: fn(config, "cpu", layer_type=layer_type), lambda: fn(config, "cpu")):
        try:
            inv, factor = call()
            return inv.to(torch.float64).tolist(), float(factor), kind
        except (TypeError, KeyError):
            continue
    if kind != "default":
        raise RuntimeError(f"no call of {kind} worked")
    # The default rotation where transformers' own function does not take this layer type
    # (Gemma 3's local layers): θ_i = rope_theta^(−2i/d), written here.
    theta = params.get("rope_theta", getattr(config, "rope_theta", 10000.0))
    head = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    dim = int(head * params.get("partial_rotary_factor", 1.0))
    return (1.0 / theta ** (np.arange(0, dim, 2) / dim)).tolist(), 1.0, "default (written here)"


def rope_configs(out, configs_dir):
    report = {"transformers": transformers.__version__}
    for file in sorted(os.listdir(configs_dir)):
        if not file.endswith(".json"):
            continue
        entry = report[file] = {}
        try:
            with tempfile.TemporaryDirectory() as folder:
                shutil.copy(os.path.join(configs_dir, file), os.path.join(folder, "config.json"))
                config = AutoConfig.from_pretrained(folder)
            text = config.get_text_config() if hasattr(config, "get_text_config") else config
            entry["rope_parameters"] = json.loads(json.dumps(
                getattr(text, "rope_parameters", None), default=str))
            types = sorted(set(getattr(text, "layer_types", None) or [])) or [None]
            for layer_type in types:
                inv, factor, kind = rope_of(text, layer_type)
                entry[str(layer_type)] = {"rope_type": kind, "inv_freq": inv,
                                          "attention_factor": factor}
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}"
            entry["traceback"] = traceback.format_exc()[-2000:]
        print(file, entry.get("error", "ok"))
    with open(os.path.join(out, "rope-configs.json"), "w") as f:
        json.dump(report, f, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    print("transformers", transformers.__version__, "torch", torch.__version__)
    for index, case in enumerate(cases()):
        make_case(args.out, index, *case)
    here = os.path.dirname(os.path.abspath(__file__))
    rope_configs(args.out, os.path.join(here, "..", "..", "web", "src", "content", "rope-configs"))


if __name__ == "__main__":
    main()
