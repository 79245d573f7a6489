// The sweep's local process pool (sweep_pool.hpp): posix_spawn, waitpid, one log per job.
#include "sweep_pool.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "poslab/base/errors.hpp"

extern char** environ;

namespace poslab::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Starts `job` with its stdout and stderr in its log and stdin empty; returns its pid.
pid_t spawn(const PoolJob& job) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, job.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const std::string& arg : job.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  require(error == 0, "cannot start " + job.argv[0] + ": " + std::strerror(error));
  return pid;
}

// The last `lines` lines of the file at `path` (at most its last 4 KiB).
std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string text = bytes.str();
  if (text.size() > 4096) text.erase(0, text.size() - 4096);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::size_t start = text.size();
  for (std::size_t n = 0; n < lines && start != std::string::npos && start > 0; ++n) {
    start = text.rfind('\n', start - 1);
  }
  return start == std::string::npos ? text : text.substr(start + 1);
}

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

}  // namespace

std::vector<PoolFailure> run_pool(const std::vector<PoolJob>& jobs, std::size_t parallel) {
  struct Running {
    std::size_t job;
    Clock::time_point start;
  };
  std::map<pid_t, Running> running;
  std::map<std::size_t, PoolFailure> failures;
  std::size_t next = 0, finished = 0;
  while (finished < jobs.size()) {
    while (next < jobs.size() && running.size() < std::max<std::size_t>(parallel, 1)) {
      running[spawn(jobs[next])] = {next, Clock::now()};
      ++next;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0 && errno == EINTR) continue;
    require(pid > 0, std::string("waiting for the sweep's runs: ") + std::strerror(errno));
    const auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of the pool's
    const PoolJob& job = jobs[it->second.job];
    const double seconds = std::chrono::duration<double>(Clock::now() - it->second.start).count();
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ++finished;
    std::fprintf(stderr, "sweep: [%zu/%zu] %s %s (%.1f s)\n", finished, jobs.size(),
                 job.name.c_str(), ok ? "done" : status_text(status).c_str(), seconds);
    if (!ok) failures[it->second.job] = {job.name, status_text(status), tail_of(job.log, 5)};
    running.erase(it);
  }
  std::vector<PoolFailure> out;
  for (auto& [index, failure] : failures) out.push_back(std::move(failure));
  return out;
}

}  // namespace poslab::cli
