// The sizes every decoder-only language model of the family has, one struct that each
// architecture's config holds (GPT-2's, GPT-NeoX's, Llama's) so the code
// that reads, checks and shows them is written once. config.json spells them the
// architecture's own way (GPT-2's n_embd is GPT-NeoX's hidden_size): LmDimKeys carries those
// spellings, which the config's reading and writing, its error messages and the wasm config
// object keep.
#pragma once

namespace poslab {

struct LmDims {
  long long vocab_size = 0;  // V
  long long context = 0;     // P: the trained context (GPT-2's wpe rows, RoPE scalings' N)
  long long width = 0;       // E: the residual stream
  long long layers = 0;      // N
  long long heads = 0;       // H, which divides E
  long long head_dim() const { return width / heads; }
};

// An architecture's config.json key for each LmDims field.
struct LmDimKeys {
  const char* vocab_size;
  const char* context;
  const char* width;
  const char* layers;
  const char* heads;
};

// The keys transformers' newer configs share (GPT-NeoX, the Llama family).
inline constexpr LmDimKeys kHiddenSizeDimKeys{"vocab_size", "max_position_embeddings",
                                              "hidden_size", "num_hidden_layers",
                                              "num_attention_heads"};

}  // namespace poslab
