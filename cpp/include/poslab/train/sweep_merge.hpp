// A sweep's results merged (`poslab sweep merge`): per task × option combination × method the
// summary over seeds `poslab train --seeds` writes, and per task × option combination the
// ranking rule's verdicts on the primary metric. The bytes depend on the results only, never
// on how, where or in what order the runs ran.
#pragma once

#include <map>
#include <string>

#include "poslab/train/sweep.hpp"

namespace poslab::train {

// Each run's result.json text by run id; a run of the list without one is missing.
using SweepResults = std::map<std::string, std::string>;

// The summary as JSON text:
//   {"sweep", "primary", "trained_threshold",
//    "groups": [{"task", "options", "methods": [{"method", "seeds", "missing_seeds", "trained",
//                                                "summary"}],
//                "verdicts": [{"a", "b", "verdict": "above" | "below" | "tie"}]}],
//    "missing": [ids], "skipped": [{"id", "refusal"}]}
// "summary" is null for a method without a result; "trained" is null where the runs have no
// in-distribution metric (text). Verdicts compare each pair of trained methods, in the plan's
// order: a "above" b when a ranks above b (ranks_above), "below" when b does, else "tie".
// Error naming the run when a result is not JSON or is another run's.
std::string merge_sweep(const SweepRunList& list, const SweepResults& results);

// The merged summary (merge_sweep's text) as markdown: one table per group, each metric's
// mean ± sd by method, the methods that did not train marked, then the verdicts.
std::string sweep_summary_markdown(const std::string& summary);

}  // namespace poslab::train
