// The local process pool of `poslab sweep run`: runs command lines as child processes, at most
// N at a time, each one's output into its own log.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace poslab::cli {

struct PoolJob {
  std::string name;               // how progress and failures name it
  std::vector<std::string> argv;  // argv[0] is the executable's path
  std::string log;                // its stdout and stderr
};

struct PoolFailure {
  std::string name;
  std::string status;  // "exit status 1", "killed by signal 9"
  std::string tail;    // the last lines of its log
};

// Runs every job, `parallel` at a time, in the order given, and waits for all of them; prints a
// line on stderr as each ends. Returns the jobs that did not exit 0, in the order given.
std::vector<PoolFailure> run_pool(const std::vector<PoolJob>& jobs, std::size_t parallel);

}  // namespace poslab::cli
