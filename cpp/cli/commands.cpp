// The subcommand registry: subcommand actions are deferred until parsing is complete.
#include "commands.hpp"

#include <utility>

namespace poslab::cli {

CLI::App* Commands::add(const std::string& name, const std::string& description, Action action) {
  CLI::App* sub = app_.add_subcommand(name, description);
  entries_.push_back({sub, std::move(action)});
  return sub;
}

void Commands::run_selected() const {
  for (const Entry& entry : entries_) {
    if (entry.app->parsed()) {
      entry.action();
      return;
    }
  }
}

}  // namespace poslab::cli
