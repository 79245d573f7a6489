// libFuzzer harness for the .safetensors readers: arbitrary bytes into parse_safetensors (a
// whole file in memory) and into the streaming GPT-2 loader (header parsed on its own, config
// read off it or a fixed tiny one, data appended in uneven chunks). Run by scripts/fuzz.sh
// (seeds in corpus/, tokens in safetensors.dict).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "poslab/base/errors.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/gpt2.hpp"

namespace {

// The model of corpus/gpt2_tiny.safetensors.
poslab::Gpt2Config tiny_config() {
  return poslab::Gpt2Config{{4, 4, 4, 1, 1}};  // vocabulary, positions, width, layers, heads
}

void stream_gpt2(const std::string& bytes, bool infer_config) {
  const std::uint64_t length = poslab::safetensors_header_length(bytes, bytes.size(), "fuzz");
  const poslab::SafetensorsHeader header =
      poslab::parse_safetensors_header(bytes, bytes.size(), "fuzz");
  const poslab::Gpt2Config config =
      infer_config ? poslab::Gpt2Config::from_header(header, "fuzz") : tiny_config();
  poslab::Gpt2Loader loader(header, config, "fuzz");
  std::size_t at = std::size_t(8 + length), chunk = 1;
  while (at < bytes.size()) {
    const std::size_t n = std::min(chunk, bytes.size() - at);
    loader.append(bytes.data() + at, n);
    at += n;
    chunk = chunk * 3 + 1;  // chunk edges fall anywhere inside tensors
  }
  const poslab::Gpt2Weights weights = loader.finish();
  poslab::gpt2_forward(weights, {0});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // The readers' contract: every bad file is a poslab::Error. Anything else escaping (a
  // nlohmann or std exception, bad_alloc) is a bug, so it is left to abort the run.
  try {
    poslab::parse_safetensors(bytes, "fuzz.safetensors");
  } catch (const poslab::Error&) {
  }
  for (const bool infer_config : {true, false}) {
    try {
      stream_gpt2(bytes, infer_config);
    } catch (const poslab::Error&) {
    }
  }
  return 0;
}
