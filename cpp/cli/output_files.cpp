// All-or-nothing output: stage every file unnamed, then link each into place by rename.
#include "output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "options.hpp"
#include "poslab/base/errors.hpp"

namespace poslab::cli {
namespace {

[[noreturn]] void throw_errno(const std::string& path, const std::string& action, int error) {
  throw Error(path + ": " + action + ": " + std::strerror(error));
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return path.substr(0, slash ? slash : 1);
}

std::string base_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_directory(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool exists(const std::string& path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

void require_directory(const std::string& dir, const std::string& path) {
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0) {
    throw Error(path + ": cannot write: directory '" + dir + "' does not exist");
  }
  require(S_ISDIR(info.st_mode), path + ": cannot write: '" + dir + "' is not a directory");
}

// What a signal handler must remove if the process is interrupted between creating a named
// temporary (or a new directory) and finishing the commit. Filled before the names exist on
// disk, read by the handler through async-signal-safe calls only.
struct Cleanup {
  const char* const* paths = nullptr;
  const bool* is_directory = nullptr;
  std::atomic<std::size_t> count{0};
};
Cleanup g_cleanup;

void remove_registered() {
  const std::size_t n = g_cleanup.count.load();
  // Newest first: files inside a new directory go before the directory.
  for (std::size_t i = n; i-- > 0;) {
    if (g_cleanup.is_directory[i]) {
      ::rmdir(g_cleanup.paths[i]);
    } else {
      ::unlink(g_cleanup.paths[i]);
    }
  }
}

extern "C" void on_fatal_signal(int sig) {
  remove_registered();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_handlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

// The names this commit may create, registered for removal as each comes into existence.
class Registry {
 public:
  explicit Registry(std::size_t capacity)
      : storage_(capacity), paths_(new const char*[capacity]), dirs_(new bool[capacity]) {
    g_cleanup.paths = paths_.get();
    g_cleanup.is_directory = dirs_.get();
    g_cleanup.count.store(0);
  }
  // On an error: everything registered is removed. After commit(): nothing is.
  ~Registry() {
    remove_registered();
    g_cleanup.count.store(0);
  }
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Call before creating `path`, so an interrupt in between cannot miss it.
  void add(std::string path, bool directory) {
    const std::size_t i = g_cleanup.count.load();
    storage_[i] = std::move(path);
    paths_[i] = storage_[i].c_str();
    dirs_[i] = directory;
    g_cleanup.count.store(i + 1);
  }
  // The last registered name did not come into existence after all.
  void drop_last() { g_cleanup.count.store(g_cleanup.count.load() - 1); }
  // Every name is now the user's: nothing to remove.
  void release() { g_cleanup.count.store(0); }

 private:
  std::vector<std::string> storage_;
  std::unique_ptr<const char*[]> paths_;
  std::unique_ptr<bool[]> dirs_;
};

std::string temporary_name(const std::string& dir, const std::string& base) {
  static std::atomic<unsigned> counter{0};
  return dir + "/." + base + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

void write_all(int fd, const std::string& bytes, const std::string& path) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ::ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno(path, "cannot write", errno);
    written += static_cast<std::size_t>(n);
  }
}

// A file descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  Fd() = default;
  Fd(Fd&& other) noexcept : fd(other.fd) { other.fd = -1; }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// One file being committed: staged unnamed (fd) or, without O_TMPFILE, at `temp`.
struct Staged {
  std::string path, dir, temp;
  Fd file;
};

// Writes `bytes` to a new hidden file `temp` (registered first) and closes it: close() is
// where NFS and full disks report deferred write errors.
void write_named(Registry& registry, const std::string& temp, const std::string& bytes,
                 const std::string& path) {
  registry.add(temp, false);
  Fd fd;
  fd.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd.fd < 0) {
    const int error = errno;
    registry.drop_last();
    throw_errno(path, "cannot write in '" + directory_of(temp) + "'", error);
  }
  write_all(fd.fd, bytes, path);
  const int status = ::close(fd.fd);
  fd.fd = -1;
  if (status != 0) throw_errno(path, "cannot write", errno);
}

}  // namespace

std::string output_identity(const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  const std::filesystem::path real = std::filesystem::weakly_canonical(absolute, error);
  return (error ? absolute.lexically_normal() : real).string();
}

void check_output_target(const std::string& path) {
  const std::string base = base_of(path);
  if (base.empty() || base == "." || base == "..") {
    throw Error("'" + path + "' is not a file name");
  }
  require_directory(directory_of(path), path);
  require(!is_directory(path), path + ": cannot write: it is a directory");
}

void OutputFiles::add_directory(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  directories_.push_back(std::move(path));
}

void OutputFiles::add(std::string path, std::string bytes, std::string option) {
  files_.push_back({std::move(path), std::move(bytes), std::move(option)});
}

void OutputFiles::commit() {
  // 1. Every target is checked before anything is written.
  std::vector<std::string> new_directories;
  for (const std::string& dir : directories_) {
    if (exists(dir)) {
      require(is_directory(dir), dir + ": cannot write the directory: a file of that name exists");
    } else {
      require_directory(directory_of(dir), dir);
      new_directories.push_back(dir);
    }
  }
  const auto is_new = [&](const std::string& dir) {
    for (const std::string& d : new_directories) {
      if (d == dir) return true;
    }
    return false;
  };
  std::vector<Staged> staged(files_.size());
  std::vector<std::string> identities;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    const std::string& path = files_[i].path;
    // The commands refuse colliding options first (require_distinct_outputs); a file inside
    // an output directory can still be another output's, however each is spelled.
    identities.push_back(output_identity(path));
    for (std::size_t j = 0; j < i; ++j) {
      if (identities[j] != identities[i]) continue;
      const std::string& a = files_[j].option;
      const std::string& b = files_[i].option;
      const std::string names =
          "('" + files_[j].path + "'" + (files_[j].path == path ? "" : " and '" + path + "'") + ")";
      if (!a.empty() && !b.empty() && a != b) {
        throw UsageError(a + " and " + b + " name the same file " + names +
                         ": give each output its own path");
      }
      throw Error(path + ": two outputs of this command name this file " + names);
    }
    staged[i].path = path;
    staged[i].dir = directory_of(path);
    if (is_new(staged[i].dir)) continue;
    check_output_target(path);
  }

  install_signal_handlers();
  Registry registry(2 * files_.size() + new_directories.size());
  // POSLAB_NO_TMPFILE=1 takes the named-temporary path everywhere: for the tests, and for a
  // file system that accepts O_TMPFILE but cannot link the result.
  const bool unnamed = std::getenv("POSLAB_NO_TMPFILE") == nullptr;

  // 2. Every file is written before any is linked. A file in a new directory is staged in
  // that directory's parent (same file system), so the directory need not exist yet.
  for (std::size_t i = 0; i < files_.size(); ++i) {
    Staged& s = staged[i];
    const std::string stage_dir = is_new(s.dir) ? directory_of(s.dir) : s.dir;
    if (unnamed) {
      s.file.fd = ::open(stage_dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
      if (s.file.fd >= 0) {
        write_all(s.file.fd, files_[i].bytes, s.path);
        continue;
      }
      // No O_TMPFILE on this file system (EOPNOTSUPP, EISDIR or EINVAL on old kernels).
      const int error = errno;
      if (error != EOPNOTSUPP && error != EISDIR && error != EINVAL) {
        throw_errno(s.path, "cannot write in '" + stage_dir + "'", error);
      }
    }
    s.temp = temporary_name(stage_dir, base_of(s.path));
    write_named(registry, s.temp, files_[i].bytes, s.path);
  }

  // 3. New directories, then a hidden name for each unnamed file in its final directory.
  for (const std::string& dir : new_directories) {
    registry.add(dir, true);
    if (::mkdir(dir.c_str(), 0777) != 0) {
      const int error = errno;
      registry.drop_last();
      throw_errno(dir, "cannot create the directory", error);
    }
  }
  for (std::size_t i = 0; i < files_.size(); ++i) {
    Staged& s = staged[i];
    if (s.file.fd < 0) continue;
    s.temp = temporary_name(s.dir, base_of(s.path));
    registry.add(s.temp, false);
    const std::string proc = "/proc/self/fd/" + std::to_string(s.file.fd);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, s.temp.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      continue;
    }
    registry.drop_last();
    // Without /proc the unnamed file cannot be linked: write the bytes again, named.
    if (errno != ENOENT) throw_errno(s.path, "cannot write in '" + s.dir + "'", errno);
    write_named(registry, s.temp, files_[i].bytes, s.path);
  }

  // 4. Every file is complete on disk: rename each into place. Within one directory, onto a
  // target checked not to be a directory, this does not fail in practice; if it does, the
  // message says which outputs were already replaced.
  for (std::size_t i = 0; i < staged.size(); ++i) {
    if (::rename(staged[i].temp.c_str(), staged[i].path.c_str()) != 0) {
      const int error = errno;
      std::string done;
      for (std::size_t j = 0; j < i; ++j) done += (j ? ", " : "") + staged[j].path;
      throw_errno(staged[i].path,
                  "cannot replace" + (done.empty() ? "" : " (already replaced: " + done + ")"),
                  error);
    }
  }
  registry.release();
}

}  // namespace poslab::cli
