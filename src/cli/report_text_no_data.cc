// The note a tool's text gives when the profile has no data for it: the registry's reason and
// how to get the data, in one place for every renderer.
#include <sstream>
#include <stdexcept>

#include "cli/report_text.h"

namespace mlprof::cli {

std::string no_data_note(std::string_view tool_id) {
  const analysis::Tool* tool = analysis::find_tool(tool_id);
  if (!tool) throw std::logic_error("no tool " + std::string(tool_id) + " in the registry");
  // Words filled into lines of at most 100 columns, indented by two.
  constexpr size_t kWidth = 100;
  std::istringstream words(std::string(tool->no_data_reason) + " " + std::string(tool->how_to_get));
  std::string out = "\n", line;
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > kWidth) out += line + "\n", line.clear();
    line += line.empty() ? "  " + word : " " + word;
  }
  return out + line + "\n";
}

}  // namespace mlprof::cli
