// OutputFiles, the all-or-nothing write of a command's outputs: directly, and through the
// binary interrupted by signals at different moments. Each case runs twice: with unnamed
// temporaries (O_TMPFILE) and with the named ones used where a file system has none.
#include "output_files.hpp"

#include <signal.h>

#include <filesystem>
#include <map>

#include "fixtures.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/io/npy.hpp"

namespace poslab::test {
namespace {

class OutputFilesTest : public Sandbox, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    Sandbox::SetUp();
    if (!GetParam()) ::setenv("POSLAB_NO_TMPFILE", "1", 1);
  }
  void TearDown() override {
    ::unsetenv("POSLAB_NO_TMPFILE");
    Sandbox::TearDown();
  }
  // The sandbox's files (recursively) and their bytes; folders as "/".
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path(""))) {
      files[std::filesystem::relative(e.path(), path("")).string()] =
          e.is_directory() ? "/" : read_file(e.path().string());
    }
    return files;
  }
  std::vector<std::string> env() const {
    return GetParam() ? std::vector<std::string>{}
                      : std::vector<std::string>{"POSLAB_NO_TMPFILE=1"};
  }
};

TEST_P(OutputFilesTest, CommitWritesEveryFileAndNewDirectory) {
  put("a.npy", "old a");
  cli::OutputFiles files;
  files.add(path("a.npy"), "new a");
  files.add_directory(path("trace"));
  files.add(path("trace/b.npy"), "b");
  files.add(path("trace/c.json"), "c");
  files.commit();
  EXPECT_EQ(snapshot(),
            (std::map<std::string, std::string>{
                {"a.npy", "new a"}, {"trace", "/"}, {"trace/b.npy", "b"}, {"trace/c.json", "c"}}));
}

TEST_P(OutputFilesTest, OneBadTargetChangesNothing) {
  put("a.npy", "old a");
  std::filesystem::create_directory(path("b.npy"));
  cli::OutputFiles files;
  files.add(path("a.npy"), "new a");
  files.add_directory(path("trace"));
  files.add(path("trace/x.npy"), "x");
  files.add(path("b.npy"), "b");
  const auto before = snapshot();
  try {
    files.commit();
    FAIL() << "commit did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("b.npy: cannot write: it is a directory"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(snapshot(), before);
}

TEST_P(OutputFilesTest, ExistingDirectoryIsWrittenIntoAndAFileInItsPlaceIsRefused) {
  std::filesystem::create_directory(path("trace"));
  put("trace/keep", "k");
  put("plain", "p");
  cli::OutputFiles ok;
  ok.add_directory(path("trace/"));
  ok.add(path("trace/x.npy"), "x");
  ok.commit();
  EXPECT_EQ(read_file(path("trace/x.npy")), "x");
  EXPECT_EQ(read_file(path("trace/keep")), "k");

  cli::OutputFiles bad;
  bad.add_directory(path("plain"));
  bad.add(path("plain/x.npy"), "x");
  const auto before = snapshot();
  EXPECT_THROW(bad.commit(), Error);
  EXPECT_EQ(snapshot(), before);
}

TEST_P(OutputFilesTest, NewDirectoryUnderAMissingOneIsRefused) {
  cli::OutputFiles files;
  files.add_directory(path("missing/trace"));
  files.add(path("missing/trace/x.npy"), "x");
  EXPECT_THROW(files.commit(), Error);
  EXPECT_TRUE(listing().empty());
}

TEST_P(OutputFilesTest, FailedCommandKeepsEveryPreviousOutputOfTheBinary) {
  // attention -o out.npy --weights w.npy where w.npy is a directory used to delete out.npy.
  put("q.npy", npy_f4(2, 4, std::vector<float>(8, 1.0f)));
  put("out.npy", "previous output");
  std::filesystem::create_directory(path("w.npy"));
  const auto before = snapshot();
  const RunResult r = run({"attention", "--q", "q.npy", "--k", "q.npy", "--v", "q.npy", "-o",
                           "out.npy", "--weights", "w.npy"},
                          60.0, SIGKILL, env());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(snapshot(), before);
}

// A command writing 128 MB is stopped by a signal at moments from computing to renaming:
// afterwards out.npy is either the previous bytes or the whole new array, and no temporary is
// left. Long (about 20 s natively), so the sanitizer run leaves it out.
class LongRunningInterrupt : public OutputFilesTest {};

TEST_P(LongRunningInterrupt, InterruptedCommandLeavesOldOrNewFileAndNoTemporary) {
  std::vector<int> signals{SIGINT, SIGTERM, SIGHUP};
  // SIGKILL cannot be caught: only unnamed temporaries survive it without a trace.
  if (GetParam()) signals.push_back(SIGKILL);
  for (int sig : signals) {
    for (double delay : {0.1, 0.5, 0.8, 0.9, 1.0, 1.1}) {
      put("out.npy", "previous output");
      const RunResult r =
          run({"sinusoidal", "--len", "8192", "--dim", "4096", "-o", "out.npy"}, delay, sig, env());
      const std::string bytes = read_file(path("out.npy"));
      if (bytes != "previous output") {
        EXPECT_EQ(parse_npy(bytes, "out.npy").shape, (Shape{8192, 4096}))
            << "signal " << sig << " after " << delay << " s";
      }
      EXPECT_EQ(listing(), std::set<std::string>{"out.npy"})
          << "signal " << sig << " after " << delay << " s left files (exit " << r.status
          << ", signal " << r.signal << ")";
    }
  }
}

std::string mode_name(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "Unnamed" : "Named";
}

INSTANTIATE_TEST_SUITE_P(Temporaries, OutputFilesTest, ::testing::Bool(), mode_name);
INSTANTIATE_TEST_SUITE_P(Temporaries, LongRunningInterrupt, ::testing::Bool(), mode_name);

}  // namespace
}  // namespace poslab::test
