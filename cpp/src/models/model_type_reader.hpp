// config.json read against its model type's row (poslab/models/model_types.hpp): the one
// reading of the keys whose defaults and rules differ by model type, shared by the
// language-model runtime (llama_config.cpp) and the RoPE inspector (rope_config.cpp). Each
// reader checks what it alone needs on top (the runtime: the layer kinds it computes; the
// inspector: its caps, and which keys no rule read).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "poslab/models/model_types.hpp"

namespace poslab {

// Each layer's attention and rotation, as config.json and its model type say. N layers.
struct LayerPlan {
  // (N,): "full_attention", "sliding_attention", "chunked_attention", or layer_types' own word.
  std::vector<std::string> kinds;
  std::vector<bool> rope;  // (N,) false: a NoPE layer
  long long window = 0;    // the sliding layers' window; 0: null (none)
  long long chunk = 0;     // the chunked layers' span; 0: none
};

class ModelTypeReader {
 public:
  // `json`: the config object (it must outlive the reader); `where` labels errors.
  ModelTypeReader(const ModelType& type, const nlohmann::json& json, std::string where);

  // A size with the row's default for the inspector (`fallback`, 0: required): present, a
  // positive integer.
  long long size(const char* key, long long fallback);
  // Absent: the row's, else H; null: H.
  long long kv_heads(long long heads);
  // head_dim; 0 for E/H (null, or absent without a default).
  long long explicit_head_dim();
  // max_position_embeddings; 0 when absent without a default.
  long long context();
  // rope_theta and the rotated fraction; `given` > 0: what rope_parameters says instead (the
  // keys are still checked, no default said).
  double rope_theta(double given = 0.0);
  double rotary_fraction(double given = 0.0);
  double local_base();  // rope_local_base_freq (rows with a local base)
  LayerPlan layers(std::size_t n);

  // Every key looked at, present or not (the type's own spellings: string literals).
  const std::vector<const char*>& read() const { return read_; }
  // ("key", "value") for each absent key whose value came from the row, in reading order.
  const std::vector<std::pair<std::string, std::string>>& defaulted() const { return defaulted_; }

 private:
  // The value of `key`, or nullptr when absent; null counts as absent when `null_absent`.
  const nlohmann::json* value(const char* key, bool null_absent = true);
  long long positive(const char* key);
  double aliased_number(const char* key, const char* alias, double fallback, double given,
                        bool say);
  void defaulted(const std::string& key, std::string value);

  const ModelType& type_;
  const nlohmann::json& json_;
  std::string where_;
  std::vector<const char*> read_;
  std::vector<std::pair<std::string, std::string>> defaulted_;
};

}  // namespace poslab
