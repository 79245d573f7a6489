// Position surgery's options on the model commands (`poslab lm`, `poslab lens`): the
// interventions of poslab/models/position_surgery.hpp as flags, and their errors named by flag.
#pragma once

#include <functional>
#include <string>

#include "options.hpp"
#include "poslab/models/position_surgery.hpp"

namespace poslab::cli {

struct SurgeryFlags {
  std::string zero_pairs, nope_layers, nope_heads, ablate_heads;  // as typed
  double rope_base = kUnset, rope_local_base = kUnset;            // kUnset: the model's
  static constexpr double kUnset = -1.0;

  // The interventions; UsageError naming the flag for a list that does not parse.
  PositionSurgery surgery() const;
  bool any() const { return !surgery().empty(); }
  // The first of the flags given ("--ablate-heads"), for a refusal of them all; "" if none.
  std::string first_flag() const;
};

// --rope-zero-pairs A:B[,C:D…], --nope-layers LIST, --nope-heads L:H[,…], --rope-base X,
// --rope-local-base X, --ablate-heads L:H[,…].
void add_surgery_flags(CLI::App* cmd, SurgeryFlags& flags);

// Runs `f`; an Error of a surgery field (check_surgery's) comes out naming its flag, and one of
// the field "surgery" (a model that takes none) the first of `flags` given.
void with_surgery_flag_names(const std::function<void()>& f, const SurgeryFlags* flags = nullptr);

}  // namespace poslab::cli
