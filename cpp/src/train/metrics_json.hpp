// The summary over seeds as result.json writes it, shared by `poslab train --seeds` and
// `poslab sweep merge`, so both give a method's seeds the same bytes.
#pragma once

#include <nlohmann/json.hpp>

namespace poslab::train {

// Each metric of the first run's `metrics`, over every run of `runs` (result objects, in seed
// order), as {"mean", "sd", "values"} (summarize); null where a value is.
nlohmann::ordered_json metrics_summary(const nlohmann::ordered_json& runs);

}  // namespace poslab::train
