// The text of a PyTorch trace file (Kineto's Chrome-trace JSON, plain or gzip-compressed) in
// one buffer padded the way simdjson needs, so the parser can read past the end safely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mlprof::model::kineto {

// simdjson parses at most 4 GiB in one document.
inline constexpr uint64_t kMaxJsonBytes = 0xFFFFFFFFull - 64;

class JsonText {
 public:
  JsonText() = default;
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;
  ~JsonText() { release(); }

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }  // size() plus at least the parser's padding
  std::string_view view() const { return {data_, size_}; }

  // Reads `path`, inflating it when it starts with the gzip magic (whatever its name says).
  // Returns false with a one-line reason (without the path) when it cannot.
  bool read_file(const std::string& path, std::string* error);
  // The same for bytes in memory.
  bool assign(const void* bytes, size_t size, std::string* error);

  class ByteSource;  // compressed input, chunk by chunk

 private:
  bool reserve(size_t size, std::string* error);
  bool map_file(int fd, size_t size, std::string* error);
  void release();
  bool inflate(ByteSource& source, uint64_t size_hint, std::string* error);
  void finish(size_t size);  // sets the size and clears the padding

  char* data_ = nullptr;   // malloc'd, or mapped when mapped_bytes_ > 0
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t mapped_bytes_ = 0;
};

}  // namespace mlprof::model::kineto
