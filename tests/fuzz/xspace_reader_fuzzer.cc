// libFuzzer target: the XSpace reader (format/xspace_reader.h) on arbitrary bytes. It takes
// the file or rejects it with a one-line reason; what it takes serialises and reads again.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/xspace_reader.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using mlprof::fuzz::check;
  // Protobuf logs each string that is not UTF-8; the reader's own error says it already.
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  tensorflow::profiler::XSpace space;
  std::string error;
  if (!mlprof::format::parse_xspace(data, size, &space, &error)) {
    mlprof::fuzz::check_one_line_error(error);
    return 0;
  }
  const std::string again = space.SerializeAsString();
  tensorflow::profiler::XSpace reread;
  std::string reread_error;
  check(mlprof::format::parse_xspace(again.data(), again.size(), &reread, &reread_error),
        "an accepted XSpace, written again, is accepted again");
  check(reread.planes_size() == space.planes_size(), "the second reading has the same planes");
  return 0;
}
