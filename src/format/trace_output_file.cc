#include "format/trace_output_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mlprof::format {

// Either a plain FILE or a gzip stream.
struct TraceOutputFile::Sink {
  FILE* plain = nullptr;
  gzFile gz = nullptr;
};

TraceOutputFile::TraceOutputFile(const std::string& path) : sink_(std::make_unique<Sink>()), path_(path) {
  buffer_.reserve(kFlushBytes + 4096);
  if (path.ends_with(".gz")) {
    sink_->gz = gzopen(path.c_str(), "wb6");
    if (sink_->gz) gzbuffer(sink_->gz, 1 << 18);
  } else {
    sink_->plain = std::fopen(path.c_str(), "wb");
  }
  if (!sink_->gz && !sink_->plain) error_ = std::string("cannot create the file (") + std::strerror(errno) + ")";
}

TraceOutputFile::~TraceOutputFile() { close(); }

void TraceOutputFile::flush() {
  if (buffer_.empty() || !ok()) return buffer_.clear();
  bool written = false;
  if (sink_->gz)
    written = gzwrite(sink_->gz, buffer_.data(), unsigned(buffer_.size())) == int(buffer_.size());
  else if (sink_->plain)
    written = std::fwrite(buffer_.data(), 1, buffer_.size(), sink_->plain) == buffer_.size();
  if (!written) error_ = std::string("cannot write the file (") + std::strerror(errno) + ")";
  buffer_.clear();
}

bool TraceOutputFile::close() {
  flush();
  if (sink_->gz && gzclose(sink_->gz) != Z_OK && ok()) error_ = "cannot finish the gzip stream";
  if (sink_->plain && std::fclose(sink_->plain) != 0 && ok()) error_ = std::string("cannot close the file (") + std::strerror(errno) + ")";
  sink_->gz = nullptr;
  sink_->plain = nullptr;
  return ok();
}

}  // namespace mlprof::format
