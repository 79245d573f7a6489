// What the language models (GPT-2, GPT-NeoX, Llama) share: telling which architecture a
// checkpoint or config.json holds, the next-token loss by position reduced from logits a block
// of the vocabulary at a time (so (T, V) never has to exist), the top-k of a row of logits, and
// what a RoPE model's forward pass is asked for and gives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "poslab/base/names.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/lm_layer_trace.hpp"
#include "poslab/models/lm_weights.hpp"
#include "poslab/models/position_surgery.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {

// Named as Hugging Face's model_type.
enum class LmArchitecture { kGpt2, kGptNeox, kLlama, kMistral, kQwen2, kQwen3, kGemma3, kSmolLm3 };
inline constexpr Named<LmArchitecture> kLmArchitectureNames[] = {
    {LmArchitecture::kGpt2, "gpt2"},          {LmArchitecture::kGptNeox, "gpt_neox"},
    {LmArchitecture::kLlama, "llama"},        {LmArchitecture::kMistral, "mistral"},
    {LmArchitecture::kQwen2, "qwen2"},        {LmArchitecture::kQwen3, "qwen3"},
    {LmArchitecture::kGemma3, "gemma3_text"}, {LmArchitecture::kSmolLm3, "smollm3"}};
// The architecture whose tensor names a checkpoint of `architecture` carries: the Llama family
// (mistral, qwen2, qwen3, gemma3_text, smollm3) ships Llama's names, so its checkpoints read as
// kLlama.
LmArchitecture lm_checkpoint_family(LmArchitecture architecture);
LmArchitecture parse_lm_architecture(const std::string& name);  // Error with field "arch"
const char* to_string(LmArchitecture architecture);

// config.json's "model_type": the architecture, nullopt when the key is absent; Error naming
// the key for another model_type or text that is not a JSON object. `name` labels errors.
std::optional<LmArchitecture> lm_architecture_of_config(const std::string& text,
                                                        const std::string& name);
// Read off the tensor names: gpt_neox.embed_in.weight → GPT-NeoX, wte.weight (optionally
// "transformer."-prefixed) → GPT-2, model.embed_tokens.weight → Llama; Error when none is
// there.
LmArchitecture lm_architecture_of_checkpoint(const SafetensorsHeader& header,
                                             const std::string& name);

// Next-token losses −log softmax(logits[t])[token t+1] for t in [0, T−1), from logits handed
// over a block of vocabulary columns at a time: per row a running maximum and a running sum
// of exp(logit − maximum) in double (the streaming log-sum-exp), and the target's logit when
// its column passes. Memory (T,), whatever V.
class NextTokenLoss {
 public:
  // tokens: T >= 2 ids, each in [0, vocab) (field "tokens").
  NextTokenLoss(const std::vector<long long>& tokens, std::size_t vocab);

  // block[t·ld + c] = logits[t, v0 + c] for rows t in [0, T−1) (a T-th row may be there and
  // is not read) and c in [0, n). Each column of the vocabulary must come exactly once.
  void add(const float* block, std::size_t ld, std::size_t v0, std::size_t n);
  // (T−1,) float32; throws unless every column came.
  TensorF losses() const;

 private:
  std::vector<std::size_t> targets_;  // (T−1,) token t+1
  std::vector<double> max_, sum_, target_logit_;
  std::size_t vocab_, columns_ = 0;
};

// The same from whole logits (T, V).
TensorF next_token_losses(const TensorF& logits, const std::vector<long long>& tokens);

// The k highest of one row of logits (ties by lower id) and their softmax probabilities,
// descending. k is clipped to V.
struct TopK {
  std::vector<std::int32_t> ids;
  std::vector<float> probs;
};
TopK top_k(const float* logits, std::size_t vocab, std::size_t k);

// The longest sequence a RoPE model's forward pass takes: where the core's RoPE angles stay
// within 1e-5 (ARCHITECTURE.md §4).
inline constexpr std::size_t kMaxRopeLmTokens = 65536;

// What a RoPE model's forward pass (GPT-NeoX, the Llama family) is asked for; each architecture
// names it its own way (GptNeoxOptions, LlamaOptions).
struct RopeLmOptions {
  Precision precision = Precision::kFloat;
  bool trace = false;             // per-layer attention maps and statistics
  bool logits = true;             // the (T, V) logits
  bool loss_by_position = false;  // −log softmax(logits[t])[token t+1], t in [0, T−1)
  long long top_k = 10;           // clipped to V
  // The rotation of q and k; the config's (config.rope()) when empty. For exploring the
  // scaling curves on a trained model.
  std::optional<RopeOptions> rope;
  // Token t at position offset + t: a RoPE model's logits do not change (up to rounding) unless
  // its scaling depends on the length (dynamic). The position lens's shift check.
  long long position_offset = 0;
  // Token t at positions[t] instead (T entries, any order, each in [0, 2^40]): the lens's
  // shuffled and constant positions. Not with a position_offset.
  std::vector<long long> positions;
  // With trace: each layer's pair_energy too (the position lens's RoPE frequency bands).
  bool pair_energy = false;
  // With trace: each layer's trace handed here as it is made; the result's `layers` stay empty.
  LmLayerVisitor on_layer;
  // Position surgery (position_surgery.hpp), applied inside the pass after the rotation above
  // is chosen; checked, with its field, before any work.
  PositionSurgery surgery;
  // Prefix reuse, for a sweep of interventions over one text: when not null, the residual
  // stream entering each layer and leaving the last (N + 1 tensors (T, E)) is stored here...
  std::vector<TensorF>* layer_inputs = nullptr;
  // ...and when not null, the pass starts at first_changed_layer(surgery) from these: an
  // unmodified pass's layer_inputs over the same tokens, options and positions (not traced).
  const std::vector<TensorF>* reuse_inputs = nullptr;
};

// What it gives (GptNeoxResult, LlamaResult).
struct RopeLmResult {
  TensorF logits;                     // (T, V) when options.logits
  TensorF losses;                     // (T−1,) when options.loss_by_position
  std::vector<LmLayerTrace> layers;   // N entries when traced (lm_layer_trace.hpp)
  std::vector<std::int32_t> top_ids;  // (k,) most likely next tokens after the last position
  std::vector<float> top_probs;       // (k,) their softmax probabilities, descending
};

}  // namespace poslab
