#include "model/inflate_ahead.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace mlprof::model {

InflateAhead::InflateAhead(std::unique_ptr<GzipInflater> inflater, IngestStages* stages)
    : inflater_(std::move(inflater)), stages_(stages) {
  thread_ = std::thread([this] { inflate_all(); });
}

InflateAhead::~InflateAhead() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void InflateAhead::inflate_all() {
  for (;;) {
    std::vector<unsigned char> buffer;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || buffers_out_ < kBuffers; });
      if (stop_) return;
      ++buffers_out_;
      if (!spare_.empty()) {
        buffer = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    std::string error;
    size_t size = 0;
    bool ok = true;
    StageTimer timer(stages_, IngestStages::kInflate);
    try {
      buffer.resize(kBufferBytes);
      // Fill the buffer: the reader's pieces are then as large as its window asks for.
      while (ok && size < buffer.size()) {
        size_t got = 0;
        ok = inflater_->read(buffer.data() + size, buffer.size() - size, &got, &error);
        if (got == 0) break;
        size += got;
      }
    } catch (const std::bad_alloc&) {
      ok = false;
      error = "out of memory while decompressing";
    }
    timer.stop();
    std::lock_guard lock(mutex_);
    if (size > 0) filled_.push_back({std::move(buffer), size});
    if (!ok || size == 0) {
      if (!ok) error_ = std::move(error);
      ended_ = true;
      changed_.notify_all();
      return;
    }
    changed_.notify_all();
  }
}

bool InflateAhead::read(char* out, size_t room, size_t* got, std::string* error) {
  *got = 0;
  if (done_ && !error_.empty()) {  // the error stays: the text after it is missing
    *error = error_;
    return false;
  }
  while (room > 0 && !done_) {
    if (read_at_ < reading_.size) {
      const size_t n = std::min(room, reading_.size - read_at_);
      std::memcpy(out, reading_.bytes.data() + read_at_, n);
      read_at_ += n;
      *got += n;
      out += n;
      room -= n;
      continue;
    }
    if (*got > 0) break;  // hand over what is here rather than wait
    std::unique_lock lock(mutex_);
    if (!reading_.bytes.empty()) {
      spare_.push_back(std::move(reading_.bytes));
      --buffers_out_;
      changed_.notify_all();
    }
    reading_ = {};
    read_at_ = 0;
    changed_.wait(lock, [&] { return !filled_.empty() || ended_; });
    if (!filled_.empty()) {
      reading_ = std::move(filled_.front());
      filled_.pop_front();
      continue;
    }
    done_ = true;
    if (!error_.empty()) {
      *error = error_;
      return false;
    }
  }
  return true;
}

}  // namespace mlprof::model
