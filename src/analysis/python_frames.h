// Python frames as the profilers record them: TraceMe's "$file.py:LINE function" (TensorFlow,
// JAX, mlprof's Python tracer) and PyTorch's "path/file.py(LINE): function".
#pragma once

#include <string_view>

namespace mlprof::analysis {

struct PythonFrame {
  std::string_view file;      // as written, its directories included ("torch/profiler/profiler.py")
  std::string_view function;  // "start_trace"
  bool valid() const { return !function.empty(); }
};

// The frame a name records; invalid (empty) when the name is no Python frame.
PythonFrame parse_python_frame(std::string_view name);

// The file's last path component: "profiler.py".
std::string_view file_name_of(std::string_view file);

}  // namespace mlprof::analysis
