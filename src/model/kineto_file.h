// The text of a PyTorch trace file (Kineto's Chrome-trace JSON, plain or gzip-compressed),
// read piece by piece: a gzip file is inflated as it is read, so no more than one piece of
// the text is ever held here however large the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlprof::model::kineto {

class JsonSource {
 public:
  JsonSource();
  ~JsonSource();
  JsonSource(const JsonSource&) = delete;
  JsonSource& operator=(const JsonSource&) = delete;

  // Opens `path`, inflating it when it starts with the gzip magic (whatever its name says).
  // Returns false with a one-line reason (without the path) when it cannot.
  bool open_file(const std::string& path, std::string* error);
  // The same for bytes in memory, which must outlive the reads.
  void open_bytes(const void* bytes, size_t size);

  // Writes up to `room` bytes of text at `out`; *got is 0 only at the end of the text.
  bool read(char* out, size_t room, size_t* got, std::string* error);

  // How much of the input (compressed bytes for gzip) has been read, for a progress bar.
  uint64_t input_size() const { return input_size_; }
  uint64_t input_read() const { return input_read_; }

 private:
  bool next_input(std::string* error);  // refills the inflater's input
  bool read_plain(char* out, size_t room, size_t* got, std::string* error);
  bool inflate(char* out, size_t room, size_t* got, std::string* error);

  int fd_ = -1;
  const unsigned char* bytes_ = nullptr;  // open_bytes: the input
  uint64_t input_size_ = 0, input_read_ = 0;
  bool gzip_ = false;
  bool input_done_ = false;
  bool stream_end_ = false;                // the last gzip member ended
  std::vector<unsigned char> sniffed_;     // bytes read from the file to recognise gzip
  std::vector<unsigned char> input_;       // gzip: compressed bytes from the file
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
};

}  // namespace mlprof::model::kineto
