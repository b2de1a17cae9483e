#include "analysis/python_frames.h"

namespace mlprof::analysis {

PythonFrame parse_python_frame(std::string_view name) {
  PythonFrame f;
  if (name.starts_with('$')) {  // "$dir/file.py:91 start_trace"
    const size_t space = name.find(' ');
    if (space == std::string_view::npos || space + 1 >= name.size()) return f;
    const size_t colon = name.rfind(':', space);
    if (colon == std::string_view::npos || colon == 0) return f;
    f.file = name.substr(1, colon - 1);
    f.function = name.substr(space + 1);
    return f;
  }
  const size_t paren = name.find(".py(");  // "dir/file.py(91): start_trace"
  if (paren == std::string_view::npos) return f;
  const size_t close = name.find("): ", paren);
  if (close == std::string_view::npos || close + 3 >= name.size()) return f;
  f.file = name.substr(0, paren + 3);
  f.function = name.substr(close + 3);
  return f;
}

std::string_view file_name_of(std::string_view file) {
  const size_t slash = file.rfind('/');
  return slash == std::string_view::npos ? file : file.substr(slash + 1);
}

}  // namespace mlprof::analysis
