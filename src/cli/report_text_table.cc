#include "cli/report_text_table.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace mlprof::cli {
namespace {

constexpr size_t kDefaultWidth = 100;
// Narrower than this, nothing reads well; a smaller $COLUMNS is taken as this.
constexpr size_t kMinWidth = 40;
// A text column is not shortened below this to fit a table into the line.
constexpr size_t kMinTextColumn = 16;

}  // namespace

size_t text_width() {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0) return std::max(size_t(n), kMinWidth);
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::max(size_t(size.ws_col), kMinWidth);
  return kDefaultWidth;
}

std::string wrap_text(const std::string& text, size_t width, const std::string& first_indent,
                      const std::string& hanging_indent) {
  std::istringstream words(text);
  std::string out, line = first_indent;
  bool line_has_word = false;
  for (std::string word; words >> word;) {
    if (line_has_word && display_width(line) + 1 + display_width(word) > width) {
      out += line + "\n";
      line = hanging_indent, line_has_word = false;
    }
    line += (line_has_word ? " " : "") + word;
    line_has_word = true;
  }
  return out + line + "\n";
}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> numeric, size_t max_text_width)
    : header_(std::move(header)), numeric_(std::move(numeric)), max_text_width_(max_text_width) {
  numeric_.resize(header_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::vector<size_t> TextTable::column_widths(size_t line_width) const {
  std::vector<size_t> widths(header_.size());
  for (size_t i = 0; i < header_.size(); ++i) widths[i] = display_width(header_[i]);
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size(); ++i) {
      const size_t w = display_width(row[i]);
      widths[i] = std::max(widths[i], numeric_[i] ? w : std::min(w, max_text_width_));
    }
  // Too wide for the line: take a column from the widest text column, one at a time.
  size_t total = 2 * (widths.size() - 1);
  for (size_t w : widths) total += w;
  while (total > line_width) {
    size_t widest = widths.size();
    for (size_t i = 0; i < widths.size(); ++i)
      if (!numeric_[i] && widths[i] > std::max(kMinTextColumn, display_width(header_[i])) &&
          (widest == widths.size() || widths[i] > widths[widest]))
        widest = i;
    if (widest == widths.size()) break;
    --widths[widest], --total;
  }
  return widths;
}

std::string TextTable::render(const std::string& indent, size_t line_width) const {
  std::vector<size_t> widths = column_widths(line_width > indent.size() ? line_width - indent.size() : 0);
  std::vector<std::vector<std::string>> rows = rows_;
  for (size_t c = 0; c < header_.size(); ++c) {
    if (numeric_[c]) continue;
    std::vector<std::string> column;
    for (const auto& row : rows) column.push_back(row[c]);
    column = shorten_names(column, widths[c]);
    size_t used = display_width(header_[c]);
    for (size_t r = 0; r < rows.size(); ++r) rows[r][c] = column[r], used = std::max(used, display_width(column[r]));
    widths[c] = used;
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    out += indent;
    for (size_t i = 0; i < cells.size(); ++i) {
      const size_t pad = widths[i] - display_width(cells[i]);
      const bool last = i + 1 == cells.size();
      if (numeric_[i]) out += std::string(pad, ' ') + cells[i];
      else out += cells[i] + (last ? "" : std::string(pad, ' '));
      if (!last) out += "  ";
    }
    out += '\n';
  };
  line(header_);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : rows) line(row);
  return out;
}

std::string format_ms(double ms) {
  if (ms >= 1000) return fmt::format("{:.3f} s", ms / 1000);
  if (ms >= 1) return fmt::format("{:.3f} ms", ms);
  if (ms > 0) return fmt::format("{:.1f} us", ms * 1000);
  return "0";
}

std::string format_pct(double pct) { return fmt::format("{:.1f}%", pct); }

}  // namespace mlprof::cli
