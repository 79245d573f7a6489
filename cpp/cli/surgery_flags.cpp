// Position surgery's flags (surgery_flags.hpp).
#include "surgery_flags.hpp"

#include <cstdlib>
#include <utility>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"

namespace poslab::cli {
namespace {

// The check's field and the flag that sets it.
constexpr std::pair<const char*, const char*> kFlags[] = {
    {"ropeZeroPairs", "--rope-zero-pairs"}, {"nopeLayers", "--nope-layers"},
    {"nopeHeads", "--nope-heads"},          {"ropeBase", "--rope-base"},
    {"ropeLocalBase", "--rope-local-base"}, {"ablateHeads", "--ablate-heads"}};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

long long whole_number(const std::string& text, const char* flag, const std::string& item) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text.find_first_of("+ ") != std::string::npos) {
    throw UsageError(std::string(flag) + ": '" + item + "' is not " +
                     (item == text ? "a whole number" : "two whole numbers A:B"));
  }
  return value;
}

// "A:B" as two whole numbers.
std::pair<long long, long long> pair_of(const std::string& item, const char* flag) {
  const std::vector<std::string> parts = split(item, ':');
  if (parts.size() != 2) {
    throw UsageError(std::string(flag) + ": '" + item + "' is not two whole numbers A:B");
  }
  return {whole_number(parts[0], flag, item), whole_number(parts[1], flag, item)};
}

std::vector<HeadRef> heads_of(const std::string& text, const char* flag) {
  std::vector<HeadRef> heads;
  if (text.empty()) return heads;
  for (const std::string& item : split(text, ',')) {
    const auto [layer, head] = pair_of(item, flag);
    heads.push_back({layer, head});
  }
  return heads;
}

}  // namespace

PositionSurgery SurgeryFlags::surgery() const {
  PositionSurgery s;
  if (!zero_pairs.empty()) {
    for (const std::string& item : split(zero_pairs, ',')) {
      const auto [first, last] = pair_of(item, "--rope-zero-pairs");
      s.rope_zero_pairs.push_back({first, last});
    }
  }
  if (!nope_layers.empty()) {
    for (const std::string& item : split(nope_layers, ',')) {
      s.nope_layers.push_back(whole_number(item, "--nope-layers", item));
    }
  }
  s.nope_heads = heads_of(nope_heads, "--nope-heads");
  s.ablate_heads = heads_of(ablate_heads, "--ablate-heads");
  // A base given is used as given: 0 is refused, not read as "the model's".
  const auto base = [](double value, const char* field, const char* flag) -> double {
    if (value == kUnset) return 0.0;
    require(
        value > 1.0, field,
        std::string(flag) + ": a rotation base must be above 1 (got " + format_number(value) + ")");
    return value;
  };
  s.rope_base = base(rope_base, "ropeBase", "--rope-base");
  s.rope_local_base = base(rope_local_base, "ropeLocalBase", "--rope-local-base");
  return s;
}

std::string SurgeryFlags::first_flag() const {
  const std::pair<bool, const char*> given[] = {{!zero_pairs.empty(), "--rope-zero-pairs"},
                                                {!nope_layers.empty(), "--nope-layers"},
                                                {!nope_heads.empty(), "--nope-heads"},
                                                {rope_base != kUnset, "--rope-base"},
                                                {rope_local_base != kUnset, "--rope-local-base"},
                                                {!ablate_heads.empty(), "--ablate-heads"}};
  for (const auto& [set, flag] : given) {
    if (set) return flag;
  }
  return "";
}

void add_surgery_flags(CLI::App* cmd, SurgeryFlags& f) {
  const char* group = "Position surgery (docs/surgery.md)";
  cmd->add_option("--rope-zero-pairs", f.zero_pairs,
                  "rotation pairs [A, B) whose angle is 0 (pair 0 the highest frequency), "
                  "comma-separated ranges")
      ->type_name("A:B[,C:D...]")
      ->group(group);
  cmd->add_option("--nope-layers", f.nope_layers, "layers that skip the rotation, e.g. 3,7")
      ->type_name("LIST")
      ->group(group);
  cmd->add_option("--nope-heads", f.nope_heads, "heads (layer:head) whose q and k are not rotated")
      ->type_name("L:H[,...]")
      ->group(group);
  cmd->add_option("--rope-base", f.rope_base,
                  "the rotation base of every layer (Gemma 3: of its full-attention layers)")
      ->type_name("X")
      ->check(finite_number())
      ->group(group);
  cmd->add_option("--rope-local-base", f.rope_local_base,
                  "Gemma 3: the rotation base of its sliding-window layers")
      ->type_name("X")
      ->check(finite_number())
      ->group(group);
  cmd->add_option("--ablate-heads", f.ablate_heads,
                  "heads (layer:head) whose attention output is zeroed before the output "
                  "projection")
      ->type_name("L:H[,...]")
      ->group(group);
}

void with_surgery_flag_names(const std::function<void()>& f, const SurgeryFlags* flags) {
  try {
    f();
  } catch (const Error& e) {
    if (e.field() == "surgery" && flags != nullptr && !flags->first_flag().empty()) {
      throw Error(flags->first_flag() + ": " + e.what(), e.field());
    }
    for (const auto& [field, flag] : kFlags) {
      const std::string message = e.what();
      if (e.field() != field || message.rfind(flag, 0) == 0) continue;
      throw Error(std::string(flag) + ": " + message, e.field());
    }
    throw;
  }
}

}  // namespace poslab::cli
