// One streamed .safetensors loader for every language-model architecture. An architecture
// describes its checkpoint (LmTensorLayout: every tensor's name, where it lives in the weights,
// the shape its config gives and its random init; a prefix the names may carry; the buffers
// some checkpoints save that are not weights) and LmLoader<Weights> streams a file into it:
// every name, shape and dtype is checked before the first weight is allocated, and a file
// that stops short is refused naming the tensor it stopped in. Random init, the named-tensor
// list and the shape check read the same description.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/io/safetensors_index.hpp"
#include "poslab/io/stored_tensor.hpp"

namespace poslab {

// One tensor of a model.
struct LmTensor {
  std::string name;                         // in the checkpoint, without the layout's prefix
  StoredTensor* tensor;                     // where it lives in the weights
  Shape shape;                              // in the checkpoint, as the config gives it
  enum Init { kNormal, kZero, kOne } init;  // random init: N(0, 0.02²), 0, 1
  // Held in memory as the transpose of the checkpoint's 2-D shape (a Conv1D weight, stored
  // (in, out), is held (out, in) as every other linear layer's).
  bool transposed = false;

  Shape held_shape() const { return transposed ? Shape{shape.at(1), shape.at(0)} : shape; }
};

// How an lm_tensor_layout(Weights&, LmLayers) overload treats the weights' layer list: kSize
// sizes it to the config's count (fresh weights); kRequire refuses a list of another size and
// changes nothing (weights to read or check, reached through a const_cast).
enum class LmLayers { kSize, kRequire };

// An architecture's checkpoint, made by its lm_tensor_layout(Weights&, LmLayers) overload from
// a validated config.
struct LmTensorLayout {
  std::string model;       // "GPT-2": labels the weight checks' messages
  std::string layers_key;  // the config's layer count ("n_layer") and its value
  long long layers = 0;
  // A prefix the checkpoint may put on every name ("transformer."; empty for none): taken
  // when the checkpoint holds the first tensor under it, and then every tensor must carry it.
  std::string prefix;
  std::vector<LmTensor> tensors;  // in checkpoint order
  // Names (without the prefix) of buffers some checkpoints save that are not weights: skipped.
  std::function<bool(const std::string&)> ignored;
  // How the checkpoint stores a linear layer's weight: Hugging Face's Conv1D (GPT-2) as
  // (in, out), torch's Linear as (out, in). Memory holds (out, in) either way: with the
  // output's weights contiguous, a short prompt's product streams each weight once, in order.
  enum Linear { kInOut, kOutIn } linear = kOutIn;
  // The config's sizes the shapes come from ("hidden_size 576, head_dim 64, ..."), so a
  // shape refusal names the key to check; empty: the messages name none.
  std::string sizes;
};

// The pieces every layout repeats, appended to layout.tensors in checkpoint order (as
// web/src/lm/shapes.js's LAYER_NORM and linear(in, out)): a matrix or embedding (N(0, 0.02²)
// at init); a norm's "<name>.weight" gain (1) and "<name>.bias" (0), both (width,); a linear
// layer's "<name>.weight", stored as layout.linear says, and "<name>.bias" (out,).
void add_matrix(LmTensorLayout& layout, const std::string& name, StoredTensor& tensor, Shape shape);
void add_norm(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
              StoredTensor& bias, std::size_t width);
void add_linear(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
                StoredTensor& bias, std::size_t in, std::size_t out);
// The same without a bias (Llama's projections), and an RMSNorm's lone "<name>.weight" gain
// (width,), 1 at init.
void add_linear(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
                std::size_t in, std::size_t out);
void add_gain(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
              std::size_t width);

// "a GPT-2 with n_layer 12": what an unexpected name is not part of.
std::string lm_layers_note(const LmTensorLayout& layout);
// Whether the checkpoint's names carry layout.prefix: `has(name)` says whether it holds a name,
// asked of the prefixed first tensor.
bool lm_uses_prefix(const LmTensorLayout& layout,
                    const std::function<bool(const std::string&)>& has);

// An architecture's layer list (`noun`: "blocks", "layers"), sized or checked against
// layout.layers as `mode` says.
template <class Layer>
std::vector<Layer>& lm_layer_list(std::vector<Layer>& list, const LmTensorLayout& layout,
                                  LmLayers mode, const char* noun) {
  if (mode == LmLayers::kSize) list.resize(std::size_t(layout.layers));
  require(list.size() == std::size_t(layout.layers),
          layout.model + " weights have " + std::to_string(list.size()) + " " + noun +
              ", the config says " + layout.layers_key + " " + std::to_string(layout.layers));
  return list;
}

// Throws unless every tensor of the layout is held in the shape its config asks for.
void check_lm_tensors(const LmTensorLayout& layout);

// Every tensor with its checkpoint name, in checkpoint order and as the checkpoint stores it
// (what encode_safetensors writes): pointers into the weights, or, for a tensor held
// transposed, into a copy in the checkpoint's layout that this list owns. Use it while it
// lives; a copy of the base vector does not keep those copies.
class LmCheckpointTensors : public std::vector<std::pair<std::string, const StoredTensor*>> {
 public:
  explicit LmCheckpointTensors(const LmTensorLayout& layout);

 private:
  std::vector<std::unique_ptr<StoredTensor>> copies_;
};
inline LmCheckpointTensors lm_named_tensors(const LmTensorLayout& layout) {
  return LmCheckpointTensors(layout);
}
// Every tensor as memory holds it (no copies), in checkpoint order: for dtypes and sizes.
std::vector<std::pair<std::string, const StoredTensor*>> lm_held_tensors(
    const LmTensorLayout& layout);
// Allocates every tensor as float32 and fills it: matrices and embeddings N(0, 0.02²) from
// poslab::Rng(seed), biases 0, norm gains 1. Values are drawn in checkpoint order, so a seed
// gives the same checkpoint whatever layout memory holds.
void lm_random_init(const LmTensorLayout& layout, std::uint64_t seed);

// The same for an architecture's weights (Gpt2Weights, GptNeoxWeights: a struct with a
// validated `config` and an lm_tensor_layout overload), by its layout.
template <class Weights>
LmTensorLayout lm_layout_of(const Weights& weights) {
  weights.config.validate();
  // kRequire only reads the config and takes addresses.
  return lm_tensor_layout(const_cast<Weights&>(weights), LmLayers::kRequire);
}
// Throws unless the weights have the config's layers and every tensor its shape.
template <class Weights>
void check_lm_weights(const Weights& weights) {
  check_lm_tensors(lm_layout_of(weights));
}
// Every tensor with its checkpoint name, in checkpoint order and layout (checked first):
// LmCheckpointTensors, pointing into `weights` or its own copies.
template <class Weights>
LmCheckpointTensors lm_named_tensors(const Weights& weights) {
  const LmTensorLayout layout = lm_layout_of(weights);
  check_lm_tensors(layout);
  return lm_named_tensors(layout);
}
// Every tensor as memory holds it, with its checkpoint name (checked first).
template <class Weights>
std::vector<std::pair<std::string, const StoredTensor*>> lm_held_tensors(const Weights& weights) {
  const LmTensorLayout layout = lm_layout_of(weights);
  check_lm_tensors(layout);
  return lm_held_tensors(layout);
}
// Bytes the weights occupy in memory.
template <class Weights>
std::uint64_t lm_weight_bytes(const Weights& weights) {
  std::uint64_t total = 0;
  for (const auto& entry : lm_held_tensors(weights)) total += entry.second->bytes();
  return total;
}
// Weights for a config (Config::Weights) with no tensor allocated, the layers sized.
template <class Config>
typename Config::Weights lm_empty_weights(const Config& config) {
  config.validate();
  typename Config::Weights weights;
  weights.config = config;
  lm_tensor_layout(weights, LmLayers::kSize);
  return weights;
}
// Seeded random init (lm_random_init) of a config's weights.
template <class Config>
typename Config::Weights lm_random_weights(const Config& config, std::uint64_t seed = 0) {
  typename Config::Weights weights = lm_empty_weights(config);
  lm_random_init(lm_tensor_layout(weights, LmLayers::kRequire), seed);
  return weights;
}

// The header of a .safetensors file (the first 8 + N bytes only), checked as
// parse_safetensors_header checks it. Errors name `path`.
SafetensorsHeader read_safetensors_header(const std::string& path);
// The folder of an index's shards, as a prefix for their names ("dir/", or "" beside it).
std::string lm_shard_directory(const std::string& index_path);
// The data buffer of the file at `path` (after `header`), handed to `append` in chunks of
// 8 MiB: the file is never held whole. Errors name `path`.
void stream_safetensors_data(const std::string& path, const SafetensorsHeader& header,
                             const std::function<void(const char*, std::size_t)>& append);

// The data buffer of a .safetensors file delivered as a stream of bytes, filling the tensors
// of a layout. Construction checks the header against the layout (every name, shape and dtype;
// errors name the tensor) and only then allocates each tensor in its stored dtype, which it
// keeps.
class LmWeightStream {
 public:
  LmWeightStream(const SafetensorsHeader& header, const LmTensorLayout& layout, std::string name);
  // One shard of a sharded checkpoint: `layout` holds the tensors the index puts in this file,
  // and `prefixed` says whether the checkpoint's names carry layout.prefix (decided from the
  // whole index: a shard may not hold the first tensor).
  LmWeightStream(const SafetensorsHeader& header, const LmTensorLayout& layout, std::string name,
                 bool prefixed);
  // The constructor's checks alone, allocating nothing: a sharded load checks every shard
  // before it allocates the first tensor.
  static void check(const SafetensorsHeader& header, const LmTensorLayout& layout,
                    const std::string& name, bool prefixed);

  // The file's bytes after the header, in order: the next `n` bytes of the data buffer.
  void append(const char* bytes, std::size_t n);
  // Bytes of the data buffer received so far, and in all (the file size − header).
  std::uint64_t received() const { return received_; }
  std::uint64_t expected() const { return expected_; }
  // Throws unless every tensor is complete (naming the first one that is not) and finite;
  // once: append and finish refuse after that.
  void finish();

 private:
  struct Target {
    std::uint64_t begin, end;  // in the data buffer
    StoredTensor* tensor;      // null for a skipped buffer
    std::string name;
    bool transposed;  // held as its transpose: turned once complete
  };
  struct Match {
    const SafetensorsEntry* entry;
    const LmTensor* slot;  // null: a buffer the layout ignores
  };
  // Every header entry against the layout: the checks of both constructors and check().
  static std::vector<Match> match(const SafetensorsHeader& header, const LmTensorLayout& layout,
                                  const std::string& name, bool prefixed);

  std::vector<Target> targets_;  // by begin
  std::size_t next_ = 0;         // the first target not yet complete
  std::uint64_t received_ = 0, expected_ = 0;
  std::string name_;
  bool finished_ = false;
};

// A checkpoint's data buffers streamed into a layout's tensors, file after file: one
// .safetensors file, or the shards of a sharded checkpoint in the order its index first names
// them. Construction checks every file's header against the layout before the first tensor is
// allocated: with an index, each tensor in the shard the index names for it, every name the
// index lists part of the model, and the index itself before any shard's header is asked for.
class LmCheckpointStream {
 public:
  LmCheckpointStream(const SafetensorsHeader& header, const LmTensorLayout& layout,
                     std::string name);
  // `shard_header(file)`: the label errors use for that shard and its header.
  using ShardHeader = std::function<std::pair<std::string, SafetensorsHeader>(const std::string&)>;
  LmCheckpointStream(const SafetensorsIndex& index, const std::string& index_name,
                     const ShardHeader& shard_header, const LmTensorLayout& layout);

  // The current file's bytes after its header, in order.
  void append(const char* bytes, std::size_t n) { files_[current_]->append(bytes, n); }
  // The current file is complete (else throws, naming the tensor it stopped in): the next
  // appended bytes belong to the next file.
  void next_file();
  // Data bytes received so far, and in all, over every file.
  std::uint64_t received() const;
  std::uint64_t expected() const;
  std::size_t files() const { return files_.size(); }
  // Throws unless the last file is current and every file complete and finite.
  void finish();

 private:
  std::vector<std::unique_ptr<LmWeightStream>> files_;  // a stream holds pointers: never moved
  std::size_t current_ = 0;
  std::string name_;
};

// Builds an architecture's weights (Gpt2Weights, GptNeoxWeights: a struct with a `config`
// and an lm_tensor_layout overload) from a .safetensors checkpoint delivered as a stream of
// bytes (a file read in chunks natively, or a browser File in the worker), never holding the
// file whole. `name` labels errors. Holds pointers into its own weights: not copied or moved.
template <class Weights>
class LmLoader {
 public:
  using Config = decltype(Weights::config);

  LmLoader(const SafetensorsHeader& header, const Config& config, std::string name)
      : weights_(lm_empty_weights(config)),
        stream_(header, lm_tensor_layout(weights_, LmLayers::kRequire), std::move(name)) {}
  // A sharded checkpoint: its index and each shard's header (LmCheckpointStream).
  LmLoader(const SafetensorsIndex& index, const std::string& index_name,
           const LmCheckpointStream::ShardHeader& shard_header, const Config& config)
      : weights_(lm_empty_weights(config)),
        stream_(index, index_name, shard_header, lm_tensor_layout(weights_, LmLayers::kRequire)) {}
  LmLoader(const LmLoader&) = delete;
  LmLoader& operator=(const LmLoader&) = delete;

  void append(const char* bytes, std::size_t n) { stream_.append(bytes, n); }
  void next_file() { stream_.next_file(); }
  std::uint64_t received() const { return stream_.received(); }
  std::uint64_t expected() const { return stream_.expected(); }
  // Throws unless every tensor is complete and finite; then hands the weights over (once).
  Weights finish() {
    stream_.finish();
    return std::move(weights_);
  }

 private:
  Weights weights_;
  LmCheckpointStream stream_;
};

// The whole checkpoint from bytes in memory / from the file at `path`, via LmLoader;
// `config_of(header)` gives the config.
template <class Weights, class ConfigOf>
Weights lm_weights_from_bytes(const std::string& bytes, const ConfigOf& config_of,
                              const std::string& name) {
  const std::uint64_t length = safetensors_header_length(bytes, bytes.size(), name);
  const SafetensorsHeader header = parse_safetensors_header(bytes, bytes.size(), name);
  LmLoader<Weights> loader(header, config_of(header), name);
  loader.append(bytes.data() + 8 + length, bytes.size() - 8 - length);
  return loader.finish();
}
template <class Weights, class ConfigOf>
Weights load_lm_weights(const std::string& path, const ConfigOf& config_of) {
  require(!is_safetensors_index(path),
          path +
              ": a sharded checkpoint is read with its config.json (GPT-NeoX and the Llama "
              "family); give a single .safetensors file here");
  const SafetensorsHeader header = read_safetensors_header(path);
  LmLoader<Weights> loader(header, config_of(header), path);
  stream_safetensors_data(path, header, [&](const char* b, std::size_t n) { loader.append(b, n); });
  return loader.finish();
}

// The same for an architecture whose checkpoint does not say its config (GPT-NeoX has no head
// count or rotary settings in the file, Llama no norm epsilon or rope_theta): the config is
// given and validated before the file is read.
template <class Config>
typename Config::Weights lm_weights_from_bytes(const std::string& bytes, const Config& config,
                                               const std::string& name) {
  config.validate();
  return lm_weights_from_bytes<typename Config::Weights>(
      bytes, [&](const SafetensorsHeader&) { return config; }, name);
}

// A sharded checkpoint: `index_path` (model.safetensors.index.json) and the shards beside it,
// read by LmLoader's sharded constructor (LmCheckpointStream's checks), then streamed into the
// weights one shard after another.
template <class Weights>
Weights load_lm_shards(const std::string& index_path, const decltype(Weights::config)& config) {
  const SafetensorsIndex index = read_safetensors_index(index_path);
  const std::string dir = lm_shard_directory(index_path);
  std::vector<SafetensorsHeader> headers;  // in index.shards order, as the loader asks
  LmLoader<Weights> loader(
      index, index_path,
      [&](const std::string& shard) {
        headers.push_back(read_safetensors_header(dir + shard));
        return std::make_pair(dir + shard, headers.back());
      },
      config);
  for (std::size_t k = 0; k < index.shards.size(); ++k) {
    stream_safetensors_data(dir + index.shards[k], headers[k],
                            [&](const char* b, std::size_t n) { loader.append(b, n); });
    if (k + 1 < index.shards.size()) loader.next_file();
  }
  return loader.finish();
}

// The file at `path`, or the shards an index names when `path` ends in ".index.json".
template <class Config>
typename Config::Weights load_lm_weights(const std::string& path, const Config& config) {
  config.validate();
  if (is_safetensors_index(path)) {
    return load_lm_shards<typename Config::Weights>(path, config);
  }
  return load_lm_weights<typename Config::Weights>(
      path, [&](const SafetensorsHeader&) { return config; });
}

}  // namespace poslab
