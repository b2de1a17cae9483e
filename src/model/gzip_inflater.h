// Streaming gzip inflation: several members one after another, as gunzip reads them, with
// ISA-L's igzip (several times faster than zlib) when it was found at configure time, and
// zlib otherwise or on request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mlprof::model {

enum class GzipEngine : uint8_t {
  kFastest,  // igzip when built with it, else zlib
  kZlib,
};

// Whether this build has igzip.
bool have_igzip();
// "igzip" or "zlib": what `engine` means in this build.
const char* gzip_engine_name(GzipEngine engine);
// The engine with the kernel it inflates with on this processor, for benches to print:
// "igzip avx2", "igzip sse", "igzip base" or "zlib". ISA-L chooses igzip's decode kernel
// from the processor when first called (AVX2, else SSE or AVX, else plain code) and has none
// wider than AVX2, so a machine with AVX-512 inflates with the kernel of one with AVX2.
std::string gzip_kernel_name(GzipEngine engine);

// The next piece of compressed bytes: sets *data and *size (0 at the end of the input) or
// returns false with a one-line reason. The bytes stay valid until the next call.
using GzipInput = std::function<bool(const unsigned char** data, size_t* size, std::string* error)>;

class GzipInflater {
 public:
  static std::unique_ptr<GzipInflater> make(GzipEngine engine, GzipInput input);
  virtual ~GzipInflater() = default;

  // Writes up to `room` bytes of text at `out`; *got is 0 only at the end of the text. Bytes
  // after the last member that do not start another one are ignored, as gunzip does.
  virtual bool read(unsigned char* out, size_t room, size_t* got, std::string* error) = 0;
};

inline bool is_gzip(const unsigned char* bytes, size_t size) {
  return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

}  // namespace mlprof::model
