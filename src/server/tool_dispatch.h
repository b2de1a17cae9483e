// Tool id -> the analysis function that computes it and its JSON and CSV forms: the same
// functions `mlprof report` calls. A tool added to src/analysis appears in the server (and
// the UI's tool list) once it has a line in tool_dispatch.cc.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "server/analyzed_profile.h"

namespace mlprof::server {

using ToolOptionValues = std::map<std::string, std::string>;

struct ToolEntry {
  std::string_view name;   // XProf's id, as in `mlprof report --tool`
  std::string_view title;  // the UI's name for it
  // Whether the profile has anything for this tool to show (the UI lists only those).
  bool (*has_data)(const AnalyzedProfile&);
  std::string (*json)(const AnalyzedProfile&, const ToolOptionValues&);
  std::string (*csv)(const AnalyzedProfile&, const ToolOptionValues&);
  std::span<const std::string_view> options;  // the options it accepts
};

// In the order the UI lists them.
std::span<const ToolEntry> tool_entries();
const ToolEntry* find_tool(std::string_view name);

}  // namespace mlprof::server
