// Finds where JSON values end in text that arrives in pieces, without parsing it: it follows
// strings (with their escapes) and the nesting of objects and arrays, 64 bytes at a time.
// The PyTorch importer uses it to cut a trace's event array into batches of whole events that
// simdjson then parses and checks (simdjson 3.0 reads a comma-separated stream only as one
// document, which would hold the whole file in memory).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlprof::model {

class JsonStructureScanner {
 public:
  // `wide`: with 256-bit vectors (AVX2) where the processor has them and widest_bits() allows
  // (tests turn them off to check the 128-bit path too). The path is chosen at run time, so a
  // binary runs the same kernels on every machine that has AVX2.
  explicit JsonStructureScanner(bool wide = true);

  // The widest vectors a scanner uses on this machine: 256 with AVX2, else 128. The environment
  // variable MLPROF_JSON_SCANNER_BITS=128 (read once) narrows it, so that a bench can run the
  // path of a machine without AVX2 here.
  static int widest_bits();
  // The kernel this scanner runs, for benches to print: "avx2", "sse2" or "scalar".
  const char* kernel_name() const;

  enum class Stop : uint8_t {
    kNone,   // reached the end of the text
    kClose,  // a '}' or ']' closed the container the scan started in
    kComma,  // a ',' outside any nested container (only when asked for)
  };
  struct Result {
    Stop stop = Stop::kNone;
    size_t at = 0;             // kClose, kComma: the position of that character
    size_t last_value_end = 0; // just past the last '}' or ']' that came back to the starting depth; 0 if none
  };

  // Starts again outside any string, at the depth of the container whose contents follow.
  void reset() { depth_ = 0, in_string_ = 0, escape_carry_ = 0; }

  // Scans text[from, to), carrying on from the state the previous call ended in (so `from` is
  // the previous `to`). After a stop the state is that of the middle of the text: reset().
  Result scan(const char* text, size_t from, size_t to, bool stop_at_comma);

  int64_t depth() const { return depth_; }
  bool in_string() const { return in_string_ != 0; }

 private:
  template <typename Classify>
  Result scan_with(const char* text, size_t from, size_t to, bool stop_at_comma);
  Result scan_wide(const char* text, size_t from, size_t to, bool stop_at_comma);

  bool wide_ = false;
  int64_t depth_ = 0;
  uint64_t in_string_ = 0;     // all ones while the text is inside a string
  uint64_t escape_carry_ = 0;  // 1 when the previous piece ended in an unescaped backslash
};

}  // namespace mlprof::model
