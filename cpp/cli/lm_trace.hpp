// What the language-model commands (`poslab lm`, `poslab gpt2`) share after the forward pass:
// the checks of -o and --trace before anything is read, and one writer of the output (logits
// or losses) and the trace directory, one .npy per traced tensor plus index.json naming each
// file, its shape, dtype and meaning, for any architecture (every layer trace carries the same
// fields: attention, the two LayerNorms' statistics and the residual norms).
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "poslab/base/tensor.hpp"

namespace poslab::cli {

// A forward pass's trace with every per-layer (T,) vector stacked into (N, T).
struct LmTrace {
  std::vector<const TensorF*> attention;  // (H, T, T) per layer
  TensorF ln_1_mean, ln_1_variance, ln_2_mean, ln_2_variance;
  TensorF resid_attn_norm, resid_mlp_norm;
  std::vector<std::int32_t> top_ids;  // (k,) after the last position
  std::vector<float> top_probs;
};

// Stacks per-layer (T,) vectors into (N, T).
template <class Layer>
TensorF stack_layers(const std::vector<Layer>& layers, TensorF Layer::*field) {
  const std::size_t N = layers.size(), T = (layers.front().*field).size();
  TensorF out({N, T}, "trace (N, T)");
  for (std::size_t i = 0; i < N; ++i) {
    std::copy((layers[i].*field).data.begin(), (layers[i].*field).data.end(),
              out.data.begin() + i * T);
  }
  return out;
}

// The trace of a forward pass's result (Gpt2Result, GptNeoxResult: layers, top_ids,
// top_probs), pointing into it; empty when the pass ran without a trace.
template <class Result>
LmTrace lm_trace(const Result& result) {
  using Layer = typename decltype(result.layers)::value_type;
  LmTrace t;
  if (result.layers.empty()) return t;
  for (const Layer& layer : result.layers) t.attention.push_back(&layer.attention);
  t.ln_1_mean = stack_layers(result.layers, &Layer::ln_1_mean);
  t.ln_1_variance = stack_layers(result.layers, &Layer::ln_1_variance);
  t.ln_2_mean = stack_layers(result.layers, &Layer::ln_2_mean);
  t.ln_2_variance = stack_layers(result.layers, &Layer::ln_2_variance);
  t.resid_attn_norm = stack_layers(result.layers, &Layer::resid_attn_norm);
  t.resid_mlp_norm = stack_layers(result.layers, &Layer::resid_mlp_norm);
  t.top_ids = result.top_ids;
  t.top_probs = result.top_probs;
  return t;
}

// Refuses (before the forward pass) a --trace whose attention weights, every layer's (H, T, T)
// kept until written, would pass the limit (POSLAB_TRACE_MEMORY_LIMIT, 4 GiB by default),
// naming T and the options; nothing to check without --trace.
void check_trace_memory(const std::string& trace, long long layers, long long heads,
                        std::size_t tokens);

// The options that ask for the trace: --top-k (how many next tokens it lists) and --trace DIR.
void add_lm_trace_options(CLI::App* cmd, long long& top_k, std::string& trace);

// Before any work: -o and --trace name different paths, -o can be written, and --trace is a
// directory or not there yet (it is created only when every output is written).
void check_lm_outputs(const std::string& out, const std::string& trace);

// Writes `output` to `out` and, when `trace_dir` is given, the trace's files and index.json
// (`index` with the list of tensors added) into that directory: all or nothing.
void write_lm_outputs(const std::string& out, const TensorF& output, const std::string& trace_dir,
                      nlohmann::json index, const LmTrace& trace);

}  // namespace poslab::cli
