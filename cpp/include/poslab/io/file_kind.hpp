// Inputs are read only when they are regular files: opening a FIFO blocks until a writer comes
// (forever, for a mistyped path), and a device or a directory is no file's contents.
#pragma once

#include <string>

namespace poslab {

// What `path` is when it exists but is not a regular file ("a FIFO", "a directory", "a
// device", "a socket"); "" for a regular file or a missing one (its reader then says so).
std::string non_regular_kind(const std::string& path);

// Error "`path` is a FIFO, not a regular file" when non_regular_kind names something; checked
// before the file is opened.
void require_regular_file(const std::string& path);

}  // namespace poslab
