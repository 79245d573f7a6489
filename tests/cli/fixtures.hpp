// Test helpers: .npy bytes built by hand, and a sandbox that runs the `poslab` binary in a
// fresh directory and records what it printed, returned and left behind.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "poslab/base/tensor.hpp"

namespace poslab::test {

// The header dict numpy writes: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
std::string npy_dict(const std::string& descr, const std::string& shape,
                     const std::string& fortran_order = "False");

// A whole .npy file: magic, version `major`.0, header length (2 bytes for 1.0, 4 for 2.0
// and 3.0), `dict` padded with spaces and '\n' to 64-byte alignment, then `data`.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1);

// The raw bytes of `values` in host (little-endian) order.
template <class T>
std::string raw(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(&out[0], values.data(), out.size());
  return out;
}

// A float32 (rows, cols) array with the given values, as numpy would save it.
std::string npy_f4(std::size_t rows, std::size_t cols, const std::vector<float>& values);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);

struct RunResult {
  int status = -1;         // exit status, or -1 if the process did not exit normally
  int signal = 0;          // the signal that killed it, if one did
  bool timed_out = false;  // killed after the time limit of run()
  double seconds = 0.0;    // wall time
  std::string out, err;    // stdout and stderr
};

// The binary under test: the one this build made, or $POSLAB_CLI_UNDER_TEST (to run the
// suite against another build, e.g. an older commit's, and see which cases it fails).
std::string binary_under_test();

// Each test gets a fresh working directory, removed afterwards.
class Sandbox : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Absolute path of `name` in the working directory.
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  void put(const std::string& name, const std::string& bytes) { write_file(path(name), bytes); }
  std::set<std::string> listing() const;

  // Runs `poslab args...` in the working directory; sent `stop_signal` (SIGKILL unless told)
  // after `limit_s` seconds, so a hang fails its test instead of the whole suite. `env` is
  // added to the child's environment ("NAME=value"). `address_space` > 0 caps the child's
  // virtual memory (RLIMIT_AS, bytes), as `ulimit -v` does.
  RunResult run(const std::vector<std::string>& args, double limit_s = 60.0, int stop_signal = 9,
                const std::vector<std::string>& env = {}, std::size_t address_space = 0) const;

  // Runs a command that must succeed; returns the parsed .npy at `output`.
  TensorF run_npy(const std::vector<std::string>& args, const std::string& output) const;

  // Runs a command that must be refused: status 1 or 2 (not a crash), a one-line
  // "poslab: error: ..." on stderr, and the directory exactly as it was before (no output,
  // no temporary file). Returns the run for further checks.
  RunResult expect_refused(const std::vector<std::string>& args) const;

 private:
  std::string root_, dir_;
};

// The fixture of the CLI tests: a sandbox holding x.npy, a (3, 4) float32 array of 0.5.
class Cli : public Sandbox {
 protected:
  void SetUp() override;

  // A refusal that must be reported as a usage error (status 2).
  void expect_usage_error(const std::vector<std::string>& args) const;

  // A refusal whose message must mention `fragment`.
  void expect_refused_saying(const std::vector<std::string>& args,
                             const std::string& fragment) const;
};

}  // namespace poslab::test
