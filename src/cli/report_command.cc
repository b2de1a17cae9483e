// mlprof report PATH --tool T: runs one tool of the registry (analysis/tool_registry.h) on a
// profile and prints its result as text (for a person), JSON or CSV (for scripts).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "analysis/analyzed_profile.h"
#include "analysis/host_summary.h"
#include "analysis/tool_registry.h"
#include "cli/commands.h"
#include "cli/load_request.h"
#include "cli/progress_bar.h"
#include "cli/report_text.h"
#include "model/load_profile.h"

namespace mlprof::cli {
namespace {

struct ReportOptions {
  std::string path;
  std::string tool{analysis::tools().front().id};  // the overview, first in the registry
  std::string run;
  std::string host;
  std::string format = "text";
  unsigned jobs = 0;  // --jobs
  // The tools' options by name (the registry's), as the command line has them.
  std::map<std::string, CLI::Option*> tool_options;
  std::map<std::string, std::string> texts;
  std::map<std::string, bool> flags;

  // The tool options the command line gave (check_options refuses those `tool` does not take);
  // the others are left to their defaults.
  analysis::ToolOptionValues given() const {
    analysis::ToolOptionValues values;
    for (const auto& [name, option] : tool_options) {
      if (option->count() == 0) continue;
      values[name] = flags.count(name) ? (flags.at(name) ? "1" : "0") : texts.at(name);
    }
    return values;
  }
};

// How the command line spells a tool option: --name, '_' written '-'.
std::string option_flag(std::string_view name) {
  std::string flag = "--" + std::string(name);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

// The text format's first line: what was read.
std::string run_header(const ReportOptions& o, const std::string& run, size_t hosts, size_t events) {
  return o.format == "text" ? fmt::format("Run {}, {} host(s), {} events\n\n", run, hosts, events) : "";
}

// Prints `header` and what `compute` gives in the asked format. The result is computed first,
// so that a request the tool cannot answer (a usage error) comes before any output.
template <class Compute>
int print_result(const ReportOptions& o, const analysis::Tool& tool, const std::string& header, Compute compute,
                 bool incomplete, size_t events) {
  const int status = incomplete ? kBadInput : kOk;
  // No events: no verdict or table of zeros, but why there is nothing and how to record it.
  if (o.format == "text" && events == 0) {
    fmt::print("{}{}\n{}", header, tool.title, no_data_note(tool));
    return status;
  }
  std::string text;
  try {
    const analysis::ToolResult result = compute();
    if (o.format == "json") text = result.json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    else if (o.format == "csv") text = result.csv();
    else text = render_tool_text(tool, result);
  } catch (const analysis::ToolRequestError& e) {
    return usage_error(e.worded_for(option_flag));
  }
  fmt::print("{}{}", header, text);
  return status;
}

int report_whole(const ReportOptions& o, const analysis::Tool& tool, const analysis::ToolOptionValues& values);

// A summary-level tool (tool_registry.h): the run is read one file at a time, each file's events
// dropped once summarised, and the tool computed from the summaries, as from the whole run (a
// run whose hosts must be analysed together is read again, whole).
int report_from_summaries(const ReportOptions& o, const analysis::Tool& tool, const analysis::ToolOptionValues& values) {
  analysis::RunSummary summary;
  model::LoadError error;
  bool incomplete = false;
  {
    ProgressBar bar("loading " + o.path);
    if (!analysis::load_run_summary(load_request(o.path, o.run, o.host, o.jobs, &bar), tool.from_summary->reads,
                                    &summary, &error)) {
      if (summary.hosts() == 0) return bad_input(error.path, error.problem);
      incomplete = true;
    }
  }
  if (!summary.exact()) return report_whole(o, tool, values);
  if (incomplete) bad_input(error.path, error.problem);
  return print_result(o, tool, run_header(o, summary.run(), summary.hosts(), summary.events()),
                      [&] { return analysis::run_tool(tool, summary, values); }, incomplete, summary.events());
}

int run_report(const ReportOptions& o) {
  const analysis::Tool* tool = analysis::find_tool(o.tool);
  if (!tool) return usage_error(fmt::format("unknown tool \"{}\" (tools: {})", o.tool, analysis::tool_ids()));
  const analysis::ToolOptionValues values = o.given();
  // Options the tool does not take are refused before the run is read.
  try {
    analysis::check_options(*tool, values);
  } catch (const analysis::ToolRequestError& e) {
    return usage_error(e.worded_for(option_flag));
  }
  if (tool->reads_summaries()) return report_from_summaries(o, *tool, values);
  return report_whole(o, *tool, values);
}

// Reads every event of the run, then computes the tool.
int report_whole(const ReportOptions& o, const analysis::Tool& tool, const analysis::ToolOptionValues& values) {
  model::Profile profile;
  model::LoadError error;
  bool incomplete = false;  // some hosts could not be read: the report is of the others
  {
    ProgressBar bar("loading " + o.path);
    if (!model::load_profile(load_request(o.path, o.run, o.host, o.jobs, &bar), &profile, &error)) {
      if (profile.hosts.empty()) return bad_input(error.path, error.problem);
      incomplete = true;
    }
  }
  if (incomplete) bad_input(error.path, error.problem);

  const std::string header = run_header(o, profile.run, profile.hosts.size(), profile.num_events());
  const size_t events = profile.num_events();
  const analysis::AnalyzedProfile analyzed(std::move(profile));
  return print_result(o, tool, header, [&] { return analysis::run_tool(tool, analyzed, values); }, incomplete, events);
}

// Each option of the registry's tools once, as --name ('_' written '-'), its help saying
// which tools take it.
void add_tool_options(CLI::App* sub, ReportOptions& o) {
  std::map<std::string_view, std::vector<std::string_view>> takers;
  std::vector<const analysis::ToolOption*> options;
  for (const analysis::Tool& tool : analysis::tools())
    for (const analysis::ToolOption& option : tool.options) {
      if (takers[option.name].empty()) options.push_back(&option);
      takers[option.name].push_back(tool.id);
    }
  for (const analysis::ToolOption* option : options) {
    const std::string name(option->name);
    const std::string flag = option_flag(name);
    std::string help = fmt::format("{}: {}", fmt::join(takers[option->name], ", "), option->help);
    if (option->is_flag) {
      o.tool_options[name] = sub->add_flag(flag, o.flags[name], help);
    } else {
      CLI::Option* added = sub->add_option(flag, o.texts[name], help);
      if (option->repeatable) added->multi_option_policy(CLI::MultiOptionPolicy::Join);
      if (!option->choices.empty())
        added->check(CLI::IsMember(std::vector<std::string>(option->choices.begin(), option->choices.end())));
      o.tool_options[name] = added;
    }
  }
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* sub = app.add_subcommand("report", fmt::format("Analyse a profile with one tool ({} by default)", o->tool));
  std::vector<std::string_view> ids;
  for (const analysis::Tool& tool : analysis::tools()) ids.push_back(tool.id);
  sub->add_option("PATH", o->path, std::string(kProfilePathHelp))->required();
  sub->add_option("--tool,-t", o->tool, analysis::spoken_list(ids))->capture_default_str();
  sub->add_option("--run", o->run, "the run to analyse (default: the newest)");
  sub->add_option("--host", o->host, "analyse one host only (default: all hosts of the run)");
  sub->add_option("--format,-f", o->format, "text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  add_tool_options(sub, *o);
  add_jobs_option(sub, &o->jobs);
  return {sub, [o]() { return run_report(*o); }};
}

}  // namespace mlprof::cli
