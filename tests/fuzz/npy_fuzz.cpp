// libFuzzer harness for the .npy reader: arbitrary bytes into parse_npy. Besides "every bad file
// is a poslab::Error", an accepted array must keep the reader's promises: no axis past the
// element cap (a huge axis beside a zero one once made later loops run for days), data that
// re-encodes to an equal array, and the finiteness rule applied without surprises. Run by
// scripts/fuzz.sh (seeds in npy_corpus/, tokens in npy.dict).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "poslab/base/errors.hpp"
#include "poslab/io/npy.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();  // libFuzzer keeps the input as a crash artifact
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  poslab::TensorF array;
  try {
    array = poslab::parse_npy(bytes, "fuzz.npy");
  } catch (const poslab::Error&) {
    return 0;
  }
  std::size_t numel = 1;
  for (std::size_t axis : array.shape) {
    check(axis <= poslab::kMaxElements);
    numel *= axis;
  }
  check(numel == array.data.size());

  // Round trip: what was read, written as float32 and read again, is the same array (bit for
  // bit, so NaN payloads count too).
  const poslab::TensorF again = poslab::parse_npy(poslab::encode_npy(array), "again.npy");
  check(again.shape == array.shape);
  check(numel == 0 || std::memcmp(again.data.data(), array.data.data(), numel * 4) == 0);

  try {
    poslab::require_finite(array, "fuzz.npy", poslab::NonFinite::kAllowNegativeInfinity);
  } catch (const poslab::Error&) {
  }
  return 0;
}
