// Every analysis tool in one table: its id (XProf's names, docs/ARCHITECTURE.md §4), its
// title, whether a profile has data for it (and if not, why and how to get some), the options
// it takes, and how it computes its result, which knows its JSON and CSV forms. `mlprof
// report`, the server's API and the web UI's tool list all read this table; a tool is added
// with one line in tool_registry.cc beside its result struct (docs/ARCHITECTURE.md §9.1).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "analysis/analyzed_profile.h"

namespace mlprof::analysis {

// Option name -> value, as given (`include_idle` -> "1").
using ToolOptionValues = std::map<std::string, std::string>;

// What the caller asked cannot be answered: an option the tool does not have, a value it does
// not take, a form it has no (CSV of a timeline). The CLI's usage error, the server's 400.
class ToolRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // A problem with one option: `problem` has "{option}" where the option's name goes. what()
  // names it as the server's query parameter does (`memory_id`); each caller that spells
  // options otherwise (`--memory-id`) asks worded_for().
  ToolRequestError(std::string_view option, std::string problem);
  std::string worded_for(std::string (*spell)(std::string_view option)) const;

 private:
  std::string option_;
  std::string problem_;  // with "{option}"; empty when no option is named
};

struct ToolOption {
  std::string_view name;  // the server's query parameter; `mlprof report` takes it as --name, '_' as '-'
  std::string_view help;
  bool is_flag = false;                       // takes 1 or 0
  std::span<const std::string_view> choices = {};  // the values it takes; empty: any text
  bool repeatable = false;  // may be given several times: the values arrive one a line
};

// One tool's result: the tool's own struct (OverviewPage, KernelStatsTable, ...) with its JSON
// and CSV forms, the to_json and to_csv that sit beside the struct.
class ToolResult {
 public:
  // A result computed for this call.
  template <class T>
  static ToolResult owned(T value) {
    return ToolResult(std::make_shared<const T>(std::move(value)), typeid(T), &json_of<T>, &csv_of<T>);
  }
  // A result the AnalyzedProfile keeps: valid while that AnalyzedProfile lives.
  template <class T>
  static ToolResult kept(const T& value) {
    return ToolResult(std::shared_ptr<const void>(std::shared_ptr<const void>(), &value), typeid(T), &json_of<T>,
                      &csv_of<T>);
  }

  nlohmann::json json() const { return json_(value_.get()); }
  std::string csv() const { return csv_(value_.get()); }  // may throw ToolRequestError

  // The struct itself when it is a T (text renderers ask for their type), else nullptr.
  template <class T>
  const T* get() const {
    return *type_ == typeid(T) ? static_cast<const T*>(value_.get()) : nullptr;
  }

 private:
  using JsonOf = nlohmann::json (*)(const void*);
  using CsvOf = std::string (*)(const void*);
  ToolResult(std::shared_ptr<const void> value, const std::type_info& type, JsonOf json, CsvOf csv)
      : value_(std::move(value)), type_(&type), json_(json), csv_(csv) {}
  template <class T>
  static nlohmann::json json_of(const void* v) {
    return to_json(*static_cast<const T*>(v));
  }
  template <class T>
  static std::string csv_of(const void* v) {
    return to_csv(*static_cast<const T*>(v));
  }

  std::shared_ptr<const void> value_;
  const std::type_info* type_;
  JsonOf json_;
  CsvOf csv_;
};

class RunSummary;  // host_summary.h

// How a summary-level tool computes: the parts of each file's summary it reads (host_summary.h's
// kPodHosts, ...; only those are made), and its result from the joined summary.
struct SummaryForm {
  unsigned reads;
  ToolResult (*compute)(const RunSummary&, const ToolOptionValues&);
};

struct Tool {
  std::string_view id;     // XProf's tool id, as in `mlprof report --tool` and /api/data?tool=
  std::string_view title;  // what the UI calls it
  // Whether the profile has anything for the tool to show; when not, why not (one sentence)
  // and what to do to get the data (one or two).
  bool (*has_data)(const AnalyzedProfile&);
  std::string_view no_data_reason;
  std::string_view how_to_get;
  std::span<const ToolOption> options;
  // Options are checked before (run_tool); values are as given.
  ToolResult (*compute)(const AnalyzedProfile&, const ToolOptionValues&);
  // Summary-level tools: the same result from the run's per-host summaries (host_summary.h),
  // so that a run is read without holding its events. Null for event-level tools, which need
  // every event (the trace viewer, the memory profile, ...).
  const SummaryForm* from_summary = nullptr;

  bool reads_summaries() const { return from_summary != nullptr; }
};

// Every tool, in the order the UI lists them.
std::span<const Tool> tools();
const Tool* find_tool(std::string_view id);
// "overview_page, input_pipeline_analyzer, ...": the valid ids, for messages.
std::string tool_ids();
// "a, b or c", for messages and help texts.
std::string spoken_list(std::span<const std::string_view> items);

// Throws ToolRequestError for an option the tool does not have, or a value it does not take.
void check_options(const Tool& tool, const ToolOptionValues& options);
// Checks the options, then computes.
ToolResult run_tool(const Tool& tool, const AnalyzedProfile& profile, const ToolOptionValues& options);
// The same from a run's summaries; only for a tool that reads_summaries().
ToolResult run_tool(const Tool& tool, const RunSummary& summary, const ToolOptionValues& options);

}  // namespace mlprof::analysis
