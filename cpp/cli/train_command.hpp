// What `poslab sweep` asks of `poslab train` without running it: which options it takes, and
// whether it would refuse a command line, by the train command's own declarations and checks.
#pragma once

#include <string>
#include <vector>

namespace poslab::cli {

// How `poslab train` takes `--name`: not at all, as a flag (no value), or with a value.
enum class TrainOption { kUnknown, kFlag, kValue };
TrainOption train_option(const std::string& name);

// Parses `args` (the words after `poslab train`, without -o) as poslab train does and makes its
// checks of the settings, training and writing nothing: throws CLI::ParseError for a command
// line it cannot parse, UsageError or Error for settings it refuses.
void check_train_args(const std::vector<std::string>& args);

}  // namespace poslab::cli
