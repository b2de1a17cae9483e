// Inflates on a thread of its own, ahead of the reader: the JSON scan and the model building
// run on the reader's thread while the next pieces of text are being inflated. A bounded
// queue of buffers lies between the two, so memory stays flat however large the file.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model/gzip_inflater.h"
#include "model/ingest_stages.h"

namespace mlprof::model {

class InflateAhead {
 public:
  // Starts inflating at once. The inflater's input is pulled on the inflating thread; `stages`,
  // when given, hears the CPU time inflating takes.
  explicit InflateAhead(std::unique_ptr<GzipInflater> inflater, IngestStages* stages = nullptr);
  // Stops the thread and waits for it, whether the text was read to its end or not.
  ~InflateAhead();
  InflateAhead(const InflateAhead&) = delete;
  InflateAhead& operator=(const InflateAhead&) = delete;

  // Writes up to `room` bytes of text at `out`; *got is 0 only at the end of the text. An
  // error met while inflating is returned here, in order, after the text before it.
  bool read(char* out, size_t room, size_t* got, std::string* error);

 private:
  static constexpr size_t kBufferBytes = size_t(1) << 20;
  static constexpr size_t kBuffers = 4;  // filled and being read, at most

  struct Piece {
    std::vector<unsigned char> bytes;
    size_t size = 0;  // the text in `bytes`; 0 marks the end (or the error)
  };

  void inflate_all();

  std::unique_ptr<GzipInflater> inflater_;
  IngestStages* stages_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Piece> filled_;                   // inflated, in order
  std::vector<std::vector<unsigned char>> spare_;  // buffers to fill again
  size_t buffers_out_ = 0;                     // buffers filled or being filled or read
  bool stop_ = false;                          // the reader is gone
  bool ended_ = false;                         // the thread queued the end (or an error)
  std::string error_;                          // why inflating stopped early
  Piece reading_;                              // the reader's current piece
  size_t read_at_ = 0;
  bool done_ = false;                          // the reader took the end
  std::thread thread_;
};

}  // namespace mlprof::model
