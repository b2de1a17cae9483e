// CSV output (RFC 4180): fields with commas, quotes or line breaks are quoted.
#pragma once

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

inline void append_csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    append_csv_field(out, fields[i]);
  }
  out += '\n';
}

}  // namespace mlprof::analysis
