// A sweep's Slurm batch script (poslab/train/sweep_slurm.hpp).
#include "poslab/train/sweep_slurm.hpp"

#include <algorithm>

#include "poslab/base/errors.hpp"

namespace poslab::train {
namespace {

// An absolute path an #SBATCH line and the shell take as it is: no blanks, quotes, '%' (Slurm's
// file-name patterns), '$' or backslashes.
void require_plain_path(const std::string& path, const char* what) {
  const bool plain = std::none_of(path.begin(), path.end(), [](char c) {
    return c == '\0' || std::string(" \t\n\r'\"%$\\`").find(c) != std::string::npos;
  });
  require(!path.empty() && path.front() == '/' && plain,
          std::string(what) + " '" + path +
              "' must be an absolute path without blanks, quotes, '%', '$' or backslashes "
              "for a Slurm batch script");
}

}  // namespace

std::string slurm_script(const SweepRunList& list, const std::string& poslab,
                         const std::string& dir) {
  require_plain_path(poslab, "the poslab binary");
  require_plain_path(dir, "the sweep directory");
  const std::size_t runs = list.runnable().size();
  require(runs > 0, "the sweep has no run to submit");
  const SweepResources& r = list.resources;
  std::string s = "#!/bin/bash\n";
  s += "# poslab sweep '" + list.name + "': " + std::to_string(runs) +
       " poslab train runs, one array task each (written by poslab sweep emit).\n";
  s += "# Task k runs run k of " + dir + "/runs.json into " + dir + "/runs/;\n";
  s += "# a run whose result is there is not run again, so resubmitting resumes.\n";
  s += "#SBATCH --job-name=poslab-" + list.name + "\n";
  s += "#SBATCH --array=0-" + std::to_string(runs - 1) + "\n";
  s += "#SBATCH --ntasks=1\n";
  s += "#SBATCH --cpus-per-task=" + std::to_string(r.cpus) + "\n";
  s += "#SBATCH --mem=" + r.mem + "\n";
  s += "#SBATCH --time=" + r.time + "\n";
  if (!r.partition.empty()) s += "#SBATCH --partition=" + r.partition + "\n";
  s += "#SBATCH --output=" + dir + "/logs/%A_%a.out\n";
  s += "exec " + poslab + " sweep one " + dir + " \"$SLURM_ARRAY_TASK_ID\"\n";
  return s;
}

}  // namespace poslab::train
