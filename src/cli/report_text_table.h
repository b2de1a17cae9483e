// Text for the terminal: aligned tables (numbers right-aligned, text left-aligned, long names
// shortened so that the table fits the terminal), long names shortened, prose wrapped.
#pragma once

#include <string>
#include <vector>

#include "cli/name_shortening.h"

namespace mlprof::cli {

// The columns text is laid out in: $COLUMNS when set, else the terminal's width when standard
// output is one, else 100.
size_t text_width();

class TextTable {
 public:
  // `numeric[i]` right-aligns column i; text columns are at most `max_text_width` wide.
  TextTable(std::vector<std::string> header, std::vector<bool> numeric, size_t max_text_width = 60);
  void add_row(std::vector<std::string> cells);
  // The rows fit in `line_width` columns, indent included, where shortening the widest text
  // columns (never below a readable minimum) can make them fit.
  std::string render(const std::string& indent = "  ", size_t line_width = text_width()) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<size_t> column_widths(size_t line_width) const;

  std::vector<std::string> header_;
  std::vector<bool> numeric_;
  size_t max_text_width_;
  std::vector<std::vector<std::string>> rows_;
};


// `text` filled into lines of at most `width` columns: the first line starts with
// `first_indent`, the next ones with `hanging_indent`. A word longer than a line gets one alone.
std::string wrap_text(const std::string& text, size_t width, const std::string& first_indent,
                      const std::string& hanging_indent);


// "12.345 ms", "1.234 s", "345.6 us"
std::string format_ms(double ms);
std::string format_pct(double pct);

}  // namespace mlprof::cli
