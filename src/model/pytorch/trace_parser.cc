// One forward pass over the JSON, batch by batch (pytorch/trace_tokenizer.h), with simdjson's On-Demand
// API: nothing is materialised but the fields kept in Trace, so the parse runs near the speed
// of the text scan.
#include "model/pytorch/trace_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

#include "model/intern_cache.h"
#include "model/pytorch/distinct_records.h"
#include "model/pytorch/event_scan.h"
#include "model/pytorch/number.h"
#include "model/pytorch/raw_event.h"
#include "model/pytorch/simdjson_choice.h"
#include "model/pytorch/trace_tokenizer.h"

namespace mlprof::model::kineto {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// A field's key as written (our keys have no escapes, so a key with one simply matches none).
std::string_view key_of(od::field& field) { return key_at(field.key().raw()); }

// A raw token as an error message quotes it: its first 40 bytes, without the whitespace that
// follows it in the file, control characters as '?', so that the message stays one line.
std::string quotable(std::string_view token) {
  std::string out(token.substr(0, 40));
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n' || out.back() == '\r' || out.back() == '\t')) out.pop_back();
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

bool wanted_top_level(std::string_view key) {
  return key == "deviceProperties" || key == "distributedInfo" || key == "baseTimeNanoseconds" || key == "host_name" ||
         key == "hostname";
}

// The parsing half: JSON text into raw events, touching nothing shared, so that it can run on
// a thread of its own. Its strings point into the text and into its simdjson parser.
class EventParser {
 public:
  // The elements of a batch, in order; on failure, those before the bad one and the reason
  // (empty when the bad one is not an object: only the thread that counts the events before
  // the batch can say which element that is, see not_an_object()).
  bool parse_batch(const PaddedJson& batch, std::vector<RawEvent>* raws, std::string* error);

 protected:
  bool fail(std::string reason) {
    if (error_.empty()) error_ = std::move(reason);
    return false;
  }
  bool json_error(error_code code) {
    std::string where;
    const char* at = nullptr;
    if (doc_ != nullptr && doc_->current_location().get(at) == simdjson::SUCCESS && at != nullptr &&
        at >= json_.data && at <= json_.data + json_.size)
      where = " at byte " + std::to_string(json_.offset + uint64_t(at - json_.data));
    return fail(std::string("not valid JSON (") + simdjson::error_message(code) + ")" + where);
  }
  bool finish(bool ok, std::string* error) {
    doc_ = nullptr;
    if (!ok) *error = error_;
    return ok;
  }

  bool read_events(od::array& events, std::vector<RawEvent>* raws);
  bool read_event(od::object& object, RawEvent* raw);
  bool read_args(od::object& args, RawEvent* raw);
  bool read_thread_id(od::value& value, ThreadId* id);
  bool read_int_array(od::value& value, int64_t (&out)[3]);
  bool read_text(od::value& value, std::string_view* text);

  EventScan scan_;               // what reads most batches; On-Demand reads the others
  RawParts parts_;               // of the events of the batch last parsed
  od::parser parser_;            // reused by every batch: its buffers are allocated once
  PaddedJson json_;              // the text being parsed
  od::document* doc_ = nullptr;
  std::string error_;
  uint64_t event_index_ = 0;     // the building half: of the next element of traceEvents
};

// The building half: raw events into the trace, in the file's order (names interned, tracks
// and records numbered as they first appear), and the top-level values.
class TraceReader final : public EventParser {
 public:
  TraceReader(StringTable* strings, Trace* trace, IngestStages* stages)
      : strings_(*strings), names_(strings), t_(*trace), stages_(stages) {}

  bool top_level_value(std::string_view key, const PaddedJson& value, std::string* error);
  // A batch's events in order, up to the first that fails (false then): one call a batch, not an event.
  bool add_raws(std::vector<RawEvent>& raws, std::string* error);
  uint64_t events_read() const { return event_index_; }
  // The time interning took since the last call (only counted with stages; an estimate).
  int64_t take_intern_ns() { return std::exchange(intern_ns_, 0); }

 private:
  [[gnu::always_inline]] bool add_event(RawEvent& raw);
  bool add_metadata(const RawEvent& raw);
  uint32_t add_op_args(const RawOpArgs& raw);
  bool read_device_properties(od::array& devices);
  bool read_distributed_info(od::object& info);
  bool bad_time(std::string_view token, const char* what);  // fails, naming the token
  void resolve(ThreadId* id) {
    if (!id->label.empty()) id->value = INT64_MIN / 2 + int64_t(intern(id->label));
  }

  // An event's name, label or thread name into the string table.
  StringId intern(std::string_view s) { return intern(s, InternCache::slot_of(s)); }
  // With stages, one intern in kInternSampled is timed and counted that many times: a clock
  // read costs about what an intern does, so timing each would double the stage it measures.
  StringId intern(std::string_view s, uint32_t slot) {
    if (stages_ == nullptr || ++interns_ % kInternSampled != 0) return names_.intern(s, slot);
    const int64_t begin = monotonic_ns();
    const StringId id = names_.intern(s, slot);
    intern_ns_ += (monotonic_ns() - begin) * kInternSampled;
    return id;
  }
  static constexpr uint32_t kInternSampled = 16;

  StringTable& strings_;
  InternCache names_;
  Trace& t_;
  IngestStages* stages_;
  int64_t intern_ns_ = 0;
  uint32_t interns_ = 0;

  struct TrackKey {
    int64_t pid, tid;
    bool device;
    bool operator==(const TrackKey&) const = default;
  };
  struct TrackHash {
    size_t operator()(const TrackKey& k) const {
      return std::hash<int64_t>()(k.pid * 0x9E3779B97F4A7C15ll ^ k.tid ^ (int64_t(k.device) << 62));
    }
  };
  std::unordered_map<TrackKey, uint32_t, TrackHash> tracks_;
  // Inline for the track of the event before, as most events have; out of line otherwise.
  uint32_t track_of(int64_t pid, int64_t tid, bool device) {
    const TrackKey key{pid, tid, device};
    return key == last_key_ ? last_track_ : new_track_of(key);
  }
  [[gnu::noinline]] uint32_t new_track_of(const TrackKey& key);
  // Training repeats launch configurations and memory blocks (at the same totals) step after
  // step: each distinct one is kept once.
  DistinctRecords<KernelLaunch> kernel_index_;
  DistinctRecords<MemoryRecord> memory_index_;
  DistinctRecords<OpArgs> op_args_index_;
  TrackKey last_key_{INT64_MIN, INT64_MIN, false};
  uint32_t last_track_ = 0;
};

std::string not_an_object(uint64_t index) {
  return "not a PyTorch trace: traceEvents[" + std::to_string(index) + "] is not an object";
}

bool EventParser::parse_batch(const PaddedJson& batch, std::vector<RawEvent>* raws, std::string* error) {
  json_ = batch;
  error_.clear();
  // The parts of the batch before this one are no longer read: its events have been built.
  parts_.clear();
  if (scan_.read(batch, raws, &parts_)) return finish(true, error);
  parts_.clear();
  // On-Demand checks less than the scan of every byte that makes sure of a guessed end.
  if (batch.end_guessed && !batch_ends_between_elements(batch))
    return finish(fail("not valid JSON (an event batch cut inside an element)"), error);
  od::document doc;
  if (auto code = parser_.iterate(batch.data, batch.size, batch.capacity).get(doc)) return finish(json_error(code), error);
  doc_ = &doc;
  od::array events;
  if (auto code = doc.get_array().get(events)) return finish(json_error(code), error);
  if (!read_events(events, raws)) return finish(false, error);
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) return finish(fail("not valid JSON (in traceEvents)"), error);
  return finish(true, error);
}

bool TraceReader::top_level_value(std::string_view key, const PaddedJson& value, std::string* error) {
  if (key == "baseTimeNanoseconds") {
    int64_t base = 0;
    if (!parse_fixed({value.data, value.size}, 0, &base) || base < 0)
      return finish(fail("baseTimeNanoseconds is out of range"), error);
    t_.base_time_ns = base;
    return true;
  }
  json_ = value;
  od::document doc;
  if (auto code = parser_.iterate(value.data, value.size, value.capacity).get(doc)) return finish(json_error(code), error);
  doc_ = &doc;
  bool ok = true;
  if (key == "deviceProperties") {
    od::array devices;
    if (doc.get_array().get(devices) == simdjson::SUCCESS) ok = read_device_properties(devices);
  } else if (key == "distributedInfo") {
    od::object info;
    if (doc.get_object().get(info) == simdjson::SUCCESS) ok = read_distributed_info(info);
  } else {  // host_name, hostname
    std::string_view name;
    if (doc.get_string().get(name) == simdjson::SUCCESS) t_.host_name = strings_.intern(name);
  }
  return finish(ok, error);
}

bool EventParser::read_events(od::array& events, std::vector<RawEvent>* raws) {
  for (auto item : events) {
    od::object object;
    if (auto code = item.get_object().get(object)) {
      if (code != simdjson::INCORRECT_TYPE) return json_error(code);
      error_.clear();
      return false;
    }
    RawEvent& raw = raws->emplace_back();
    raw.parts = &parts_;
    if (!read_event(object, &raw)) {
      raws->pop_back();
      return false;
    }
    settle(raws->back());
  }
  return true;
}

bool TraceReader::add_raws(std::vector<RawEvent>& raws, std::string* error) {
  for (RawEvent& raw : raws) {
    resolve(&raw.pid);
    resolve(&raw.tid);
    if (!add_event(raw)) {
      *error = error_;
      return false;
    }
    ++event_index_;
  }
  return true;
}

bool EventParser::read_event(od::object& object, RawEvent* raw) {
  for (auto field_result : object) {
    od::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    od::value value = field.value();
    error_code code = simdjson::SUCCESS;
    switch (event_key(key_of(field))) {
      case EventKey::kPh: {
        std::string_view ph;
        if ((code = value.get_string().get(ph)) == simdjson::SUCCESS && !ph.empty()) raw->ph = ph[0];
        break;
      }
      case EventKey::kTs: raw->ts = value.raw_json_token(); break;
      case EventKey::kId: raw->flow_id = value.raw_json_token(); break;
      case EventKey::kDur: raw->dur = value.raw_json_token(); break;
      case EventKey::kCat:
        code = value.get_string().get(raw->cat);
        raw->has_cat = code == simdjson::SUCCESS;
        break;
      case EventKey::kPid:
        if (!read_thread_id(value, &raw->pid)) return false;
        break;
      case EventKey::kTid:
        if (!read_thread_id(value, &raw->tid)) return false;
        break;
      case EventKey::kName: code = value.get_string().get(raw->name); break;
      case EventKey::kArgs: {
        od::object args;
        if (value.get_object().get(args) == simdjson::SUCCESS && !read_args(args, raw)) return false;
        break;
      }
      case EventKey::kScope: {
        std::string_view scope;
        if ((code = value.get_string().get(scope)) == simdjson::SUCCESS) raw->global_scope = scope == "g";
        break;
      }
      case EventKey::kOther: break;
    }
    // A field of an unexpected type is ignored; a broken document is not.
    if (code != simdjson::SUCCESS && code != simdjson::INCORRECT_TYPE) return json_error(code);
  }
  return true;
}

bool EventParser::read_thread_id(od::value& value, ThreadId* id) {
  od::json_type type;
  if (auto code = value.type().get(type)) return json_error(code);
  if (type == od::json_type::number) {
    id->set_number(value.raw_json_token());
  } else if (type == od::json_type::string) {
    std::string_view label;
    if (auto code = value.get_string().get(label)) return json_error(code);
    id->set_string(label);
  }
  return true;
}

bool EventParser::read_int_array(od::value& value, int64_t (&out)[3]) {
  od::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) return true;
  size_t i = 0;
  for (auto item : array) {
    std::string_view token;
    if (auto code = item.raw_json_token().get(token)) return json_error(code);
    int64_t v = 0;
    if (i < 3 && parse_fixed(token, 0, &v)) out[i] = v;
    ++i;
  }
  return true;
}

bool EventParser::read_text(od::value& value, std::string_view* text) {
  od::json_type type;
  if (auto code = value.type().get(type)) return json_error(code);
  simdjson::error_code code = simdjson::SUCCESS;
  switch (type) {
    case od::json_type::string: code = value.get_string().get(*text); break;
    case od::json_type::array: {
      od::array array;
      if (!(code = value.get_array().get(array))) code = array.raw_json().get(*text);
      break;
    }
    case od::json_type::object: {
      od::object object;
      if (!(code = value.get_object().get(object))) code = object.raw_json().get(*text);
      break;
    }
    default: *text = value.raw_json_token(); break;
  }
  if (code != simdjson::SUCCESS) return json_error(code);
  // A value's JSON runs to the next token: without the whitespace before it, as the other parser reads it.
  if (type != od::json_type::string)
    while (!text->empty() && (text->back() == ' ' || text->back() == '\n' || text->back() == '\r' || text->back() == '\t'))
      text->remove_suffix(1);
  return true;
}

bool EventParser::read_args(od::object& args, RawEvent* raw) {
  for (auto field_result : args) {
    od::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    const std::string_view key = key_of(field);
    if (key.empty()) continue;
    od::value value = field.value();
    int64_t* target = nullptr;
    std::string_view* text = nullptr;
    double v;
    switch (arg_key(key, raw, &target, &text)) {
      case ArgKey::kCbid: raw->has_cbid = true; break;
      case ArgKey::kOccupancy:
        if (value.get_double().get(v) == simdjson::SUCCESS) raw->kernel_part().occupancy_pct = v;
        break;
      case ArgKey::kTheoreticalOccupancy:  // 2021 traces
        if (raw->kernel_part().occupancy_pct < 0 && value.get_double().get(v) == simdjson::SUCCESS) raw->kernel_part().occupancy_pct = v;
        break;
      case ArgKey::kGrid:
        if (!read_int_array(value, raw->kernel_part().grid)) return false;
        break;
      case ArgKey::kBlock:
        if (!read_int_array(value, raw->kernel_part().block)) return false;
        break;
      case ArgKey::kName:
        if (auto code = value.get_string().get(raw->arg_name); code && code != simdjson::INCORRECT_TYPE)
          return json_error(code);
        break;
      case ArgKey::kText:
        if (!read_text(value, text)) return false;
        break;
      case ArgKey::kInteger: {
        int64_t n;
        // Addresses are unsigned and may pass INT64_MAX; keep their bits.
        if (parse_fixed_padded(value.raw_json_token(), 0, &n)) {
          *target = n;
        } else if (raw->memory != kNoPart && target == &raw->memory_part().addr) {
          uint64_t u;
          if (value.get_uint64().get(u) == simdjson::SUCCESS) *target = int64_t(u);
        }
        break;
      }
      case ArgKey::kOther: break;
    }
  }
  return true;
}

bool TraceReader::bad_time(std::string_view token, const char* what) {
  return fail("traceEvents[" + std::to_string(event_index_) + "]: " + what + " " +
              (token.empty() ? std::string("is missing") : "\"" + quotable(token) + "\" is not a time in range"));
}

uint32_t TraceReader::new_track_of(const TrackKey& key) {
  auto [it, added] = tracks_.try_emplace(key, uint32_t(t_.tracks.size()));
  if (added) t_.tracks.push_back({key.pid, key.tid, key.device, kEmptyString});
  last_key_ = key;
  last_track_ = it->second;
  return it->second;
}

inline bool TraceReader::add_event(RawEvent& raw) {
  switch (raw.ph) {
    case 'X':
    case 'i':
    case 'I':
      break;
    case 'M':
      return add_metadata(raw);
    case 's':
    case 'f': {
      if (!raw.launch_flow) return true;
      FlowPoint point;
      if (!raw.pid.present || !raw.tid.present || !raw.flow_ok || !raw.ts_ok)
        return true;  // an arrow we cannot place is only an arrow
      point.id = raw.flow_value;
      point.ts_ns = raw.ts_value;
      point.pid = raw.pid.value;
      point.tid = raw.tid.value;
      (raw.ph == 's' ? t_.flow_starts : t_.flow_ends).push_back(point);
      return true;
    }
    default:
      ++t_.skipped_events;  // B/E pairs, counters, async and object events: Kineto writes none
      return true;
  }
  // The profiler's own span and its global markers are not work.
  if (raw.profiler_span) return true;
  if (raw.ph != 'X' && raw.global_scope) return true;

  Event e;
  e.category = raw.category;
  if (raw.unknown_device) {
    if (t_.unknown_device_events++ == 0) {
      t_.unknown_device_category = std::string(raw.cat.substr(0, 40));
      for (char& ch : t_.unknown_device_category)
        if (static_cast<unsigned char>(ch) < 0x20) ch = '?';  // the warning stays one line
    }
  }
  if (!raw.ts_ok) return bad_time(raw.ts, "ts");
  e.ts_ns = raw.ts_value;
  if (raw.ph == 'X' && !raw.dur.empty()) {
    if (!raw.dur_ok) return bad_time(raw.dur, "dur");
    e.dur_ps = std::max<int64_t>(raw.dur_value, 0);
  }
  e.correlation = raw.correlation;
  e.external_id = raw.external_id;
  e.name = intern(raw.name, raw.name_slot);
  const bool device = is_device_category(e.category);
  int64_t pid = raw.pid.present ? raw.pid.value : 0, tid = raw.tid.present ? raw.tid.value : 0;
  if (device) {
    if (raw.device != kNoId) pid = raw.device;
    if (raw.stream != kNoId) tid = raw.stream;
  }
  e.track = track_of(pid, tid, device);
  if (device && raw.mtia) t_.tracks[e.track].mtia = true;
  const uint32_t op_args = raw.op_args != kNoPart ? add_op_args(*raw.op_args_if()) : UINT32_MAX;
  switch (e.category) {
    case Category::kKernel: {
      KernelLaunch k = raw.kernel != kNoPart ? *raw.kernel_if() : KernelLaunch{};
      if (op_args != UINT32_MAX) k.op_args = op_args;
      e.detail = kernel_index_.index_of(k, &t_.kernels);
      break;
    }
    case Category::kMemcpy:
    case Category::kMemset:
      e.detail = uint32_t(t_.copies.size());
      t_.copies.push_back({raw.bytes});
      break;
    case Category::kMemory:
      e.detail = memory_index_.index_of(raw.memory != kNoPart ? *raw.memory_if() : MemoryRecord{}, &t_.memory);
      break;
    case Category::kSync:  // -1 where the wait is on no recorded event
      if (raw.wait_on_record >= 0 && raw.wait_on_stream >= 0) {
        e.detail = uint32_t(t_.event_waits.size());
        t_.event_waits.push_back({raw.wait_on_record, raw.wait_on_stream});
      }
      break;
    default:
      e.detail = op_args;
      break;
  }
  ++t_.count_by_category[size_t(e.category)];
  t_.events.push_back(e);
  return true;
}

uint32_t TraceReader::add_op_args(const RawOpArgs& raw) {
  auto text = [&](std::string_view s) { return s.empty() ? kEmptyString : intern(s); };
  OpArgs a;
  a.input_types = text(raw.input_types);
  a.input_dims = text(raw.input_dims);
  a.collective = text(raw.collective);
  a.dtype = text(raw.dtype);
  a.in_split = text(raw.in_split);
  a.out_split = text(raw.out_split);
  a.group_name = text(raw.group_name);
  a.group_ranks = text(raw.group_ranks);
  a.in_nelems = raw.in_nelems;
  a.out_nelems = raw.out_nelems;
  a.group_size = raw.group_size;
  return op_args_index_.index_of(a, &t_.op_args);
}

bool TraceReader::add_metadata(const RawEvent& raw) {
  if (!raw.pid.present || raw.arg_name.empty()) return true;
  if (raw.name == "process_name") {
    t_.process_names[raw.pid.value] = intern(raw.arg_name);
  } else if (raw.name == "thread_name" && raw.tid.present) {
    // Device streams are named by the importer ("Stream #7(...)"); this names host threads.
    t_.tracks[track_of(raw.pid.value, raw.tid.value, false)].name = intern(raw.arg_name);
  }
  return true;
}

bool TraceReader::read_device_properties(od::array& devices) {
  for (auto item : devices) {
    od::object object;
    if (auto code = item.get_object().get(object)) {
      if (code != simdjson::INCORRECT_TYPE) return json_error(code);
      continue;
    }
    DeviceProperties d;
    for (auto field_result : object) {
      od::field field;
      if (auto code = std::move(field_result).get(field)) return json_error(code);
      const std::string_view key = key_of(field);
      od::value value = field.value();
      int64_t* target = nullptr;
      if (key == "id") target = &d.id;
      else if (key == "totalGlobalMem") target = &d.total_global_mem;
      else if (key == "numSms") target = &d.num_sms;
      else if (key == "computeMajor") target = &d.compute_major;
      else if (key == "computeMinor") target = &d.compute_minor;
      else if (key == "name") {
        std::string_view name;
        if (value.get_string().get(name) == simdjson::SUCCESS) d.name = strings_.intern(name);
      }
      if (target != nullptr) parse_fixed(value.raw_json_token(), 0, target);
    }
    if (d.id >= 0) t_.devices.push_back(d);
  }
  return true;
}

bool TraceReader::read_distributed_info(od::object& info) {
  for (auto field_result : info) {
    od::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    const std::string_view key = key_of(field);
    od::value value = field.value();
    int64_t v;
    if (key == "rank" || key == "world_size") {
      if (parse_fixed(value.raw_json_token(), 0, &v))
        (key == "rank" ? t_.rank : t_.world_size) = v;
    } else if (key == "backend") {
      std::string_view backend;
      if (value.get_string().get(backend) == simdjson::SUCCESS) t_.backend = strings_.intern(backend);
    }
  }
  return true;
}

// Walks on a thread of its own and parses on others, a few batches ahead of the trace
// building: the text scan runs on one thread and simdjson's parse of the batches on as many
// as there are cores, while names are interned and tracks and records numbered here, in the
// file's order, so the trace is what one thread would make. A bounded set of pieces (each a
// copy of its batch with its parser) lies between them, so memory stays flat.
class ParseAhead final : public TraceJsonVisitor {
 public:
  struct Piece {
    enum Kind : uint8_t { kEvents, kTopLevel, kError, kEnd } kind = kEvents;
    std::vector<char> text;          // the batch or value, with simdjson's padding
    PaddedJson json;                 // over `text`
    std::string key;                 // kTopLevel
    std::vector<RawEvent> events;    // kEvents: into `text` and `parser`
    bool ready = false;              // kEvents: parsed (`events` and `parsed` hold the outcome)
    bool parsed = false;             // kEvents: all of the batch; else `error` says why not
    std::string error;               // kError, or kEvents not parsed (empty: the element after `events` is not an object)
    EventParser parser;
  };

  // `guess_cuts`, `guessed`: as walk_trace_json's (`guessed` is written by the walking thread).
  ParseAhead(JsonSource& source, const LoadProgress& progress, IngestStages* stages, bool guess_cuts, bool* guessed)
      : source_(source), progress_(progress), stages_(stages), guess_cuts_(guess_cuts), guessed_(guessed) {
    const unsigned parsers = std::clamp(std::thread::hardware_concurrency(), 1u, kMostParsers);
    pieces_.resize(2 * parsers + 2);  // being parsed and waiting, taken here, and the end
    for (auto& piece : pieces_) spare_.push_back(&piece);
    // Started once the rest is there; stopped (and joined) by the destructor, also when one
    // fails to start.
    try {
      threads_.emplace_back([this] { walk(); });
      for (unsigned i = 0; i < parsers; ++i) threads_.emplace_back([this] { parse_batches(); });
    } catch (...) {
      stop();
      throw;
    }
  }
  ~ParseAhead() { stop(); }

  // The next piece in the file's order (the last one is kEnd or kError). While it is not
  // there, this thread parses batches itself rather than leave its core idle.
  Piece* next() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (!ready_.empty() && ready_.front()->ready) break;
      // A batch a waiting parser is woken for is left to it: taking it here would wake that
      // parser for nothing, and keep the walker off this core.
      if (to_parse_.size() <= idle_parsers_) {
        for_builder_.wait(lock);
        continue;
      }
      Piece* batch = to_parse_.front();
      to_parse_.pop_front();
      lock.unlock();
      parse(batch);
      lock.lock();
    }
    Piece* piece = ready_.front();
    ready_.pop_front();
    return piece;
  }
  void done_with(Piece* piece) {
    {
      std::lock_guard lock(mutex_);
      spare_.push_back(piece);
    }
    for_walker_.notify_one();
  }

  bool wants(std::string_view key) const override { return wanted_top_level(key); }

  bool top_level_value(std::string_view key, const PaddedJson& value, std::string* error) override {
    Piece* piece = take(value, error);
    if (piece == nullptr) return false;
    piece->kind = Piece::kTopLevel;
    piece->key = key;
    hand_over(piece, true);
    return true;
  }

  bool event_batch(const PaddedJson& batch, std::string* error) override { return event_batch_in(batch, nullptr, error); }
  // The walk's window becomes the piece's text, and the piece's spare text the walk's window:
  // no copy of the batch.
  bool event_batch_in(const PaddedJson& batch, std::vector<char>* window, std::string* error) override {
    Piece* piece = take(batch, error, window);
    if (piece == nullptr) return false;
    piece->kind = Piece::kEvents;
    hand_over(piece, false);
    return true;
  }

 private:
  static constexpr unsigned kMostParsers = 4;

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    for_builder_.notify_all();
    for_parsers_.notify_all();
    for_walker_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

  void walk() {
    std::string error;
    bool ok;
    StageTimer timer(stages_, IngestStages::kTokenise);
    try {
      ok = walk_trace_json(source_, *this, progress_, &error, guess_cuts_, guessed_);
    } catch (const std::bad_alloc&) {
      ok = false;
      error = "out of memory while reading the JSON";
    }
    timer.stop();
    std::unique_lock lock(mutex_);
    for_walker_.wait(lock, [&] { return stop_ || !spare_.empty(); });
    if (stop_) return;
    Piece* last = spare_.back();
    spare_.pop_back();
    last->kind = ok ? Piece::kEnd : Piece::kError;
    last->error = std::move(error);
    last->ready = true;
    ready_.push_back(last);
    for_builder_.notify_one();
  }

  // Parses batches in whatever order they come; next() hands them out in the file's.
  void parse_batches() {
    for (;;) {
      Piece* piece;
      {
        std::unique_lock lock(mutex_);
        ++idle_parsers_;
        for_parsers_.wait(lock, [&] { return stop_ || !to_parse_.empty(); });
        --idle_parsers_;
        if (stop_) return;
        piece = to_parse_.front();
        to_parse_.pop_front();
      }
      parse(piece);
    }
  }

  // Parses a batch taken from to_parse_ (on any thread) and marks it ready.
  void parse(Piece* piece) {
    piece->events.clear();
    piece->error.clear();
    StageTimer timer(stages_, IngestStages::kParse);
    try {
      // On failure the events before the bad one are kept: they go first, then the error.
      piece->parsed = piece->parser.parse_batch(piece->json, &piece->events, &piece->error);
    } catch (const std::bad_alloc&) {
      piece->parsed = false;
      piece->error = "out of memory while reading the JSON";
    }
    timer.stop();
    {
      std::lock_guard lock(mutex_);
      piece->ready = true;
    }
    for_builder_.notify_one();
  }

  // A spare piece holding a copy of `json` (or, given the `window` that holds it, that window in
  // exchange for the piece's text), or null when the reader stopped.
  Piece* take(const PaddedJson& json, std::string* error, std::vector<char>* window = nullptr) {
    Piece* piece;
    {
      std::unique_lock lock(mutex_);
      for_walker_.wait(lock, [&] { return stop_ || !spare_.empty(); });
      if (stop_) {
        *error = "stopped";
        return nullptr;
      }
      piece = spare_.back();
      spare_.pop_back();
    }
    if (window != nullptr) {
      piece->text.swap(*window);  // `json` points into it, wherever the vector is
      piece->json = json;
      return piece;
    }
    piece->text.resize(json.size + simdjson::SIMDJSON_PADDING);
    std::memcpy(piece->text.data(), json.data, json.size);
    std::memset(piece->text.data() + json.size, 0, simdjson::SIMDJSON_PADDING);
    piece->json = {piece->text.data(), json.size, piece->text.size(), json.offset};
    return piece;
  }
  void hand_over(Piece* piece, bool ready) {
    bool parser_waits;
    {
      std::lock_guard lock(mutex_);
      piece->ready = ready;
      ready_.push_back(piece);
      if (!ready) to_parse_.push_back(piece);
      parser_waits = to_parse_.size() <= idle_parsers_;
    }
    if (!ready) for_parsers_.notify_one();
    // The builder takes what is ready, or parses what no waiting parser will.
    if (ready || !parser_waits) for_builder_.notify_one();
  }

  JsonSource& source_;
  const LoadProgress& progress_;
  IngestStages* stages_;
  const bool guess_cuts_;
  bool* guessed_;
  std::deque<Piece> pieces_;
  std::mutex mutex_;
  // Each side waits on its own: a change wakes only the thread that can act on it.
  std::condition_variable for_builder_;  // a piece is ready, or a batch waits for a parser
  std::condition_variable for_parsers_;  // a batch waits for a parser
  std::condition_variable for_walker_;   // a piece is spare
  std::vector<Piece*> spare_;
  std::deque<Piece*> ready_;     // in the file's order, parsed or not yet
  std::deque<Piece*> to_parse_;  // batches no parser has taken yet
  size_t idle_parsers_ = 0;      // parsers waiting for a batch
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Parses each batch as the walk hands it over and builds the trace from it at once, on the
// caller's thread: the order and the errors are ParseAhead's, with one batch's buffers.
class ParseHere final : public TraceJsonVisitor {
 public:
  ParseHere(TraceReader& reader, IngestStages* stages) : reader_(reader), stages_(stages) {}

  bool wants(std::string_view key) const override { return wanted_top_level(key); }
  bool top_level_value(std::string_view key, const PaddedJson& value, std::string* error) override {
    return reader_.top_level_value(key, value, error);
  }
  bool event_batch(const PaddedJson& batch, std::string* error) override {
    events_.clear();
    std::string parse_error;
    // The walk's stage times this thread throughout: parsing and building move to theirs.
    const int64_t begin = stages_ ? thread_cpu_ns() : 0;
    const bool parsed = parser_.parse_batch(batch, &events_, &parse_error);
    const int64_t parsed_at = stages_ ? thread_cpu_ns() : 0;
    // On failure the events before the bad one go first.
    const bool built = reader_.add_raws(events_, error);
    if (stages_ != nullptr) {
      const int64_t intern = reader_.take_intern_ns(), end = thread_cpu_ns();
      stages_->add(IngestStages::kParse, parsed_at - begin);
      stages_->add(IngestStages::kIntern, intern);
      stages_->add(IngestStages::kBuild, end - parsed_at - intern);
      stages_->add(IngestStages::kTokenise, begin - end);
    }
    if (!built) return false;
    if (!parsed) *error = parse_error.empty() ? not_an_object(reader_.events_read()) : parse_error;
    return parsed;
  }

 private:
  TraceReader& reader_;
  IngestStages* stages_;
  EventParser parser_;
  std::vector<RawEvent> events_;
};

// Room for as many events as the text may hold, so that the vector is not copied as it grows
// (each copy also faults in fresh pages while the parsing threads wait). Kineto writes at
// least about 100 bytes an event; room not used is never touched, so it takes no memory, and
// the room is kept under a quarter of the machine's memory.
void reserve_events(const JsonSource& source, Trace* trace) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return;
  const uint64_t most = uint64_t(pages) * uint64_t(page_size) / 4 / sizeof(Event);
  try {
    trace->events.reserve(size_t(std::min<uint64_t>(source.text_size_hint() / 100, most)));
  } catch (const std::bad_alloc&) {  // then it grows as it goes
  }
}

// Reads the trace on the caller's thread (ParseHere).
bool read_here(JsonSource& source, StringTable* strings, Trace* trace, const LoadProgress& progress, std::string* error,
               IngestStages* stages, bool guess_cuts, bool* guessed) {
  TraceReader reader(strings, trace, stages);
  reserve_events(source, trace);
  ParseHere here(reader, stages);
  try {
    StageTimer timer(stages, IngestStages::kTokenise);
    return walk_trace_json(source, here, progress, error, guess_cuts, guessed);
  } catch (const std::bad_alloc&) {
    *error = "out of memory while reading the JSON";
    return false;
  }
}

// Reads the trace with the walk and the parsing on threads of their own (ParseAhead).
bool read_ahead(JsonSource& source, StringTable* strings, Trace* trace, const LoadProgress& progress, std::string* error,
                IngestStages* stages, bool guess_cuts, bool* guessed) {
  TraceReader reader(strings, trace, stages);
  reserve_events(source, trace);
  ParseAhead ahead(source, progress, stages, guess_cuts, guessed);
  for (;;) {
    ParseAhead::Piece* piece = ahead.next();
    switch (piece->kind) {
      case ParseAhead::Piece::kEvents: {
        StageTimer timer(stages, IngestStages::kBuild);
        if (!reader.add_raws(piece->events, error)) return false;  // `ahead` stops its threads
        if (stages != nullptr) {
          const int64_t intern = reader.take_intern_ns();
          stages->add(IngestStages::kIntern, intern);
          stages->add(IngestStages::kBuild, -intern);
        }
        timer.stop();
        if (!piece->parsed) {
          *error = piece->error.empty() ? not_an_object(reader.events_read()) : piece->error;
          return false;
        }
        break;
      }
      case ParseAhead::Piece::kTopLevel:
        if (!reader.top_level_value(piece->key, piece->json, error)) return false;
        break;
      case ParseAhead::Piece::kError:
        *error = piece->error;
        return false;
      case ParseAhead::Piece::kEnd:
        return true;
    }
    ahead.done_with(piece);
  }
}

}  // namespace

bool is_device_category(Category c) {
  switch (c) {
    case Category::kKernel:
    case Category::kMemcpy:
    case Category::kMemset:
    case Category::kGpuUserAnnotation:
    case Category::kSync:
      return true;
    default:
      return false;
  }
}

bool read_trace(JsonSource& source, StringTable* strings, Trace* trace, const LoadProgress& progress,
                std::string* error, bool parse_ahead, IngestStages* stages, bool guess_cuts) {
  if (std::string problem = simdjson_choice_problem(); !problem.empty()) {
    *error = std::move(problem);
    return false;
  }
  // A progress bar never goes back, also when the text is read again: it waits for the second
  // read to pass the first (the reads run one after the other, each on one walking thread).
  double reported = 0;
  LoadProgress forward;
  if (progress)
    forward = [&](double fraction) {
      if (fraction >= reported) reported = fraction, progress(fraction);
    };
  bool guessed = false;
  auto read = [&](bool guess) {
    return parse_ahead ? read_ahead(source, strings, trace, forward, error, stages, guess, &guessed)
                       : read_here(source, strings, trace, forward, error, stages, guess, &guessed);
  };
  // A failure after a guessed cut may be a wrong guess: the text is read again without guessing,
  // which gives the trace (the strings interned the first time are the first it interns, in the
  // same order) or the reason it is not one, as a read that never guessed does. A failure before
  // any guess is that read's own.
  if (!guess_cuts || !source.can_rewind()) return read(false);
  if (read(true)) return true;
  if (!guessed) return false;
  if (!source.rewind(error)) return false;
  error->clear();
  *trace = Trace{};
  return read(false);
}

}  // namespace mlprof::model::kineto
