#include "model/gzip_inflater.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

#ifdef MLPROF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

namespace mlprof::model {
namespace {

// What both engines share: the input, pulled a piece at a time.
class InflaterBase : public GzipInflater {
 protected:
  explicit InflaterBase(GzipInput input) : input_(std::move(input)) {}

  // Pulls the next piece into next_in / avail_in (both engines count in 32 bits).
  bool refill(const unsigned char** next_in, uint32_t* avail_in, std::string* error) {
    if (pending_size_ == 0 && !input_done_) {
      if (!input_(&pending_, &pending_size_, error)) return false;
      input_done_ = pending_size_ == 0;
    }
    const size_t n = std::min<size_t>(pending_size_, UINT32_MAX);
    *next_in = pending_;
    *avail_in = uint32_t(n);
    pending_ += n;
    pending_size_ -= n;
    return true;
  }
  bool input_done() const { return input_done_ && pending_size_ == 0; }

 private:
  GzipInput input_;
  const unsigned char* pending_ = nullptr;  // input not yet handed to the engine
  size_t pending_size_ = 0;
  bool input_done_ = false;
};

class ZlibInflater final : public InflaterBase {
 public:
  explicit ZlibInflater(GzipInput input) : InflaterBase(std::move(input)) {}
  ~ZlibInflater() override {
    if (started_) inflateEnd(&zs_);
  }

  bool read(unsigned char* out, size_t room, size_t* got, std::string* error) override {
    *got = 0;
    if (!started_) {
      if (inflateInit2(&zs_, 15 + 16) != Z_OK) {
        *error = "cannot start gzip decompression";
        return false;
      }
      started_ = true;
    }
    const uInt capacity = uInt(std::min<size_t>(room, UINT32_MAX));
    zs_.next_out = out;
    zs_.avail_out = capacity;
    while (!stream_end_ && zs_.avail_out == capacity) {
      if (zs_.avail_in == 0 && !input_done() && !refill_zs(error)) return false;
      const int rc = ::inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        if (zs_.avail_in == 0 && !input_done() && !refill_zs(error)) return false;
        if (is_gzip(zs_.next_in, zs_.avail_in)) {
          inflateReset(&zs_);
          continue;
        }
        stream_end_ = true;
        break;
      }
      if (rc == Z_OK || rc == Z_BUF_ERROR) {
        if (zs_.avail_in == 0 && input_done() && zs_.avail_out == capacity) {
          *error = "truncated gzip data";
          return false;
        }
        continue;
      }
      if (rc == Z_MEM_ERROR) {
        *error = "out of memory while decompressing";
        return false;
      }
      *error = std::string("corrupt gzip data (") + (zs_.msg != nullptr ? zs_.msg : "inflate failed") + ")";
      return false;
    }
    *got = capacity - zs_.avail_out;
    return true;
  }

 private:
  bool refill_zs(std::string* error) {
    const unsigned char* in = nullptr;
    uint32_t size = 0;
    if (!refill(&in, &size, error)) return false;
    zs_.next_in = const_cast<unsigned char*>(in);
    zs_.avail_in = size;
    return true;
  }

  z_stream zs_{};
  bool started_ = false;
  bool stream_end_ = false;  // the last member ended
};

#ifdef MLPROF_HAVE_ISAL
const char* igzip_problem(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    case ISAL_NEED_DICT: return "needs a preset dictionary";
    default: return "inflate failed";
  }
}

class IgzipInflater final : public InflaterBase {
 public:
  explicit IgzipInflater(GzipInput input) : InflaterBase(std::move(input)) {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;  // parse the gzip header, check the trailer's CRC and size
  }

  bool read(unsigned char* out, size_t room, size_t* got, std::string* error) override {
    *got = 0;
    const uint32_t capacity = uint32_t(std::min<size_t>(room, UINT32_MAX));
    state_.next_out = out;
    state_.avail_out = capacity;
    while (!stream_end_ && state_.avail_out == capacity) {
      if (state_.avail_in == 0 && !input_done() && !refill_state(error)) return false;
      const int rc = isal_inflate(&state_);
      if (rc < 0 || rc == ISAL_NEED_DICT) {
        *error = std::string("corrupt gzip data (") + igzip_problem(rc) + ")";
        return false;
      }
      if (state_.block_state != ISAL_BLOCK_FINISH) {
        if (state_.avail_in == 0 && input_done() && state_.avail_out == capacity) {
          *error = "truncated gzip data";
          return false;
        }
        continue;
      }
      // A member ended (its CRC and size checked): another may follow.
      if (state_.avail_in == 0 && !input_done() && !refill_state(error)) return false;
      if (!is_gzip(state_.next_in, state_.avail_in)) {
        stream_end_ = true;
        break;
      }
      uint8_t* next_in = state_.next_in;
      const uint32_t avail_in = state_.avail_in;
      isal_inflate_reset(&state_);
      state_.crc_flag = ISAL_GZIP;
      state_.next_in = next_in;
      state_.avail_in = avail_in;
    }
    *got = capacity - state_.avail_out;
    return true;
  }

 private:
  bool refill_state(std::string* error) {
    const unsigned char* in = nullptr;
    uint32_t size = 0;
    if (!refill(&in, &size, error)) return false;
    state_.next_in = const_cast<unsigned char*>(in);
    state_.avail_in = size;
    return true;
  }

  inflate_state state_{};
  bool stream_end_ = false;
};
#endif

}  // namespace

bool have_igzip() {
#ifdef MLPROF_HAVE_ISAL
  return true;
#else
  return false;
#endif
}

const char* gzip_engine_name(GzipEngine engine) {
  return engine == GzipEngine::kFastest && have_igzip() ? "igzip" : "zlib";
}

std::string gzip_kernel_name(GzipEngine engine) {
  const std::string name = gzip_engine_name(engine);
  if (name != "igzip") return name;
#if defined(__x86_64__)
  // ISA-L's dispatch (mbin_dispatch_init5: base, SSE, AVX, AVX2) asks the processor the same way.
  if (__builtin_cpu_supports("avx2")) return name + " avx2";
  if (__builtin_cpu_supports("sse4.1")) return name + " sse";
#endif
  return name + " base";
}

std::unique_ptr<GzipInflater> GzipInflater::make(GzipEngine engine, GzipInput input) {
#ifdef MLPROF_HAVE_ISAL
  if (engine == GzipEngine::kFastest) return std::make_unique<IgzipInflater>(std::move(input));
#endif
  return std::make_unique<ZlibInflater>(std::move(input));
}

}  // namespace mlprof::model
