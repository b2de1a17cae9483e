// The text of a PyTorch trace file (Kineto's Chrome-trace JSON, plain or gzip-compressed),
// read piece by piece into the caller's buffer: a gzip file is inflated straight into it, on the
// caller's thread (the walk that cuts the text into batches runs on a thread of its own, so the
// inflating is already beside the parsing), so no more than one piece of the text is ever held
// here however large the file.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/gzip_inflater.h"
#include "model/ingest_stages.h"

namespace mlprof::model::kineto {

class JsonSource {
 public:
  JsonSource();
  ~JsonSource();
  JsonSource(const JsonSource&) = delete;
  JsonSource& operator=(const JsonSource&) = delete;

  // Opens `path`, inflating it when it starts with the gzip magic (whatever its name says).
  // Returns false with a one-line reason (without the path) when it cannot. `stages`, when
  // given, hears the CPU time inflating takes.
  bool open_file(const std::string& path, std::string* error, GzipEngine engine = GzipEngine::kFastest,
                 IngestStages* stages = nullptr);
  // The same for bytes in memory, which must outlive the reads.
  void open_bytes(const void* bytes, size_t size, GzipEngine engine = GzipEngine::kFastest);

  // Writes up to `room` bytes of text at `out`; *got is 0 only at the end of the text.
  bool read(char* out, size_t room, size_t* got, std::string* error);

  // About how many bytes of text the input holds, to size what is read from it: the file's size,
  // or for gzip the size its trailer gives (modulo 4 GiB; 0 when it cannot be read).
  uint64_t text_size_hint() const { return text_size_hint_; }

  // Whether rewind() can start the text again: a regular file or bytes in memory (not a pipe).
  bool can_rewind() const { return bytes_ != nullptr || regular_file_; }
  // Starts the text again from its first byte. Returns false with a one-line reason when it cannot.
  bool rewind(std::string* error);

  // How much of the input (compressed bytes for gzip) has been read, for a progress bar.
  uint64_t input_size() const { return input_size_; }
  uint64_t input_read() const { return input_read_.load(std::memory_order_relaxed); }

 private:
  // The gzip input, pulled as the inflater needs it.
  bool next_input(const unsigned char** data, size_t* size, std::string* error);
  bool read_plain(char* out, size_t room, size_t* got, std::string* error);
  void start_inflating(GzipEngine engine);

  int fd_ = -1;
  const unsigned char* bytes_ = nullptr;  // open_bytes: the input
  uint64_t input_size_ = 0;
  uint64_t text_size_hint_ = 0;
  std::atomic<uint64_t> input_read_{0};
  bool gzip_ = false;
  bool regular_file_ = false;
  GzipEngine engine_ = GzipEngine::kFastest;
  IngestStages* stages_ = nullptr;
  std::vector<unsigned char> sniffed_;     // bytes read from the file to recognise gzip
  std::vector<unsigned char> input_;       // gzip: compressed bytes from the file
  std::unique_ptr<GzipInflater> inflater_;  // gzip
};

}  // namespace mlprof::model::kineto
