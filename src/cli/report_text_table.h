// Aligned text tables for the terminal: numbers right-aligned, text left-aligned, long text cut.
#pragma once

#include <string>
#include <vector>

namespace mlprof::cli {

class TextTable {
 public:
  // `numeric[i]` right-aligns column i.
  TextTable(std::vector<std::string> header, std::vector<bool> numeric, size_t max_text_width = 60);
  void add_row(std::vector<std::string> cells);
  std::string render(const std::string& indent = "  ") const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<bool> numeric_;
  size_t max_text_width_;
  std::vector<std::vector<std::string>> rows_;
};

// "12.345 ms", "1.234 s", "345.6 us"
std::string format_ms(double ms);
std::string format_pct(double pct);

}  // namespace mlprof::cli
