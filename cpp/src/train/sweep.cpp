// A sweep's plan, its runs and its run list (poslab/train/sweep.hpp).
#include "poslab/train/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/io/json_text.hpp"
#include "poslab/train/config.hpp"

namespace poslab::train {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// The options a run's own fields set, and what a plan gives instead.
struct Reserved {
  const char* option;
  const char* instead;
};
constexpr Reserved kReservedOptions[] = {
    {"task", "the plan's \"tasks\""},
    {"position", "the plan's \"methods\""},
    {"seed", "the plan's \"seeds\""},
    {"seeds", "the plan's \"seeds\""},
    {"out", "nothing: the sweep writes each run's result into its directory"},
    {"quiet", "nothing: every run is quiet"},
    {"dump", "nothing: a sweep keeps each run's result.json only"},
    {"checkpoint", "nothing: a sweep keeps each run's result.json only"},
    {"checkpoint-dtype", "nothing: a sweep keeps each run's result.json only"},
    {"help", "nothing"},
};
constexpr const char* kPlanKeys[] = {"name", "tasks", "methods", "seeds", "options", "resources"};
constexpr const char* kResourceKeys[] = {"cpus", "mem", "time", "partition"};

// Characters of a name that goes into file names, job names and #SBATCH lines as it is.
bool plain_name(const std::string& text, const char* extra) {
  if (text.empty() || text.size() > 64) return false;
  return std::all_of(text.begin(), text.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || (c != '\0' && std::strchr(extra, c));
  });
}

class PlanReader {
 public:
  explicit PlanReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw Error(source_ + ": " + field + ": " + why, field);
  }
  void require(bool ok, const std::string& field, const std::string& why) const {
    if (!ok) fail(field, why);
  }

  // `keys` of `object` only; the unknown one named with the keys there are.
  template <std::size_t N>
  void known_keys(const Json& object, const char* const (&keys)[N], const std::string& where) {
    for (const auto& item : object.items()) {
      const std::string& key = item.key();  // clang 14 lambdas cannot capture a binding
      if (std::find_if(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; }) !=
          std::end(keys)) {
        continue;
      }
      std::string list;
      for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      const std::string owner = where.empty() ? "a plan" : where.substr(0, where.size() - 1);
      fail(where + key, "unknown key (" + owner + " has " + list + ")");
    }
  }

  // A non-empty array at `field`.
  const Json& list(const Json& value, const std::string& field) const {
    require(value.is_array(), field, "must be a list, got " + std::string(value.type_name()));
    require(!value.empty(), field, "an empty list: give at least one value");
    require(value.size() <= kMaxSweepRuns, field,
            "more values than a sweep's " + std::to_string(kMaxSweepRuns) + " runs");
    return value;
  }

  // body(), its Error reported at `field`.
  template <class Body>
  auto at(const std::string& field, Body&& body) const {
    try {
      return body();
    } catch (const Error& e) {
      fail(field, e.what());
    }
  }

  std::string string_at(const Json& value, const std::string& field) const {
    require(value.is_string(), field, "must be a string, got " + std::string(value.type_name()));
    return value.get<std::string>();
  }

  std::vector<std::string> tasks(const Json& value) const;
  std::vector<std::string> methods(const Json& value) const;
  std::vector<std::uint64_t> seeds(const Json& value) const;
  std::vector<SweepOption> options(const Json& value) const;
  SweepOption option(const std::string& name, const Json& values) const;
  SweepResources resources(const Json& value) const;

 private:
  std::string source_;
};

// A number as the command line takes it: integers in full, others as the shortest round trip.
std::string value_text(const Json& v) {
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number_float()) return format_number(v.get<double>());
  return v.get<std::string>();
}

template <class T>
void require_distinct(const PlanReader& r, const std::vector<T>& values, const std::string& field,
                      const std::string& (*show)(const T&)) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      r.require(!(values[i] == values[j]), field + "[" + std::to_string(i) + "]",
                "'" + show(values[i]) + "' is already in the list");
    }
  }
}
const std::string& as_is(const std::string& s) { return s; }

std::vector<std::string> PlanReader::tasks(const Json& value) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < list(value, "tasks").size(); ++i) {
    const std::string field = "tasks[" + std::to_string(i) + "]";
    const std::string name = string_at(value[i], field);
    at(field, [&] { return parse_name(kTaskNames, name, "task", "task"); });
    out.push_back(name);
  }
  require_distinct(*this, out, "tasks", as_is);
  return out;
}

// "all": every method of the trainer, in the table's order; else each name or alias, canonical.
std::vector<std::string> PlanReader::methods(const Json& value) const {
  std::vector<std::string> out;
  if (value.is_string() && value.get<std::string>() == "all") {
    for (const auto& entry : kPositionMethodNames) out.emplace_back(entry.name);
    return out;
  }
  require(!value.is_string(), "methods", "a string means \"all\"; else give a list of methods");
  for (std::size_t i = 0; i < list(value, "methods").size(); ++i) {
    const std::string field = "methods[" + std::to_string(i) + "]";
    const std::string name = string_at(value[i], field);
    const PositionMethod m = at(field, [&] {
      return parse_position_method(name, kSupportTrainer, "position method", "position");
    });
    out.emplace_back(name_of(kPositionMethodNames, m));
  }
  require_distinct(*this, out, "methods", as_is);
  return out;
}

// A count S (seeds 0..S−1) or a list of seeds, returned ascending.
std::vector<std::uint64_t> PlanReader::seeds(const Json& value) const {
  std::vector<std::uint64_t> out;
  if (value.is_number()) {
    require(value.is_number_unsigned() && value.get<std::uint64_t>() >= 1 &&
                value.get<std::uint64_t>() <= kMaxSweepRuns,
            "seeds",
            "a count of seeds is a whole number from 1 to " + std::to_string(kMaxSweepRuns) +
                ", got " + value.dump());
    for (std::uint64_t s = 0; s < value.get<std::uint64_t>(); ++s) out.push_back(s);
    return out;
  }
  for (std::size_t i = 0; i < list(value, "seeds").size(); ++i) {
    const std::string field = "seeds[" + std::to_string(i) + "]";
    require(value[i].is_number_unsigned(), field,
            "a seed is a whole number from 0 to 2^64 - 1, got " + value[i].dump());
    out.push_back(value[i].get<std::uint64_t>());
  }
  std::vector<std::string> shown;
  for (std::uint64_t s : out) shown.push_back(std::to_string(s));
  require_distinct(*this, shown, "seeds", as_is);
  std::sort(out.begin(), out.end());
  return out;
}

SweepOption PlanReader::option(const std::string& name, const Json& values) const {
  const std::string field = "options." + name;
  require(plain_name(name, "-") && name.front() != '-', field,
          "an option is a poslab train flag without its dashes (\"train-len\")");
  for (const Reserved& r : kReservedOptions) {
    require(name != r.option, field, "the sweep sets --" + name + " itself: use " + r.instead);
  }
  SweepOption o{name, list(values, field).front().is_boolean(), {}};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Json& v = values[i];
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (o.boolean) {
      require(v.is_boolean(), at, "a list of booleans (a flag on or off) has no other values");
      o.values.push_back(v.get<bool>() ? "true" : "false");
      continue;
    }
    require(
        v.is_number() || v.is_string(), at,
        "a value is a number or a string (booleans for a flag), got " + std::string(v.type_name()));
    const std::string text = value_text(v);
    require(!text.empty() && text.find_first_of(std::string("\n\r\0", 3)) == std::string::npos, at,
            "an empty value or a line break in one");
    o.values.push_back(text);
  }
  require_distinct(*this, o.values, field, as_is);
  return o;
}

std::vector<SweepOption> PlanReader::options(const Json& value) const {
  require(value.is_object(), "options",
          "must be an object of option: [values], got " + std::string(value.type_name()));
  std::vector<SweepOption> out;
  for (const auto& [name, values] : value.items()) out.push_back(option(name, values));
  return out;  // Json's objects iterate by key: the options come by name
}

SweepResources PlanReader::resources(const Json& value) const {
  require(value.is_object(), "resources", "must be an object");
  SweepResources r;
  if (value.contains("cpus")) {
    const Json& cpus = value["cpus"];
    require(cpus.is_number_unsigned() && cpus.get<std::uint64_t>() >= 1 &&
                cpus.get<std::uint64_t>() <= 4096,
            "resources.cpus", "a whole number from 1 to 4096, got " + cpus.dump());
    r.cpus = cpus.get<std::uint64_t>();
  }
  if (value.contains("mem")) {
    r.mem = string_at(value["mem"], "resources.mem");
    const std::size_t digits = r.mem.find_first_not_of("0123456789");
    require(digits > 0 && (digits == std::string::npos ||
                           (digits + 1 == r.mem.size() && std::strchr("KMGT", r.mem.back()))),
            "resources.mem",
            "Slurm's --mem: a whole number of MB, or with K, M, G or T, got '" + r.mem + "'");
  }
  if (value.contains("time")) {
    r.time = string_at(value["time"], "resources.time");
    require(plain_name(r.time, ":-") && std::isdigit(static_cast<unsigned char>(r.time[0])) &&
                r.time.find_first_not_of("0123456789:-") == std::string::npos,
            "resources.time", "Slurm's --time: MM, HH:MM:SS or D-HH:MM:SS, got '" + r.time + "'");
  }
  if (value.contains("partition")) {
    r.partition = string_at(value["partition"], "resources.partition");
    require(plain_name(r.partition, "._-"), "resources.partition",
            "a partition's name: letters, digits, '.', '_' and '-'");
  }
  return r;
}

// tasks × methods × every option's values × seeds, refused past kMaxSweepRuns without overflow.
void check_run_count(const PlanReader& r, const SweepPlan& plan) {
  std::uint64_t count = 1;
  const auto times = [&](std::size_t n, const std::string& field) {
    r.require(count <= kMaxSweepRuns / n, field,
              "the plan has more than " + std::to_string(kMaxSweepRuns) + " runs");
    count *= n;
  };
  times(plan.tasks.size(), "tasks");
  times(plan.methods.size(), "methods");
  for (const SweepOption& o : plan.options) times(o.values.size(), "options." + o.name);
  times(plan.seeds.size(), "seeds");
}

}  // namespace

SweepPlan parse_sweep_plan(const std::string& text, const std::string& source) {
  const Json plan = parse_json_text(text, source);
  PlanReader r(source);
  r.require(plan.is_object(), "plan",
            "must be a JSON object with tasks, methods, seeds and options");
  r.known_keys(plan, kPlanKeys, "");
  for (const char* key : {"tasks", "methods", "seeds"}) {
    r.require(plan.contains(key), key, "missing: a plan gives tasks, methods and seeds");
  }
  SweepPlan p;
  if (plan.contains("name")) {
    p.name = r.string_at(plan["name"], "name");
    r.require(plain_name(p.name, "._-"), "name",
              "letters, digits, '.', '_' and '-', at most 64 (it names the Slurm job)");
  }
  p.tasks = r.tasks(plan["tasks"]);
  p.methods = r.methods(plan["methods"]);
  p.seeds = r.seeds(plan["seeds"]);
  if (plan.contains("options")) p.options = r.options(plan["options"]);
  if (plan.contains("resources")) {
    r.known_keys(plan["resources"], kResourceKeys, "resources.");
    p.resources = r.resources(plan["resources"]);
  }
  check_run_count(r, p);
  return p;
}

namespace {

bool id_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || (c != '\0' && std::strchr("._,=+-", c));
}

// A run's id: its task, method, the options that vary in the plan and its seed, joined by '.',
// each character a file name may not hold safely replaced by '_'.
std::string run_id(const SweepRun& run, const SweepPlan& plan) {
  std::string id = run.task + "." + run.method;
  for (std::size_t k = 0; k < run.options.size(); ++k) {
    if (plan.options[k].values.size() > 1) {
      id += "." + run.options[k].first + "=" + run.options[k].second;
    }
  }
  id += ".s" + std::to_string(run.seed);
  for (char& c : id) {
    if (!id_character(c)) c = '_';
  }
  require(id.size() <= kMaxSweepIdLength, "options",
          "a run's id would be longer than " + std::to_string(kMaxSweepIdLength) +
              " characters, too long for a file name: '" + id +
              "' (shorten the values of the options that vary)");
  return id;
}

std::vector<std::string> train_args(const SweepRun& run, const SweepPlan& plan) {
  std::vector<std::string> args{"train", "--task", run.task, "--position", run.method};
  for (std::size_t k = 0; k < run.options.size(); ++k) {
    const auto& [name, value] = run.options[k];
    if (!plan.options[k].boolean) {
      args.push_back("--" + name + "=" + value);
    } else if (value == "true") {
      args.push_back("--" + name);
    }
  }
  args.insert(args.end(), {"--seed", std::to_string(run.seed), "-q"});
  return args;
}

// Every combination of the options' values, the first option's outermost.
std::vector<std::vector<std::pair<std::string, std::string>>> combinations(
    const std::vector<SweepOption>& options) {
  std::vector<std::vector<std::pair<std::string, std::string>>> out{{}};
  for (const SweepOption& o : options) {
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& partial : out) {
      for (const std::string& v : o.values) {
        next.push_back(partial);
        next.back().emplace_back(o.name, v);
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace

std::vector<SweepRun> expand_sweep(const SweepPlan& plan, const SweepRunCheck& check) {
  const auto combos = combinations(plan.options);
  std::vector<SweepRun> runs;
  std::set<std::string> ids;
  for (const std::string& task : plan.tasks) {
    for (const std::string& method : plan.methods) {
      for (const auto& combo : combos) {
        for (const std::uint64_t seed : plan.seeds) {
          SweepRun run{"", task, method, combo, seed, {}, ""};
          run.id = run_id(run, plan);
          run.train_args = train_args(run, plan);
          run.refusal = check(run);
          require(ids.insert(run.id).second, "options",
                  "two runs of the plan have the id '" + run.id +
                      "': option values that differ only in characters a file name cannot hold");
          runs.push_back(std::move(run));
        }
      }
    }
  }
  return runs;
}

std::vector<const SweepRun*> SweepRunList::runnable() const {
  std::vector<const SweepRun*> out;
  for (const SweepRun& run : runs) {
    if (run.refusal.empty()) out.push_back(&run);
  }
  return out;
}

namespace {

OrderedJson run_json(const SweepRun& run) {
  OrderedJson options = OrderedJson::object();
  for (const auto& [name, value] : run.options) options[name] = value;
  OrderedJson out = {{"id", run.id},       {"task", run.task}, {"method", run.method},
                     {"options", options}, {"seed", run.seed}, {"args", run.train_args}};
  if (!run.refusal.empty()) out["refusal"] = run.refusal;
  return out;
}

SweepRun run_of(const OrderedJson& j) {
  SweepRun run;
  run.id = j.at("id").get<std::string>();
  run.task = j.at("task").get<std::string>();
  run.method = j.at("method").get<std::string>();
  for (const auto& [name, value] : j.at("options").items()) {
    run.options.emplace_back(name, value.get<std::string>());
  }
  run.seed = j.at("seed").get<std::uint64_t>();
  run.train_args = j.at("args").get<std::vector<std::string>>();
  if (j.contains("refusal")) run.refusal = j.at("refusal").get<std::string>();
  require(!run.id.empty() && run.id.size() <= kMaxSweepIdLength && run.id.front() != '.' &&
              std::all_of(run.id.begin(), run.id.end(), id_character),
          "a run's id '" + run.id + "' is not a plain file name");
  return run;
}

}  // namespace

std::string sweep_run_list_json(const SweepRunList& list) {
  OrderedJson resources = {{"cpus", list.resources.cpus},
                           {"mem", list.resources.mem},
                           {"time", list.resources.time},
                           {"partition", list.resources.partition}};
  OrderedJson runs = OrderedJson::array();
  for (const SweepRun& run : list.runs) runs.push_back(run_json(run));
  const OrderedJson out = {{"name", list.name}, {"resources", resources}, {"runs", runs}};
  return out.dump(1) + "\n";
}

SweepRunList parse_sweep_run_list(const std::string& text, const std::string& source) {
  try {
    const OrderedJson j = OrderedJson::parse(text);
    SweepRunList list;
    list.name = j.at("name").get<std::string>();
    const OrderedJson& r = j.at("resources");
    list.resources = {r.at("cpus").get<std::uint64_t>(), r.at("mem").get<std::string>(),
                      r.at("time").get<std::string>(), r.at("partition").get<std::string>()};
    for (const OrderedJson& run : j.at("runs")) list.runs.push_back(run_of(run));
    return list;
  } catch (const nlohmann::json::exception& e) {
    throw Error(source + " is not a sweep's run list (poslab sweep writes it): " + e.what());
  } catch (const Error& e) {
    throw Error(source + " is not a sweep's run list (poslab sweep writes it): " + e.what());
  }
}

}  // namespace poslab::train
