// Regular files only (poslab/io/file_kind.hpp).
#include "poslab/io/file_kind.hpp"

#include <sys/stat.h>

#include "poslab/base/errors.hpp"

namespace poslab {

std::string non_regular_kind(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return "";
  if (S_ISFIFO(info.st_mode)) return "a FIFO";
  if (S_ISDIR(info.st_mode)) return "a directory";
  if (S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode)) return "a device";
  if (S_ISSOCK(info.st_mode)) return "a socket";
  return "not a file";
}

void require_regular_file(const std::string& path) {
  const std::string kind = non_regular_kind(path);
  require(kind.empty(), path + " is " + kind + ", not a regular file");
}

}  // namespace poslab
