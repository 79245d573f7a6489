// Hand-built .npy bytes and the sandbox that runs the poslab binary as a child process.
#include "fixtures.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "poslab/io/npy.hpp"

namespace poslab::test {

std::string npy_dict(const std::string& descr, const std::string& shape,
                     const std::string& fortran_order) {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran_order + ", 'shape': " + shape +
         ", }";
}

std::string npy_file(const std::string& dict, const std::string& data, int major) {
  const std::size_t length_width = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + length_width;
  std::string header = dict;
  const std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.resize(total - prefix - 1, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < length_width; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

std::string npy_f4(std::size_t rows, std::size_t cols, const std::vector<float>& values) {
  const std::string shape = "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
  return npy_file(npy_dict("<f4", shape), raw(values));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

void Sandbox::SetUp() {
  std::string pattern = ::testing::TempDir() + "poslab-cli-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << "mkdtemp: " << std::strerror(errno);
  root_ = pattern;
  dir_ = root_ + "/work";
  std::filesystem::create_directory(dir_);
}

void Sandbox::TearDown() {
  std::error_code ignored;
  if (!root_.empty()) std::filesystem::remove_all(root_, ignored);
}

std::set<std::string> Sandbox::listing() const {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

namespace {

std::string command_line(const std::vector<std::string>& args) {
  std::string line = "poslab";
  for (const std::string& a : args) line += " " + a;
  return line;
}

}  // namespace

std::string binary_under_test() {
  const char* other = std::getenv("POSLAB_CLI_UNDER_TEST");
  return other && *other ? other : POSLAB_BINARY;
}

RunResult Sandbox::run(const std::vector<std::string>& args, double limit_s, int stop_signal,
                       const std::vector<std::string>& env, std::size_t address_space) const {
  std::vector<std::string> strings{binary_under_test()};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  // This process's environment plus `env`, built before fork.
  std::vector<std::string> assignments(env);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  for (std::string& a : assignments) envp.push_back(a.data());
  envp.push_back(nullptr);
  // Captured beside the working directory, so they never show in listing().
  const std::string out_path = root_ + "/stdout";
  const std::string err_path = root_ + "/stderr";

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::chdir(dir_.c_str()) != 0) ::_exit(127);
    const struct rlimit cap = {address_space, address_space};
    if (address_space > 0 && ::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(127);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  RunResult result;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (!result.timed_out && elapsed() > limit_s) {
      ::kill(pid, stop_signal);
      result.timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  result.seconds = elapsed();
  if (WIFEXITED(status)) result.status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

TensorF Sandbox::run_npy(const std::vector<std::string>& args, const std::string& output) const {
  const RunResult r = run(args);
  if (r.status != 0) {
    throw std::runtime_error(command_line(args) + " exited with " + std::to_string(r.status) +
                             ": " + r.err);
  }
  return parse_npy(read_file(path(output)), output);
}

RunResult Sandbox::expect_refused(const std::vector<std::string>& args) const {
  const std::set<std::string> before = listing();
  const RunResult r = run(args);
  const std::string line = command_line(args);
  EXPECT_EQ(r.signal, 0) << line << " was killed by signal " << r.signal;
  EXPECT_TRUE(r.status == 1 || r.status == 2) << line << " exited with " << r.status;
  EXPECT_EQ(r.err.rfind("poslab: error: ", 0), 0u) << line << " printed: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << line << " printed: " << r.err;
  EXPECT_EQ(r.out, "") << line;
  EXPECT_EQ(listing(), before) << line << " left files behind";
  return r;
}

void Cli::SetUp() {
  Sandbox::SetUp();
  put("x.npy", npy_f4(3, 4, std::vector<float>(12, 0.5f)));
}

void Cli::expect_usage_error(const std::vector<std::string>& args) const {
  EXPECT_EQ(expect_refused(args).status, 2) << command_line(args);
}

void Cli::expect_refused_saying(const std::vector<std::string>& args,
                                const std::string& fragment) const {
  const RunResult r = expect_refused(args);
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
}

}  // namespace poslab::test
