// A file written through a buffer, gzip-compressed when its name ends in ".gz", so writers
// stream any amount of output without holding it in memory.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace mlprof::format {

class TraceOutputFile {
 public:
  // Opens (truncates) the file; check ok() before writing.
  explicit TraceOutputFile(const std::string& path);
  ~TraceOutputFile();
  TraceOutputFile(const TraceOutputFile&) = delete;
  TraceOutputFile& operator=(const TraceOutputFile&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  void write(std::string_view bytes) {
    buffer_.append(bytes);
    if (buffer_.size() >= kFlushBytes) flush();
  }
  // Writes out what is buffered and closes the file; false (see error()) when that failed.
  bool close();

 private:
  static constexpr size_t kFlushBytes = size_t(1) << 20;
  void flush();

  struct Sink;
  std::unique_ptr<Sink> sink_;
  std::string path_;
  std::string buffer_;
  std::string error_;
};

}  // namespace mlprof::format
