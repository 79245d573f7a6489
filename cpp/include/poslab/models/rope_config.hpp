// The RoPE inspector: any model's position scheme read off its config.json, without weights.
// Per layer: RoPE (which base), NoPE, and the attention span (full, sliding window, chunk);
// per RoPE base: θ_i and the wavelength 2π/θ_i per pair before and after the config's
// rope_scaling, which pairs complete a rotation inside the trained context (those NTK-by-parts,
// YaRN and llama3 leave alone), the attention factor and the context the scaling reaches.
// Semantics follow Hugging Face transformers' configs and modeling_rope_utils.py; the keys the
// inspector does not read are listed, not refused. Unlike running a model, an unknown
// model_type is inspected with transformers' generic defaults.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace poslab {

// One RoPE base as the config sets it (Gemma 3 has two: global layers and local ones).
struct RopeScheme {
  std::string name;                  // "rope"; Gemma 3: "global", "local"
  double base = 0.0;                 // θ = base^(−2i/R)
  std::string scaling = "none";      // none, linear, dynamic, yarn, llama3, longrope
  double factor = 1.0;               // the scaling's factor (longrope: the context ratio)
  long long rotary_dim = 0;          // R = int(head_dim · partial_rotary_factor)
  long long trained_context = 0;     // N: the context the unscaled rotation was trained on
  std::string trained_context_from;  // the key N came from
  long long reaches = 0;             // N · factor (longrope: max_position_embeddings)
  long long max_distance = 0;  // the largest query−key distance its layers see: window − 1 on
                               // sliding and chunked layers, reaches − 1 on full ones
  double attention_factor = 1.0;        // multiplies cos and sin (YaRN, longrope)
  std::vector<double> inv_freq;         // θ_i before scaling, (R/2,)
  std::vector<double> inv_freq_scaled;  // after it (longrope: the short factors, ≤ N)
  std::vector<double> inv_freq_long;    // longrope's long factors (> N); empty otherwise
  long long rotating_pairs = 0;         // pairs 0..k−1 whose unscaled wavelength 2π/θ_i ≤ N
};

struct RopeLayer {
  std::string attention = "full";  // full, sliding, chunked
  long long window = 0;            // sliding window or chunk size; 0 for full
  int scheme = 0;                  // index into schemes; −1: NoPE (no rotation on this layer)
};

// DeepSeek-V2/V3's multi-head latent attention (modeling_deepseek_v3.py): each head's query
// and key are qk_nope_head_dim unrotated dims followed by qk_rope_head_dim rotated ones (the
// schemes' R); keys and values come up from a kv_lora_rank latent, queries from a q_lora_rank
// one (0: projected directly). The softmax multiplies q·k by qk_head_dim^(-1/2) · m², with
// m = 0.1 · mscale_all_dim · ln(factor) + 1 (1 without mscale_all_dim or a scaling), while the
// rotation's cos and sin carry the scheme's attention factor; the two are apart.
struct RopeMla {
  long long q_lora_rank = 0, kv_lora_rank = 0;
  long long qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  long long qk_head_dim = 0;    // nope + rope
  bool interleaved = true;      // rope_interleave: pair i is dims (2i, 2i+1) of the rotated part
  double mscale_all_dim = 0.0;  // rope_scaling's; 0 when absent
  double softmax_mscale = 1.0;  // m
  double softmax_scale = 0.0;   // qk_head_dim^(-1/2) · m²
};

// Llama 4's attention temperature (modeling_llama4.py): a NoPE layer multiplies the query at
// position p by 1 + attn_scale · ln(1 + floor((p + 1) / floor_scale)). The curve is sampled at
// the first position of each step up to max_position_embeddings − 1 (at most 257 points).
struct RopeTemperature {
  double floor_scale = 0.0, attn_scale = 0.0;
  std::vector<long long> positions;
  std::vector<double> scales;
};

// The sample prompt whose M-RoPE positions the report gives: text, one image of
// image_h × image_w patches (image_grid_thw's, before the spatial merge), more text.
struct RopeSample {
  long long text_before = 3, image_h = 6, image_w = 8, text_after = 2;
};

// Multimodal RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): mrope_section gives the pairs of the
// time, height and width positions; in blocks (apply_multimodal_rotary_pos_emb) or, Qwen3-VL,
// interleaved (apply_interleaved_mrope: t h w t h w …). The sample's three position ids are
// get_rope_index's.
struct RopeMrope {
  std::vector<long long> section;  // (3,)
  bool interleaved = false;
  std::string axes;     // (R/2,): 't', 'h' or 'w' per pair
  long long merge = 2;  // vision_config.spatial_merge_size
  RopeSample sample;
  std::string tokens;              // 'T' text, 'I' image, per token of the sample
  std::vector<long long> t, h, w;  // per token
  long long delta = 0;             // rope delta: the largest id + 1 − the token count
};

struct RopeConfigReport {
  std::string model_type;    // as the config says ("" when it has none)
  bool text_config = false;  // read from a multimodal config's text_config
  long long head_dim = 0;    // explicit, or hidden_size / num_attention_heads (MLA: qk_head_dim)
  long long heads = 0, kv_heads = 0;
  long long max_position_embeddings = 0;
  std::vector<RopeScheme> schemes;
  std::vector<RopeLayer> layers;  // (num_hidden_layers,)
  std::optional<RopeMla> mla;
  std::optional<RopeTemperature> temperature;
  std::optional<RopeMrope> mrope;
  std::vector<std::string> notes;         // defaults applied, keys not modelled, semantics to know
  std::vector<std::string> ignored_keys;  // keys read by neither the inspector nor any rule
};

// Reads config.json's text (the object, or its text_config). Throws Error (field "config") for
// text that is not a JSON object, a missing or non-positive size, an odd rotary dim, a
// rope_scaling it cannot compute (unknown type, factor <= 0, longrope lists of the wrong
// length), layer lists of the wrong length, or an mrope_section that does not fit the pairs.
// `name` labels the messages; `sample` is the M-RoPE prompt (when the config has M-RoPE).
RopeConfigReport inspect_rope_config(const std::string& json_text,
                                     const std::string& name = "config.json",
                                     const RopeSample& sample = {});

// The report as JSON (snake_case keys as above, wavelengths added), what `poslab rope-config`
// writes and the page reads.
std::string rope_config_report_json(const RopeConfigReport& report);

}  // namespace poslab
