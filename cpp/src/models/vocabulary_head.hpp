// The vocabulary head of the RoPE language models (GPT-NeoX, the Llama family): the final
// hidden states (T, E) against a (V, E) matrix (an untied head or the tied embedding) a panel
// of vocabulary columns at a time, so that long sequences never form (T, V) when only the
// losses are asked for; and the size checks of what a forward pass will allocate.
#pragma once

#include <cstdint>
#include <vector>

#include "poslab/base/precision.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/stored_tensor.hpp"
#include "poslab/models/lm.hpp"

namespace poslab::model {

struct VocabularyOutputs {
  TensorF logits;  // (T, V) when asked for
  TensorF losses;  // (T−1,) when asked for
  TopK top;        // after the last position
};

// final_x (T, E) · matrixᵀ, matrix (V, E): the logits when `logits`, the next-token losses
// (NextTokenLoss) when `loss_by_position`, and the top_k of the last row in any case (with
// neither, only that row is computed).
VocabularyOutputs vocabulary_head(const TensorF& final_x, const StoredTensor& matrix,
                                  const std::vector<long long>& tokens, Precision precision,
                                  bool logits, bool loss_by_position, long long top_k);

// The same into a RoPE model's result, as `options` asks (logits, losses, top_k).
void vocabulary_head_into(RopeLmResult& result, const TensorF& final_x, const StoredTensor& matrix,
                          const std::vector<long long>& tokens, const RopeLmOptions& options);

// The (T, V) logits and the (N, H, T, T) trace against the element cap, before any work, the
// refusals saying what to ask for instead (fields "tokens" and "trace").
void check_output_sizes(std::size_t T, std::size_t V, std::size_t N, std::size_t H, bool logits,
                        bool trace);

}  // namespace poslab::model
