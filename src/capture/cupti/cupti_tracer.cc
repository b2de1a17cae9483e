// The CUPTI tracer: activity records for GPU work and CUDA calls, the callback API for what
// launched them.
//   - CUPTI asks for buffers from its own threads: they come from a pool, allocated ahead, so
//     a request is a pop under a short lock; past the session's budget it gets none and
//     CUPTI counts the records it drops.
//   - Full buffers are queued to this session's drain thread, which decodes them, so CUPTI's
//     thread never waits on our work.
//   - Records carry the session's CLOCK_MONOTONIC time (a timestamp callback) where CUPTI
//     supports it, else CUPTI's own clock, measured against the Unix clock at start.
//   - At each CUDA call's entry a callback notes the framework op open on the calling thread
//     (the kernels' tf_op) and, once per thread, the OS thread id behind CUPTI's thread id.
#include <cupti.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "capture/cupti/cuda_driver.h"
#include "capture/cupti/cupti_errors.h"
#include "capture/cupti/cupti_library.h"
#include "capture/cupti/cupti_record_decoder.h"
#include "capture/cupti/device_trace_builder.h"
#include "capture/cupti/device_tracer.h"
#include "capture/memory_record_writer.h"
#include "capture/recorder.h"

namespace mlprof::capture {
namespace gpu {
namespace {

constexpr size_t kBufferBytes = size_t(4) << 20;
constexpr size_t kBufferAlignment = 8;  // CUPTI's requirement
constexpr size_t kBytesPerDecodedRecord = 128;  // a generous estimate, for the memory budget

struct ActivityKind {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;  // without it there is no useful trace; the others only thin it
};
// Never CUPTI_ACTIVITY_KIND_KERNEL: it serialises kernels, changing what is measured.
constexpr ActivityKind kActivityKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", false},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", false},
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", false},
};

class CuptiTracer;

// Activity buffers, kept between sessions.
class BufferPool {
 public:
  uint8_t* take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      uint8_t* b = free_.back();
      free_.pop_back();
      ++out_;
      return b;
    }
    if (out_ >= max_out_) {
      ++refused_;
      return nullptr;
    }
    auto* b = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    if (b != nullptr) ++out_;
    else ++refused_;
    return b;
  }
  void give_back(uint8_t* b) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(b);
    if (out_ > 0) --out_;
  }
  // A new session: its budget, some buffers ready, the refusal count reset.
  void prepare(size_t max_out, size_t ready) {
    std::lock_guard<std::mutex> lock(mu_);
    max_out_ = max_out;
    refused_ = 0;
    while (free_.size() < ready) {
      auto* b = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
      if (b == nullptr) break;
      free_.push_back(b);
    }
  }
  // After a session: keeps a couple for the next one.
  uint64_t trim() {
    std::lock_guard<std::mutex> lock(mu_);
    while (free_.size() > 2) {
      std::free(free_.back());
      free_.pop_back();
    }
    return refused_;
  }

 private:
  std::mutex mu_;
  std::vector<uint8_t*> free_;
  size_t out_ = 0, max_out_ = 0;
  uint64_t refused_ = 0;
};

// What lives for the process: CUPTI keeps our callbacks until exit.
struct ProcessState {
  std::mutex mu;  // guards the fields up to `pool` (not the pool itself)
  const CuptiLibrary* lib = nullptr;
  bool callbacks_registered = false;
  bool clock_is_monotonic = false;
  CuptiTracer* active = nullptr;
  BufferPool pool;
  // Which callback ids launch work, by domain (0 runtime, 1 driver). Written before the
  // first subscription, read-only afterwards.
  std::vector<bool> launches[2];

  // Written by the callbacks on the program's threads.
  std::atomic<uint64_t> session{0};
  std::mutex calls_mu;
  std::vector<LaunchOp> launch_ops;
  std::vector<ThreadOfCall> threads;
  size_t max_calls = 0;
  uint64_t calls_dropped = 0;
};

ProcessState& state() {
  static ProcessState* s = new ProcessState;
  return *s;
}

thread_local uint64_t t_thread_mapped_in_session = 0;

uint64_t CUPTIAPI monotonic_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

int64_t unix_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const CuptiLibrary* lib = state().lib;
  const char* name = nullptr;
  if (lib == nullptr || lib->cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return {};
  return name;
}

// Calls that start device work: their callers' open op is the work's tf_op.
std::vector<bool> launch_callbacks(CUpti_CallbackDomain domain, uint32_t count) {
  static constexpr std::string_view kRuntime[] = {"cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaGraphLaunch"};
  static constexpr std::string_view kDriver[] = {"cuLaunch", "cuMemcpy", "cuMemset", "cuGraphLaunch"};
  const auto& prefixes = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? kRuntime : kDriver;
  std::vector<bool> launches(count, false);
  for (uint32_t cbid = 1; cbid < count; ++cbid) {
    const std::string cupti_name = callback_name(domain, cbid);
    const std::string_view name = clean_api_name(cupti_name);
    for (std::string_view prefix : prefixes)
      if (name.starts_with(prefix)) launches[cbid] = true;
  }
  return launches;
}

void CUPTIAPI on_api_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_ENTER) return;
  ProcessState& s = state();
  const uint64_t session = s.session.load(std::memory_order_acquire);
  if (session == 0) return;
  const bool map_thread = t_thread_mapped_in_session != session;
  const char* op = nullptr;
  const std::vector<bool>& launches = s.launches[domain == CUPTI_CB_DOMAIN_DRIVER_API ? 1 : 0];
  if (cbid < launches.size() && launches[cbid]) {
    const OpContext context = open_op_context();
    if (context.op != nullptr) op = op_name(*context.op);
  }
  if (!map_thread && op == nullptr) return;
  std::lock_guard<std::mutex> lock(s.calls_mu);
  if (map_thread) {
    t_thread_mapped_in_session = session;
    s.threads.push_back({info->correlationId, uint32_t(gettid())});
  }
  if (op != nullptr) {
    if (s.launch_ops.size() < s.max_calls) s.launch_ops.push_back({info->correlationId, op});
    else ++s.calls_dropped;
  }
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  *buffer = state().pool.take();
  *size = *buffer != nullptr ? kBufferBytes : 0;
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t size, size_t valid);

class CuptiTracer final : public DeviceTracer {
 public:
  CuptiTracer(const CuptiLibrary* lib, const ProfilerOptions& options)
      : lib_(lib),
        decoder_(&log_, callback_name),
        max_records_(std::max<uint64_t>(options.max_buffer_bytes / 2 / kBytesPerDecodedRecord, 1 << 16)),
        max_buffers_(std::max<size_t>(options.max_buffer_bytes / 4 / kBufferBytes, 4)) {}

  ~CuptiTracer() override {
    if (started_) stop();
  }

  bool start(std::string* why_not) {
    ProcessState& s = state();
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (!register_once(s, why_not)) return false;
      clock_is_monotonic_ = s.clock_is_monotonic;
    }
    if (!clock_is_monotonic_) {
      uint64_t cupti_now = 0;
      const int64_t unix_now = unix_now_ns();
      lib_->cuptiGetTimestamp(&cupti_now);
      cupti_minus_unix_ns_ = int64_t(cupti_now) - unix_now;
    }
    if (!check(lib_->cuptiSubscribe(&subscriber_, reinterpret_cast<CUpti_CallbackFunc>(on_api_call), nullptr),
               "cuptiSubscribe", why_not)) {
      subscriber_ = nullptr;
      return false;
    }
    if (!check(lib_->cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API), "cuptiEnableDomain", why_not) ||
        !check(lib_->cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API), "cuptiEnableDomain", why_not)) {
      release_subscriber();
      return false;
    }
    {
      std::lock_guard<std::mutex> calls(s.calls_mu);
      s.launch_ops.clear();
      s.threads.clear();
      s.max_calls = max_records_;
      s.calls_dropped = 0;
    }
    s.pool.prepare(max_buffers_, 2);
    {
      std::lock_guard<std::mutex> lock(s.mu);
      s.active = this;
    }
    started_ = true;
    s.session.store(next_session_id(), std::memory_order_release);
    drain_thread_ = std::thread([this] { drain(); });
    for (const ActivityKind& k : kActivityKinds) {
      // Device records come when CUDA initialises; a late start asks for those of now.
      const bool dump = k.kind == CUPTI_ACTIVITY_KIND_DEVICE && lib_->cuptiActivityEnableAndDump != nullptr;
      const CUptiResult r = dump ? lib_->cuptiActivityEnableAndDump(k.kind) : lib_->cuptiActivityEnable(k.kind);
      if (r == CUPTI_SUCCESS) {
        enabled_.push_back(k.kind);
      } else if (k.required) {
        *why_not = explain_cupti_failure(std::string("cuptiActivityEnable(") + k.name + ")", r, lib_->result_name(r));
        stop();
        return false;
      } else {
        notes_.push_back(std::string("CUPTI could not record ") + k.name + " activity (" + lib_->result_name(r) + ")");
      }
    }
    return true;
  }

  void stop() override {
    if (stopped_) return;
    stopped_ = true;
    ProcessState& s = state();
    s.session.store(0, std::memory_order_release);
    disable_and_flush();
    release_subscriber();
    {
      std::lock_guard<std::mutex> lock(s.mu);
      s.active = nullptr;  // buffers CUPTI completes later go straight back to the pool
    }
    finish_draining();
    std::lock_guard<std::mutex> calls(s.calls_mu);
    log_.launch_ops = std::move(s.launch_ops);
    log_.threads_of_calls = std::move(s.threads);
    calls_dropped_ = s.calls_dropped;
    buffers_refused_ = s.pool.trim();
  }

  void export_trace(const ClockPair& start, const ClockPair& stop, DeviceTrace* out) override {
    GpuClock clock;
    clock.session_start_unix_ns = start.unix_ns;
    clock.session_start_ns = clock_is_monotonic_ ? start.monotonic_ns : start.unix_ns + cupti_minus_unix_ns_;
    clock.session_start_ticks = start.ticks;
    if (stop.ticks > start.ticks && stop.monotonic_ns > start.monotonic_ns)
      clock.ticks_per_ns = double(stop.ticks - start.ticks) / double(stop.monotonic_ns - start.monotonic_ns);
    add_missing_device_properties();
    build_device_trace(log_, clock, out);
    for (const std::string& note : notes_) out->warnings.push_back(note);
    if (buffers_refused_ > 0)
      out->warnings.push_back("mlprof refused CUPTI " + std::to_string(buffers_refused_) +
                              " activity buffers (the GPU trace's share of max_buffer_bytes was in use): some GPU "
                              "activity is missing");
    if (calls_dropped_ + records_over_budget_ > 0)
      out->warnings.push_back("mlprof left out " + std::to_string(calls_dropped_ + records_over_budget_) +
                              " GPU records over its memory budget (max_buffer_bytes)");
  }

  // From CUPTI's thread, under ProcessState::mu.
  void enqueue(uint8_t* buffer, size_t valid, size_t dropped) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back({buffer, valid, dropped});
    }
    cv_.notify_one();
  }

 private:
  struct Completed {
    uint8_t* buffer;
    size_t valid;
    size_t dropped;
  };

  // Once per process, under ProcessState::mu.
  bool register_once(ProcessState& s, std::string* why_not) {
    s.lib = lib_;
    if (s.callbacks_registered) return true;
    // The clock first: CUPTI takes it only before any activity kind is enabled.
    if (lib_->cuptiActivityRegisterTimestampCallback != nullptr &&
        lib_->cuptiActivityRegisterTimestampCallback(monotonic_now_ns) == CUPTI_SUCCESS)
      s.clock_is_monotonic = true;
    if (!check(lib_->cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed),
               "cuptiActivityRegisterCallbacks", why_not))
      return false;
    s.launches[0] = launch_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
    s.launches[1] = launch_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
    s.callbacks_registered = true;
    return true;
  }

  static uint64_t next_session_id() {
    static std::atomic<uint64_t> id{0};
    return ++id;
  }

  bool check(CUptiResult r, const char* call, std::string* why_not) {
    if (r == CUPTI_SUCCESS) return true;
    *why_not = explain_cupti_failure(call, r, lib_->result_name(r));
    // CUPTI says no more when the driver itself cannot start: ask the driver why.
    if (r == CUPTI_ERROR_UNKNOWN || r == CUPTI_ERROR_NOT_INITIALIZED) {
      const std::string driver = driver_start_problem();
      if (!driver.empty()) *why_not += "; " + driver;
    }
    return false;
  }

  void disable_and_flush() {
    for (CUpti_ActivityKind k : enabled_) lib_->cuptiActivityDisable(k);
    enabled_.clear();
    lib_->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }

  void release_subscriber() {
    if (subscriber_ == nullptr) return;
    lib_->cuptiEnableDomain(0, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API);
    lib_->cuptiEnableDomain(0, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API);
    lib_->cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
  }

  void finish_draining() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      draining_done_ = true;
    }
    cv_.notify_one();
    if (drain_thread_.joinable()) drain_thread_.join();
  }

  void drain() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return !queue_.empty() || draining_done_; });
      if (queue_.empty()) return;
      const Completed c = queue_.front();
      queue_.pop_front();
      lock.unlock();
      decode(c);
      lock.lock();
    }
  }

  void decode(const Completed& c) {
    CUpti_Activity* record = nullptr;
    while (c.valid > 0 && lib_->cuptiActivityGetNextRecord(c.buffer, c.valid, &record) == CUPTI_SUCCESS) {
      if (decoded_ < max_records_) {
        decoder_.decode(record);
        ++decoded_;
      } else {
        ++records_over_budget_;
      }
    }
    log_.dropped_records += c.dropped;
    state().pool.give_back(c.buffer);
  }

  // CUPTI reports a device only when a context is created while it traces.
  void add_missing_device_properties() {
    std::set<uint32_t> seen;
    for (const KernelActivity& k : log_.kernels) seen.insert(k.device);
    for (const MemcpyActivity& m : log_.memcpys) seen.insert(m.device);
    for (const MemsetActivity& m : log_.memsets) seen.insert(m.device);
    for (const DeviceProperties& d : log_.devices) seen.erase(d.id);
    for (uint32_t device : seen)
      if (auto p = device_properties_from_driver(device, &log_.names)) log_.devices.push_back(*p);
  }

  const CuptiLibrary* lib_;
  GpuActivityLog log_;
  CuptiRecordDecoder decoder_;
  const uint64_t max_records_;
  const size_t max_buffers_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::vector<CUpti_ActivityKind> enabled_;
  std::vector<std::string> notes_;
  bool clock_is_monotonic_ = false;
  int64_t cupti_minus_unix_ns_ = 0;
  bool started_ = false;  // stop() has something to undo
  bool stopped_ = false;

  std::thread drain_thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Completed> queue_;
  bool draining_done_ = false;
  uint64_t decoded_ = 0, records_over_budget_ = 0;  // on the drain thread
  uint64_t calls_dropped_ = 0, buffers_refused_ = 0;
};

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  if (buffer == nullptr) return;
  ProcessState& s = state();
  size_t dropped = 0;
  if (s.lib != nullptr) s.lib->cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.active != nullptr) s.active->enqueue(buffer, valid, dropped);
  else s.pool.give_back(buffer);
}

}  // namespace
}  // namespace gpu

std::unique_ptr<DeviceTracer> start_device_tracer(const ProfilerOptions& options, std::string* why_not) {
  // A library named explicitly is checked first, so that a wrong path is reported as such.
  const char* chosen = std::getenv(gpu::kCuptiLibraryVariable);
  const bool library_first = chosen != nullptr && *chosen != '\0';
  if (!library_first && !gpu::cuda_driver_present(why_not)) return nullptr;
  const gpu::CuptiLibrary* lib = gpu::load_cupti(why_not);
  if (lib == nullptr) return nullptr;
  if (library_first && !gpu::cuda_driver_present(why_not)) return nullptr;
  auto tracer = std::make_unique<gpu::CuptiTracer>(lib, options);
  if (!tracer->start(why_not)) return nullptr;
  return tracer;
}

}  // namespace mlprof::capture
