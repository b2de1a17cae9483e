// The note a tool's text gives when the profile has no data for it: the registry's reason and
// how to get the data, in one place for every renderer.
#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

std::string no_data_note(const analysis::Tool& tool) {
  return "\n" + wrap_text(std::string(tool.no_data_reason) + " " + std::string(tool.how_to_get), text_width(), "  ",
                          "  ");
}

}  // namespace mlprof::cli
