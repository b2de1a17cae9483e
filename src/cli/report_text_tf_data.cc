#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

std::string render_text(const TfDataBottleneckAnalysis& a, std::string_view no_data) {
  std::string out = "Input pipeline bottleneck analysis\n";
  if (a.pipelines.empty()) {
    return out + std::string(no_data);
  }
  const InputPipeline& worst = a.pipelines.front();
  if (!a.note.empty()) {
    out += "\n  " + a.note + "\n";
  } else if (worst.bottleneck >= 0) {
    const auto& b = worst.nodes[size_t(worst.bottleneck)];
    out += fmt::format("\n  Slowest pipeline: {} on host {} (slowest call {}).\n", worst.name, worst.host_name,
                       format_ms(double(worst.max_ps) / 1e9));
    out += fmt::format("  Bottleneck: {} ({}), self time {}.\n", b.long_name, worst.bottleneck_kind,
                       format_ms(double(b.self_ps) / 1e9));
    out += "  Suggestion: " + worst.suggestion + "\n";
  }
  out += "\nAll input pipelines (a call slower than 50 us is slow)\n";
  TextTable all({"host", "pipeline", "calls", "slow calls", "average", "max", "bottleneck"},
                {false, false, true, true, true, true, false});
  for (const auto& pl : a.pipelines)
    all.add_row({pl.host_name, pl.name, std::to_string(pl.calls), std::to_string(pl.slow_calls),
                 format_ms(pl.calls ? double(pl.total_ps) / 1e9 / double(pl.calls) : 0), format_ms(double(pl.max_ps) / 1e9),
                 pl.bottleneck >= 0 ? pl.nodes[size_t(pl.bottleneck)].type : ""});
  out += all.render();

  for (const auto& pl : a.pipelines) {
    out += fmt::format("\nPipeline {} on {}: slowest call (* critical path, ! bottleneck)\n", pl.name, pl.host_name);
    TextTable tree({"", "iterator", "calls", "total", "self"}, {false, false, true, true, true}, 80);
    std::vector<std::pair<int, int>> stack = {{0, 0}};
    while (!stack.empty()) {
      auto [node, depth] = stack.back();
      stack.pop_back();
      const auto& n = pl.nodes[size_t(node)];
      const std::string mark = node == pl.bottleneck ? "!" : n.on_critical_path ? "*" : "";
      tree.add_row({mark, std::string(size_t(depth) * 2, ' ') + n.type + (n.is_async ? " (async)" : ""),
                    std::to_string(n.calls), format_ms(double(n.total_ps) / 1e9), format_ms(double(n.self_ps) / 1e9)});
      for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back({*it, depth + 1});
    }
    out += tree.render();
  }
  return out;
}

}  // namespace mlprof::cli
