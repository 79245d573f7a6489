"""Acceptance check: `poslab rope-config` (the RoPE inspector) on the newest configs against an
independent float64 NumPy transcription of Hugging Face transformers' code, for what the
transformers fixtures (rope_config_vs_transformers.py) do not pin:

- DeepSeek-V3 and V2.5 (modeling_deepseek_v3.py, configuration_deepseek_v3.py): the rotary width
  is qk_rope_head_dim (transformers sets head_dim to it), YaRN on it as
  modeling_rope_utils._compute_yarn_parameters computes it with mscale and mscale_all_dim (the
  cos/sin factor), and DeepseekV3Attention's softmax scale qk_head_dim^-1/2 * mscale(f, all)^2;
- Llama-4-Scout-17B-16E (its current revision: llama3 x 16 with low_freq_factor =
  high_freq_factor = 1) and the first release (8, 1, 4): _compute_llama3_parameters with its
  torch.where bands, and Llama4TextAttention's query scale on NoPE layers
  1 + attn_scale * log1p(floor((p + 1) / floor_scale)) at the report's positions;
- Qwen2-VL-7B and Qwen2.5-VL-7B (mrope_section in blocks: apply_multimodal_rotary_pos_emb's
  split of cos into mrope_section * 2) and a Qwen3-VL text config (apply_interleaved_mrope): which
  pair takes t, h and w, and get_rope_index's three position ids for a prompt of text, one image
  and text (input ids built with <|vision_start|> and image pads, walked as transformers does).

Usage: python3 rope_config_vs_numpy.py PATH/TO/poslab
The configs are the inspector's bundled ones (web/src/content/rope-configs, sources in its
SOURCES.md). Frequencies within 1e-12 relative, scales 1e-12, integers exactly.
"""

import json
import math
import os
import sys

import numpy as np

from cli_runner import ScratchCli
from lm_acceptance import Tally

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "..", "web", "src", "content", "rope-configs")
CLI = ScratchCli(sys.argv[1], "poslab-rope-numpy-")
TALLY = Tally()


def load(name):
    with open(os.path.join(CONFIGS, name + ".json")) as f:
        return json.load(f)


def report_of(name, config, *extra):
    """`poslab rope-config` on `config` (written to the scratch folder)."""
    path = CLI.path(name + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    out = CLI.path(name + ".report.json")
    CLI.run("rope-config", "--config", path, "-o", out, *extra)
    with open(out) as f:
        return json.load(f)


# ---------------------------------------------------------------- modeling_rope_utils.py


def default_inv_freq(base, dim):
    return 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float64) / dim))


def get_mscale(scale, mscale=1.0):
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn(base, dim, rope_scaling, max_position_embeddings):
    """_compute_yarn_parameters: (inv_freq, attention_factor); the factor as written."""
    factor = rope_scaling["factor"]
    original = rope_scaling.get("original_max_position_embeddings", max_position_embeddings)
    attention_factor = rope_scaling.get("attention_factor")
    mscale, mscale_all_dim = rope_scaling.get("mscale"), rope_scaling.get("mscale_all_dim")
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
        else:
            attention_factor = get_mscale(factor)
    beta_fast = rope_scaling.get("beta_fast") or 32
    beta_slow = rope_scaling.get("beta_slow") or 1

    def correction_dim(rotations):
        return (dim * math.log(original / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    extrapolation = 1 - ramp
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    inv_freq = (1.0 / (factor * pos_freqs)) * (1 - extrapolation) + (1.0 / pos_freqs) * extrapolation
    return inv_freq, attention_factor


def llama3(base, dim, rope_scaling):
    """_compute_llama3_parameters (torch.where on the bands: an empty middle band is fine)."""
    inv_freq = default_inv_freq(base, dim)
    factor = rope_scaling["factor"]
    low, high = rope_scaling["low_freq_factor"], rope_scaling["high_freq_factor"]
    old = rope_scaling["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    out = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    with np.errstate(divide="ignore", invalid="ignore"):  # equal factors: 0/0, never picked
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, out)


def check_frequencies(label, got, want):
    """Each frequency relative to itself: they span many orders of magnitude."""
    TALLY.check(label + " inv_freq / NumPy's", np.array(got) / want, np.ones_like(want), 1e-12)


def check_exact(label, got, want):
    TALLY.check(label, np.array(got, dtype=np.int64), np.array(want, dtype=np.int64), 0.0)


# ---------------------------------------------------------------- DeepSeek: MLA and YaRN


def deepseek(name):
    config = load(name)
    report = report_of(name, config)
    rope_dim, nope_dim = config["qk_rope_head_dim"], config["qk_nope_head_dim"]
    qk_head_dim = nope_dim + rope_dim
    scheme = report["schemes"][0]
    check_exact(f"{name} rotary dim = qk_rope_head_dim, head width = qk_head_dim",
                [scheme["rotary_dim"], report["head_dim"]], [rope_dim, qk_head_dim])
    inv_freq, attention_factor = yarn(config["rope_theta"], rope_dim, config["rope_scaling"],
                                      config["max_position_embeddings"])
    check_frequencies(f"{name} yarn", scheme["inv_freq_scaled"], inv_freq)
    TALLY.check(f"{name} cos/sin attention factor", np.array([scheme["attention_factor"]]),
                np.array([attention_factor]), 1e-12)
    # DeepseekV3Attention: self.scaling = qk_head_dim ** -0.5 * mscale * mscale.
    scaling = qk_head_dim ** -0.5
    mscale_all_dim = config["rope_scaling"].get("mscale_all_dim", 0)
    if mscale_all_dim:
        mscale = get_mscale(config["rope_scaling"]["factor"], mscale_all_dim)
        scaling = scaling * mscale * mscale
    TALLY.check(f"{name} softmax scale", np.array([report["mla"]["softmax_scale"]]),
                np.array([scaling]), 1e-12)
    mla = report["mla"]
    check_exact(f"{name} MLA widths and ranks",
                [mla["qk_nope_head_dim"], mla["qk_rope_head_dim"], mla["v_head_dim"],
                 mla["kv_lora_rank"], mla["q_lora_rank"]],
                [nope_dim, rope_dim, config["v_head_dim"], config["kv_lora_rank"],
                 config["q_lora_rank"] or 0])


# ---------------------------------------------------------------- Llama 4: bands, temperature


def llama4(name):
    config = load(name)
    text = config["text_config"]
    report = report_of(name, config)
    scheme = report["schemes"][0]
    check_frequencies(f"{name} llama3", scheme["inv_freq_scaled"],
                      llama3(text["rope_theta"], text["head_dim"], text["rope_scaling"]))
    # Llama4TextConfig: no_rope_layers empty → every 4th layer NoPE; attn_temperature_tuning,
    # floor_scale 8192 and attn_scale 0.1 when absent.
    layers = text["num_hidden_layers"]
    no_rope = text.get("no_rope_layers") or [int((i + 1) % 4 != 0) for i in range(layers)]
    check_exact(f"{name} NoPE layers", [layer["scheme"] is None for layer in report["layers"]],
                [not rotates for rotates in no_rope])
    floor_scale, attn_scale = text.get("floor_scale", 8192), text.get("attn_scale", 0.1)
    temperature = report["temperature"]
    positions = np.array(temperature["positions"], dtype=np.float64)
    want = np.log1p(np.floor((positions + 1.0) / floor_scale)) * attn_scale + 1.0
    TALLY.check(f"{name} NoPE query scale at {len(positions)} positions",
                np.array(temperature["scales"]), want, 1e-12)
    # The positions are where a step begins: one more step than the position before.
    steps = np.floor((positions + 1.0) / floor_scale)
    check_exact(f"{name} scale sampled at step starts",
                (steps[1:-1] > np.floor(positions[1:-1] / floor_scale)).astype(int),
                np.ones(len(positions) - 2, dtype=int))


# ---------------------------------------------------------------- M-RoPE


def axes_in_blocks(section, dim):
    """apply_multimodal_rotary_pos_emb: cos (t, h, w stacked) split into mrope_section * 2, the
    i-th chunk from axis i % 3; the first half's axis per pair."""
    cos = np.repeat(np.arange(3)[:, None], dim, axis=1)  # cos[a, d] = a
    chunks = np.split(cos, np.cumsum(section * 2)[:-1], axis=1)
    per_dim = np.concatenate([chunk[i % 3] for i, chunk in enumerate(chunks)])
    return "".join("thw"[a] for a in per_dim[: dim // 2])


def axes_interleaved(section, dim):
    """apply_interleaved_mrope on freqs (3, …, dim / 2)."""
    freqs = np.repeat(np.arange(3)[:, None], dim // 2, axis=1)
    freqs_t = freqs[0].copy()
    for axis, offset in ((1, 1), (2, 2)):
        idx = slice(offset, section[axis] * 3, 3)
        freqs_t[idx] = freqs[axis, idx]
    return "".join("thw"[a] for a in freqs_t)


VISION_START, IMAGE, TEXT = 151652, 151655, 100


def get_rope_index(input_ids, image_grid_thw, spatial_merge_size):
    """Qwen2VLForConditionalGeneration.get_rope_index for one sequence and images only
    (Qwen2.5-VL's and Qwen3-VL's agree for images: their temporal index is 0 across one)."""
    input_ids = np.array(input_ids)
    vision_start_indices = np.argwhere(input_ids == VISION_START)[:, 0]
    vision_tokens = input_ids[vision_start_indices + 1]
    image_nums = int((vision_tokens == IMAGE).sum())
    input_tokens = input_ids.tolist()
    llm_pos_ids_list = []
    st = 0
    image_index = 0
    for _ in range(image_nums):
        ed = input_tokens.index(IMAGE, st)
        t, h, w = image_grid_thw[image_index]
        image_index += 1
        llm_grid_t, llm_grid_h, llm_grid_w = t, h // spatial_merge_size, w // spatial_merge_size
        text_len = ed - st
        st_idx = llm_pos_ids_list[-1].max() + 1 if llm_pos_ids_list else 0
        llm_pos_ids_list.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + st_idx)
        t_index = np.broadcast_to(np.arange(llm_grid_t)[:, None], (llm_grid_t, llm_grid_h * llm_grid_w)).flatten()
        h_index = np.broadcast_to(np.arange(llm_grid_h)[None, :, None], (llm_grid_t, llm_grid_h, llm_grid_w)).flatten()
        w_index = np.broadcast_to(np.arange(llm_grid_w)[None, None, :], (llm_grid_t, llm_grid_h, llm_grid_w)).flatten()
        llm_pos_ids_list.append(np.stack([t_index, h_index, w_index]) + text_len + st_idx)
        st = ed + llm_grid_t * llm_grid_h * llm_grid_w
    if st < len(input_tokens):
        st_idx = llm_pos_ids_list[-1].max() + 1 if llm_pos_ids_list else 0
        text_len = len(input_tokens) - st
        llm_pos_ids_list.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + st_idx)
    positions = np.concatenate(llm_pos_ids_list, axis=1)
    return positions, positions.max() + 1 - len(input_tokens)


def mrope(name, config, interleaved, samples):
    text = config.get("text_config", config)
    rope = text.get("rope_scaling") or text.get("rope_parameters") or {}
    section = rope.get("mrope_section", [24, 20, 20])
    merge = config.get("vision_config", {}).get("spatial_merge_size", 2)
    head_dim = text.get("head_dim") or text["hidden_size"] // text["num_attention_heads"]
    want_axes = (axes_interleaved if interleaved else axes_in_blocks)(section, head_dim)
    for sample in samples:
        before, h, w, after = sample
        extra = ["--mrope-sample", ",".join(map(str, sample))] if sample != (3, 6, 8, 2) else []
        report = report_of(f"{name}-{'-'.join(map(str, sample))}", config, *extra)
        m = report["mrope"]
        label = f"{name} ({before} text, {h} x {w} patches, {after} text)"
        check_exact(f"{label} axis per pair", [ord(c) for c in m["axes"]],
                    [ord(c) for c in want_axes])
        # The prompt as the processor builds it: text ending in <|vision_start|>, the image's
        # pads (one per merged token), <|vision_end|> and more text.
        pads = (h // merge) * (w // merge)
        ids = [TEXT] * (before - 1) + [VISION_START] + [IMAGE] * pads + [TEXT] * after
        positions, delta = get_rope_index(ids, [(1, h, w)], merge)
        check_exact(f"{label} t, h, w position ids", [m["sample"]["t"], m["sample"]["h"], m["sample"]["w"]],
                    positions)
        check_exact(f"{label} rope delta", [m["sample"]["rope_delta"]], [delta])


def main():
    deepseek("deepseek-v3")
    deepseek("deepseek-v2.5")
    llama4("llama-4-scout-17b-16e")
    llama4("llama-4-scout")
    samples = [(3, 6, 8, 2), (1, 2, 2, 1), (7, 28, 14, 5), (2, 4, 36, 0)]
    for name in ("qwen2-vl-7b", "qwen2.5-vl-7b"):
        mrope(name, load(name), False, samples)
    qwen3_vl = {
        "model_type": "qwen3_vl",
        "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 2048, "head_dim": 128,
                        "num_attention_heads": 16, "num_key_value_heads": 8,
                        "num_hidden_layers": 28, "max_position_embeddings": 262144,
                        "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20],
                                         "rope_type": "default"},
                        "rope_theta": 5000000},
        "vision_config": {"spatial_merge_size": 2},
    }
    mrope("qwen3-vl", qwen3_vl, True, samples[:2])
    TALLY.finish()


main()
