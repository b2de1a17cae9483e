#include "cli/report_text_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace mlprof::cli {
namespace {

// Display width of UTF-8 text (counts code points; enough for names and units).
size_t width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string cut(const std::string& s, size_t max) {
  if (width(s) <= max || max < 4) return s;
  // Keep the end: op and iterator names say the most there.
  size_t keep = max - 3, bytes = s.size();
  size_t w = 0;
  while (bytes > 0 && w < keep) {
    --bytes;
    if ((static_cast<unsigned char>(s[bytes]) & 0xC0) != 0x80) ++w;
  }
  return "..." + s.substr(bytes);
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> numeric, size_t max_text_width)
    : header_(std::move(header)), numeric_(std::move(numeric)), max_text_width_(max_text_width) {
  numeric_.resize(header_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  for (size_t i = 0; i < cells.size(); ++i)
    if (!numeric_[i]) cells[i] = cut(cells[i], max_text_width_);
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<size_t> widths(header_.size());
  for (size_t i = 0; i < header_.size(); ++i) widths[i] = width(header_[i]);
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], width(row[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    out += indent;
    for (size_t i = 0; i < cells.size(); ++i) {
      const size_t pad = widths[i] - width(cells[i]);
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
  for (const auto& row : rows_) line(row);
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
