// A sweep as a Slurm job array (`poslab sweep emit --slurm`): one array task per run that
// runs, each executing that run through `poslab sweep one`, as the local pool does.
#pragma once

#include <string>

#include "poslab/train/sweep.hpp"

namespace poslab::train {

// The batch script: #SBATCH lines for the array 0..K-1 over `list.runnable()`, the plan's
// resources, the job name poslab-<name>, logs at <dir>/logs/%A_%a.out; its body runs
// `<poslab> sweep one <dir> $SLURM_ARRAY_TASK_ID`. `poslab` and `dir` are absolute paths
// (Error otherwise, or when either holds a character an #SBATCH line or the shell would read
// otherwise, or when no run runs).
std::string slurm_script(const SweepRunList& list, const std::string& poslab,
                         const std::string& dir);

}  // namespace poslab::train
