// Runs the probe's generated tables (probe_cases.cpp): every case within 5 s, judged by its
// verdict, with every file the command was not asked to write byte-identical afterwards.
// The suites are named Probe*, so the sanitizer build leaves them out by name (they run the
// binary some 1800 times). POSLAB_CLI_UNDER_TEST=<binary> runs them against another build.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "fixtures.hpp"
#include "probe_cases.hpp"

namespace poslab::test::probe {
namespace {

constexpr double kLimitSeconds = 5.0;

// Every file, directory and link under `root` with what it holds (directories as "/", links
// as "-> target"), by path relative to `root`.
std::map<std::string, std::string> snapshot(const std::string& root) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> entries;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = fs::relative(entry.path(), root).string();
    if (entry.is_symlink()) {
      entries[name] = "-> " + fs::read_symlink(entry.path()).string();
    } else if (entry.is_fifo()) {
      entries[name] = "fifo";  // reading it would block
    } else if (entry.is_directory()) {
      entries[name] = "/";
    } else {
      entries[name] = read_file(entry.path().string());
    }
  }
  return entries;
}

// `entries` without the outputs (an output directory takes everything under it).
std::map<std::string, std::string> without(std::map<std::string, std::string> entries,
                                           const std::vector<std::string>& outputs) {
  for (const std::string& output : outputs) {
    const std::string o = std::filesystem::path(output).lexically_normal().string();
    for (auto it = entries.begin(); it != entries.end();) {
      it = it->first == o || it->first.rfind(o + "/", 0) == 0 ? entries.erase(it) : std::next(it);
    }
  }
  return entries;
}

// "added x, removed y, changed z": what differs between two snapshots, by name only.
std::string differences(const std::map<std::string, std::string>& before,
                        const std::map<std::string, std::string>& after) {
  std::string out;
  const auto note = [&](const char* what, const std::string& name) {
    out += (out.empty() ? "" : ", ") + std::string(what) + " " + name;
  };
  for (const auto& [name, bytes] : after) {
    const auto it = before.find(name);
    if (it == before.end()) {
      note("added", name);
    } else if (it->second != bytes) {
      note("changed", name);
    }
  }
  for (const auto& [name, bytes] : before) {
    if (after.count(name) == 0) note("removed", name);
  }
  return out;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string line = "poslab";
  for (const std::string& a : args) line += a.empty() ? " ''" : " " + a;
  return line;
}

class ProbeRun : public Sandbox {
 protected:
  void judge(const ProbeCase& c) {
    namespace fs = std::filesystem;
    for (const FileSpec& f : c.files ? c.files() : Files{}) {
      if (f.link_to == kFifo) {
        ASSERT_EQ(::mkfifo(path(f.name).c_str(), 0644), 0) << f.name;
      } else if (!f.link_to.empty()) {
        fs::create_symlink(f.link_to, path(f.name));
      } else if (f.name.back() == '/') {
        fs::create_directories(path(f.name));
      } else {
        put(f.name, f.bytes);
      }
    }
    const auto before = snapshot(path(""));
    const RunResult r = run(c.args, kLimitSeconds, 9, c.env);
    const std::string line = command_line(c.args);
    ASSERT_FALSE(r.timed_out) << line << " ran past " << kLimitSeconds << " s";
    ASSERT_EQ(r.signal, 0) << line << " was killed by signal " << r.signal;
    const auto after = snapshot(path(""));

    if (const auto* refused = std::get_if<Refused>(&c.verdict)) {
      if (refused->status == 0) {
        EXPECT_TRUE(r.status == 1 || r.status == 2) << line << " exited with " << r.status;
      } else {
        EXPECT_EQ(r.status, refused->status) << line << "\nstderr: " << r.err;
      }
      EXPECT_EQ(r.err.rfind("poslab: error: ", 0), 0u) << line << "\nstderr: " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << line << "\nstderr: " << r.err;
      EXPECT_EQ(r.out, "") << line;
      for (const std::string& pattern : refused->patterns) {
        EXPECT_TRUE(std::regex_search(r.err, std::regex(pattern)))
            << line << "\npattern: " << pattern << "\nstderr: " << r.err;
      }
      EXPECT_EQ(differences(before, after), "") << line;
      return;
    }
    const Accepted& accepted = std::get<Accepted>(c.verdict);
    ASSERT_EQ(r.status, 0) << line << "\nstderr: " << r.err;
    if (accepted.note.empty()) {
      EXPECT_EQ(r.err, "") << line;
    } else {
      EXPECT_EQ(r.err.rfind("poslab: note: ", 0), 0u) << line << "\nstderr: " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << line << "\nstderr: " << r.err;
      EXPECT_TRUE(std::regex_search(r.err, std::regex(accepted.note)))
          << line << "\nnote: " << accepted.note << "\nstderr: " << r.err;
    }
    for (const std::string& output : accepted.outputs) {
      EXPECT_TRUE(fs::exists(path(output))) << line << " did not write " << output;
    }
    EXPECT_EQ(differences(without(before, accepted.outputs), without(after, accepted.outputs)), "")
        << line << " touched files other than its outputs";
    if (accepted.check) accepted.check(path(""), r);
  }
};

std::string case_name(const ::testing::TestParamInfo<ProbeCase>& info) { return info.param.name; }

class ProbeTrain : public ProbeRun, public ::testing::WithParamInterface<ProbeCase> {};
class ProbeOutputs : public ProbeRun, public ::testing::WithParamInterface<ProbeCase> {};
class ProbeLm : public ProbeRun, public ::testing::WithParamInterface<ProbeCase> {};
class ProbeScaling : public ProbeRun, public ::testing::WithParamInterface<ProbeCase> {};
class ProbeModels : public ProbeRun, public ::testing::WithParamInterface<ProbeCase> {};

TEST_P(ProbeTrain, Verdict) { judge(GetParam()); }
TEST_P(ProbeOutputs, Verdict) { judge(GetParam()); }
TEST_P(ProbeLm, Verdict) { judge(GetParam()); }
TEST_P(ProbeScaling, Verdict) { judge(GetParam()); }
TEST_P(ProbeModels, Verdict) { judge(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Probe, ProbeTrain, ::testing::ValuesIn(train_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Probe, ProbeOutputs, ::testing::ValuesIn(output_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Probe, ProbeLm, ::testing::ValuesIn(lm_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Probe, ProbeScaling, ::testing::ValuesIn(scaling_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Probe, ProbeModels, ::testing::ValuesIn(model_cases()), case_name);

}  // namespace

void PrintTo(const ProbeCase& c, std::ostream* os) {
  *os << c.name << ": " << command_line(c.args);
}

}  // namespace poslab::test::probe
