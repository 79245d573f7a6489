// Learned absolute table, drawn from the portable seeded generator.
#include "poslab/positions/learned.hpp"

#include <algorithm>
#include <cmath>

#include "poslab/base/random.hpp"
#include "poslab/io/npy.hpp"

namespace poslab {

// (L, D) ~ N(0, std²).
TensorF learned_table(long long length, long long dim, std::uint64_t seed, double std) {
  const std::size_t L = positive_size(length, "length", /*allow_zero=*/true, "length");
  const std::size_t D = positive_size(dim, "dim", false, "dim");
  require(std::isfinite(std) && std >= 0.0, "std", "std must be a non-negative finite number");
  TensorF table({L, D}, "learned table (L, D)");
  Rng rng(seed);
  for (float& value : table.data) value = static_cast<float>(std * rng.normal());
  return table;
}

TensorF load_learned_table(const std::string& path) {
  TensorF table = read_npy(path);
  require(table.ndim() == 2,
          path + ": a learned table must be (L, D), got " + shape_string(table.shape));
  const bool finite =
      std::all_of(table.data.begin(), table.data.end(), [](float x) { return std::isfinite(x); });
  if (!finite) throw Error(path + ": the learned table contains NaN or infinity");
  return table;
}

}  // namespace poslab
