// All-or-nothing writes of a command's output files: a failed or interrupted command leaves
// the user's existing files byte-identical and no temporaries behind.
#pragma once

#include <string>
#include <vector>

namespace poslab::cli {

class OutputFiles {
 public:
  // A directory the outputs go into, created by commit() when missing and removed again if
  // the commit fails. Its parent must exist.
  void add_directory(std::string path);

  // `bytes` to be written at `path` (replacing what is there) when commit() runs; `option`
  // ("-o", "--dump") names it when two outputs turn out to be one file.
  void add(std::string path, std::string bytes, std::string option = "");

  // Checks every target, writes every file to an unnamed temporary (O_TMPFILE, so even
  // SIGKILL leaves nothing; a hidden named one, removed on SIGINT/SIGTERM/SIGHUP, where the
  // file system has no O_TMPFILE), and only when all of them are written links them into
  // place, each by an atomic rename. Throws Error (naming the path) on the first failure,
  // having changed nothing.
  void commit();

 private:
  struct File {
    std::string path, bytes, option;
  };
  std::vector<std::string> directories_;
  std::vector<File> files_;
};

// Which file `path` names: its directory's real path (links, "." and ".." resolved, for the
// part that exists) and its name, itself resolved when it is an existing link. Two outputs
// with one identity would overwrite each other, however they are spelled.
std::string output_identity(const std::string& path);

// Checks that `path` can be an output before any work: its directory exists and it is not
// itself a directory. Throws Error naming the path.
void check_output_target(const std::string& path);

}  // namespace poslab::cli
