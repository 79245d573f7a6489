// What the language-model tests (gpt2_test.cpp, gpt_neox_test.cpp) share, for any architecture
// the one loader serves (LmLoader<Weights>, lm_weights.hpp): checkpoints encoded from named
// tensors and the values such a checkpoint holds, temporary files, the refusal check, and the
// streamed loader's contract (the same weights whatever the chunk size, a short stream refused
// naming the tensor it stopped in, a long one refused, the weights handed over once).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/lm_weights.hpp"

namespace lm_fixture {

// A .safetensors file of the tensors, each name prefixed, stored as `dtype`.
inline std::string encode(const std::map<std::string, poslab::TensorF>& tensors,
                          const std::string& prefix = "",
                          poslab::StoredDType dtype = poslab::StoredDType::kF32) {
  std::vector<std::pair<std::string, const poslab::TensorF*>> list;
  for (const auto& [name, tensor] : tensors) list.emplace_back(prefix + name, &tensor);
  return poslab::encode_safetensors(list, dtype);
}

// The tensors as a checkpoint of `dtype` holds them: F16 and BF16 round each value to nearest
// even (what the loader reads back, exactly: widening is exact).
inline std::map<std::string, poslab::TensorF> as_stored(
    std::map<std::string, poslab::TensorF> tensors, poslab::StoredDType dtype) {
  for (auto& [name, tensor] : tensors) {
    for (float& v : tensor.data) {
      if (dtype == poslab::StoredDType::kF16) v = poslab::half_to_float(poslab::float_to_half(v));
      if (dtype == poslab::StoredDType::kBF16) {
        v = poslab::bfloat16_to_float(poslab::float_to_bfloat16(v));
      }
    }
  }
  return tensors;
}

// The bytes written to a fresh file under the test's temporary directory; its path.
inline std::string temp_file(const std::string& bytes) {
  static int counter = 0;
  const std::string path = ::testing::TempDir() + "poslab-lm-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++) + ".safetensors";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// `load(path)` on a file of the bytes must throw a poslab::Error containing `fragment`.
template <class Load>
void expect_load_refused(const std::string& bytes, const std::string& fragment, const Load& load) {
  const std::string path = temp_file(bytes);
  try {
    load(path);
    ADD_FAILURE() << "accepted; expected an error naming " << fragment;
  } catch (const poslab::Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// Each (config.json text, fragment), and text that is not JSON or not an object:
// Config::from_json must throw a poslab::Error whose message contains the fragment.
template <class Config>
void expect_configs_refused(std::vector<std::pair<std::string, std::string>> cases) {
  cases.insert(cases.begin(), {{"not json", "not valid JSON"}, {"[]", "JSON object"}});
  for (const auto& [text, fragment] : cases) {
    try {
      Config::from_json(text, "config.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const poslab::Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
}

// Every tensor's stored values, in checkpoint order.
template <class Weights>
std::vector<std::pair<std::vector<float>, std::vector<std::uint16_t>>> stored_values(Weights& w) {
  std::vector<std::pair<std::vector<float>, std::vector<std::uint16_t>>> out;
  for (const auto& [name, tensor] : poslab::lm_named_tensors(w)) {
    out.emplace_back(tensor->f32, tensor->bits16);
  }
  return out;
}

// The checkpoint `bytes` fed to an LmLoader<Weights> in chunks of `chunk` bytes.
template <class Weights>
Weights load_in_chunks(const std::string& bytes, std::size_t chunk,
                       const decltype(Weights::config)& config) {
  const std::uint64_t length =
      poslab::safetensors_header_length(bytes.substr(0, 8), bytes.size(), "m");
  const poslab::SafetensorsHeader header =
      poslab::parse_safetensors_header(bytes.substr(0, 8 + length), bytes.size(), "m");
  poslab::LmLoader<Weights> loader(header, config, "m");
  EXPECT_EQ(loader.expected(), bytes.size() - 8 - length);
  for (std::size_t at = 8 + length; at < bytes.size(); at += chunk) {
    loader.append(bytes.data() + at, std::min(chunk, bytes.size() - at));
  }
  return loader.finish();
}

// The streamed loader's contract on a valid checkpoint of the architecture.
template <class Weights>
void expect_streamed_load_contract(const std::string& bytes,
                                   const decltype(Weights::config)& config) {
  const auto config_of = [&](const poslab::SafetensorsHeader&) { return config; };
  Weights whole = poslab::lm_weights_from_bytes<Weights>(bytes, config_of, "m");
  const auto expected = stored_values(whole);
  for (const std::size_t chunk :
       {std::size_t{1}, std::size_t{7}, std::size_t{4096}, bytes.size()}) {
    Weights w = load_in_chunks<Weights>(bytes, chunk, config);
    EXPECT_EQ(stored_values(w), expected) << "chunks of " << chunk;
  }

  const std::uint64_t length = poslab::safetensors_header_length(bytes, bytes.size(), "m");
  const poslab::SafetensorsHeader header =
      poslab::parse_safetensors_header(bytes, bytes.size(), "m");
  // A stream that stops short names the tensor it stopped in, at an element's end or
  // inside one.
  for (const std::uint64_t got : {std::uint64_t{100}, std::uint64_t{101}}) {
    poslab::LmLoader<Weights> short_loader(header, config, "m");
    short_loader.append(bytes.data() + 8 + length, got);
    std::string stopped_in;
    std::uint64_t first = ~std::uint64_t{0};
    for (const poslab::SafetensorsEntry& entry : header.entries) {
      if (entry.end > got && entry.begin < first) {
        first = entry.begin;
        stopped_in = entry.name;
      }
    }
    ASSERT_FALSE(stopped_in.empty());
    try {
      short_loader.finish();
      ADD_FAILURE() << "a short stream was accepted";
    } catch (const poslab::Error& e) {
      EXPECT_NE(std::string(e.what()).find("m: file ended early in tensor '" + stopped_in +
                                           "': got " + std::to_string(got) + " of "),
                std::string::npos)
          << e.what();
    }
  }
  // The weights are handed over once.
  poslab::LmLoader<Weights> loader(header, config, "m");
  loader.append(bytes.data() + 8 + length, bytes.size() - 8 - length);
  loader.finish();
  EXPECT_THROW(loader.finish(), poslab::Error);
  EXPECT_THROW(loader.append(bytes.data(), 0), poslab::Error);
  // More bytes than the header's data buffer.
  poslab::LmLoader<Weights> long_loader(header, config, "m");
  const std::string extra = bytes.substr(8 + length) + "x";
  EXPECT_THROW(long_loader.append(extra.data(), extra.size()), poslab::Error);
}

}  // namespace lm_fixture
