// Learned absolute positions: a trainable (L, D) table. PosLab draws it from a seeded
// normal (std 0.02, GPT-2's initialisation) or takes one loaded from a file.
#pragma once

#include <cstdint>
#include <string>

#include "poslab/base/defaults.hpp"
#include "poslab/base/tensor.hpp"

namespace poslab {

// (L, D) table of N(0, std²) values from Rng(seed); the same seed gives the same table
// on every platform.
TensorF learned_table(long long length, long long dim, std::uint64_t seed = 0,
                      double std = defaults::kLearnedStd);

// A trained (L, D) table from a .npy file: must be 2-D and finite.
TensorF load_learned_table(const std::string& path);

}  // namespace poslab
