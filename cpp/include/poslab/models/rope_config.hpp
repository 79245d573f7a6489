// The RoPE inspector: any model's position scheme read off its config.json, without weights.
// Per layer: RoPE (which base), NoPE, and the attention span (full, sliding window, chunk);
// per RoPE base: θ_i and the wavelength 2π/θ_i per pair before and after the config's
// rope_scaling, which pairs complete a rotation inside the trained context (those NTK-by-parts,
// YaRN and llama3 leave alone), the attention factor and the context the scaling reaches.
// Semantics follow Hugging Face transformers' configs and modeling_rope_utils.py; the keys the
// inspector does not read are listed, not refused. Unlike running a model, an unknown
// model_type is inspected with transformers' generic defaults.
#pragma once

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

struct RopeConfigReport {
  std::string model_type;    // as the config says ("" when it has none)
  bool text_config = false;  // read from a multimodal config's text_config
  long long head_dim = 0;    // explicit, or hidden_size / num_attention_heads
  long long heads = 0, kv_heads = 0;
  long long max_position_embeddings = 0;
  std::vector<RopeScheme> schemes;
  std::vector<RopeLayer> layers;          // (num_hidden_layers,)
  std::vector<std::string> notes;         // defaults applied, semantics worth knowing
  std::vector<std::string> ignored_keys;  // keys read by neither the inspector nor any rule
};

// Reads config.json's text (the object, or its text_config). Throws Error (field "config") for
// text that is not a JSON object, a missing or non-positive size, an odd rotary dim, a
// rope_scaling it cannot compute (unknown type, factor <= 0, longrope lists of the wrong
// length), or layer lists of the wrong length. `name` labels the messages.
RopeConfigReport inspect_rope_config(const std::string& json_text,
                                     const std::string& name = "config.json");

// The report as JSON (snake_case keys as above, wavelengths added), what `poslab rope-config`
// writes and the page reads.
std::string rope_config_report_json(const RopeConfigReport& report);

}  // namespace poslab
