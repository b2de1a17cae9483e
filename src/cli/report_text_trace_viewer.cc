#include <fmt/format.h>

#include "cli/report_text.h"

namespace mlprof::cli {

// A timeline does not fit a terminal: say where to see it.
std::string render_text(const analysis::TraceViewerLink& link) {
  return fmt::format(
      "Trace viewer\n\n"
      "  {} events. See them on a timeline in the web UI (mlprof serve), or write them for Perfetto or\n"
      "  chrome://tracing with mlprof convert --to perfetto|chrome.\n",
      link.num_events);
}

}  // namespace mlprof::cli
