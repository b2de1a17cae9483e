// CSV output (RFC 4180): fields with commas, quotes or line breaks are quoted.
#pragma once

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace mlprof::analysis {

inline void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// A number as the shortest text that reads back as the same double: a spreadsheet gets every
// digit (six significant ones would make a step at 10,800,000.123 ms read 1.08e+07).
inline std::string csv_number(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

inline void append_csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    append_csv_field(out, fields[i]);
  }
  out += '\n';
}

}  // namespace mlprof::analysis
