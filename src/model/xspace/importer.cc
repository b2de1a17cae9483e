// Two passes over the wire format of a mapped file. The first reads everything but the events:
// plane names, metadata (which protobuf writes after the lines), and how many events each line
// holds, so that the columns are allocated once at their final size. The second decodes the
// events straight into the columns, on several threads a line each where asked. Pages already read are handed back to the kernel as the
// passes go, so the file does not add to the process' memory.
#include "model/xspace/importer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <numeric>
#include <thread>

#include "format/annotation.h"
#include "format/protobuf_wire.h"
#include "format/utf8_text.h"
#include "format/xspace_schema.h"
#include "model/event_time_limits.h"
#include "model/id_map.h"
#include "model/ordered_parallel.h"
#include "model/plane_naming.h"

namespace mlprof::model {
namespace {

namespace wire = format::wire;
using wire::field_of;
using wire::Reader;
using wire::type_of;

// A name from the file as an error message quotes it: at most 80 bytes, control characters
// as '?', so that the message stays one line.
std::string quotable(std::string_view name) {
  std::string out(name.substr(0, 80));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// The fields of xplane.proto, as the schema header names them (docs/ARCHITECTURE.md §3.1).
namespace xs = format::xspace;

// Drops the pages of a read-only mapping once they have been read (they stay in the page cache).
// It sees how far each of the two passes has read, so it also reports progress.
class PageReleaser {
 public:
  PageReleaser() = default;
  PageReleaser(const uint8_t* base, size_t size, const LoadProgress* progress)
      : base_(base), size_(size), progress_(progress) {}
  void release_before(const uint8_t* p) {
    if (base_ == nullptr || p == nullptr || p < base_ || p > base_ + size_) return;
    report(size_t(p - base_));
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t upto = size_t(p - base_) / page * page;
    if (upto <= released_) return;
    ::madvise(const_cast<uint8_t*>(base_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }
  void restart() {
    released_ = 0;
    ++pass_;
  }
  // The whole pages inside [from, to), from any thread (lines counted at once, each apart).
  void release_inside(const uint8_t* from, const uint8_t* to) const {
    if (base_ == nullptr || from < base_ || to > base_ + size_) return;
    const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uintptr_t first = (uintptr_t(from) + page - 1) / page * page, last = uintptr_t(to) / page * page;
    if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  }

 private:
  // Each pass is half the work; reports are throttled to steps of 1 %.
  void report(size_t offset) {
    if (progress_ == nullptr || !*progress_ || size_ == 0) return;
    const double f = (double(pass_) + double(offset) / double(size_)) / 2.0;
    if (f < reported_ + 0.01) return;
    reported_ = f;
    (*progress_)(f);
  }

  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
  const LoadProgress* progress_ = nullptr;
  int pass_ = 0;
  double reported_ = 0;
};

// A stat as written. Its key (and a ref value) name a stat metadata id that may be declared
// later in the plane, so they are resolved once the plane's metadata is known.
struct RawStat {
  int64_t key_id = 0;
  StatValue value;       // strings already interned
  bool is_ref = false;   // value.u64 is a stat metadata id whose name is the value
};

struct RawEventMetadata {
  int64_t id = 0;
  std::string name;  // possibly "name#k=v,...#"
  StringId display_name = kEmptyString;
  std::vector<RawStat> stats;
};

// What the first pass learns about one plane, for the second.
struct PlaneScan {
  uint32_t plane = 0;  // index into Profile::planes
  IdMap names;         // event metadata id -> NameIndex
  IdMap stat_keys;     // stat metadata id -> StringId
};

class XSpaceImport {
 public:
  XSpaceImport(Profile* profile, std::string_view host, PageReleaser* pages)
      : p_(*profile), host_(host), pages_(*pages) {
    saved_ = {p_.hosts.size(), p_.planes.size(), p_.lines.size(), p_.names.size(), p_.num_events(),
              p_.event_stats.size(), p_.metadata_stats.size(), p_.warnings.size(), p_.errors.size()};
  }

  // With `jobs` > 1 the lines' events are counted on that many threads, after the rest.
  bool scan(Reader in, unsigned jobs);
  void reserve();
  bool decode(Reader in);
  // The same on `jobs` threads, line by line: each line's events are decoded straight into
  // their place in the columns (the first pass counted them), its stats and the strings it
  // meets first apart, joined here in the file's order (the model is what decode() makes).
  bool decode_lines_at_once(Reader in, unsigned jobs);
  // Whether there is more than one line to decode at once.
  bool has_lines_to_share() const { return line_counts_.size() > 1; }
  void rollback();
  const std::string& error() const { return error_; }
  // Adds one warning naming how many strings held bytes that are not UTF-8, if any did.
  void warn_about_repaired_strings();
  // Text from the file as a string of the profile: bytes that are not UTF-8 are stored with
  // U+FFFD in place of each invalid sequence (format/utf8_text.h), so every name mlprof writes
  // is text, and counted for the warning.
  StringId intern_text(std::string_view text) {
    if (format::is_valid_utf8(text)) return p_.strings.intern(text);
    const StringId id = p_.strings.intern(format::make_valid_utf8(text));
    repaired_.push_back(id);
    return id;
  }
  std::vector<StringId> repaired_;  // strings stored with U+FFFD, in the profile's ids (a chunk's: its own)

 private:
  bool fail(std::string reason) {
    if (error_.empty()) error_ = std::move(reason);
    return false;
  }
  bool expect(uint32_t tag, uint32_t type) {
    return type_of(tag) == type || fail("not a valid XSpace protobuf (wrong wire type for field " +
                                        std::to_string(field_of(tag)) + ")");
  }
  bool truncated() { return fail("not a valid XSpace protobuf (truncated or corrupt)"); }

  // First pass.
  bool scan_space(Reader in);
  bool scan_plane(Reader in);
  bool count_line(Reader in);
  bool count_lines_at_once(unsigned jobs);
  bool read_event_metadata_entry(Reader in, RawEventMetadata* meta);
  bool read_event_metadata(Reader in, RawEventMetadata* meta);
  bool read_stat_metadata_entry(Reader in, PlaneScan* scan);
  bool read_stat(Reader in, RawStat* stat);
  void add_names(std::vector<RawEventMetadata>& metas, PlaneScan* scan);
  StringId resolve_key(PlaneScan& scan, int64_t key_id);
  StatValue resolve_value(PlaneScan& scan, const RawStat& stat);

  // Second pass.
  // A line's events in the columns, from its first on: where decode_event writes them when
  // lines are decoded at once (out_), and what finish_line sorts and nests.
  struct LineEvents {
    int64_t* start;
    int64_t* duration;
    NameIndex* name;
    EventIndex* parent;
    uint32_t* stat_end;    // event i's stats end there (the first_stat of the event after it)
    EventIndex first;      // the line's first event in the profile
    uint32_t count;        // events written
    uint32_t capacity;     // events the first pass counted
    size_t stats_begin;    // where the line's stats begin in p_.event_stats
  };
  LineEvents line_events_in_profile(uint32_t line_index);
  struct LineChunk;
  bool decode_chunk(Reader line, PlaneScan& scan, LineEvents out, LineChunk* chunk);
  bool join_chunk(LineChunk& chunk, uint32_t scan, EventIndex first, uint32_t count);
  void size_columns(size_t events, unsigned jobs);
  bool decode_plane(Reader in, PlaneScan& scan);
  // kInPlace: the events go to out_ (lines decoded at once), else they are appended.
  template <bool kInPlace>
  bool decode_line(Reader in, PlaneScan& scan);
  template <bool kInPlace>
  bool decode_event(Reader in, PlaneScan& scan, int64_t* start, int64_t* duration);
  NameIndex name_for(PlaneScan& scan, int64_t metadata_id);
  bool finish_line(uint32_t line, int64_t timestamp_ns, bool sorted);
  void sort_line(LineEvents& ev);
  void link_parents(LineEvents& ev);

  Profile& p_;
  std::string host_;
  PageReleaser& pages_;
  std::string error_;
  struct Sizes {
    size_t hosts, planes, lines, names, events, event_stats, metadata_stats, warnings, errors;
  } saved_;

  std::vector<PlaneScan> scans_;
  uint64_t num_events_ = 0;
  std::vector<uint32_t> line_counts_;  // events of each line, in the file's order
  struct LineBytes {
    Reader line;
    const uint8_t* end;
  };
  std::vector<LineBytes> lines_to_count_;  // when counted at once, after the rest of the first pass
  bool count_later_ = false;
  int64_t min_timestamp_ns_ = INT64_MAX;
  bool has_origin_ = false;
  std::vector<std::string> hostnames_;
  std::vector<std::string> warnings_;
  std::vector<std::string> errors_;
  uint32_t host_index_ = 0;

  // Decoding a line into a chunk: the scans are only read (other threads read them too); an
  // event of a metadata id no plane declares gets a name of the chunk's, kUnknownName | k.
  static constexpr NameIndex kUnknownName = NameIndex(1) << 31;
  std::vector<std::pair<int64_t, StringId>>* unknown_names_ = nullptr;  // (metadata id, its name)
  LineEvents* out_ = nullptr;  // where the line's events go; null: appended to p_.events
  // Joining chunks: names made for undeclared metadata ids, by (plane, id), as name_for keeps them.
  std::map<std::pair<uint32_t, int64_t>, NameIndex> joined_unknown_names_;
  std::vector<Plane> planes_before_lines_;      // what chunks see of the planes
  std::unique_ptr<StringTable> joined_strings_;  // strings the joined lines added, over the profile's
};

// A bytes stat as text: printable UTF-8 as it is (writers store text as bytes too), anything
// else (a serialized proto, raw bytes) as hex after "0x", so that every output stays text.
std::string bytes_stat_text(std::string_view bytes) {
  bool printable = format::is_valid_utf8(bytes);
  for (size_t i = 0; printable && i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    printable = c >= 0x20 || c == '\t' || c == '\n' || c == '\r';
  }
  return printable ? std::string(bytes) : "0x" + format::hex_bytes(bytes);
}

void XSpaceImport::warn_about_repaired_strings() {
  std::vector<StringId> repaired = repaired_;
  std::sort(repaired.begin(), repaired.end());
  repaired.erase(std::unique(repaired.begin(), repaired.end()), repaired.end());
  if (repaired.empty()) return;
  p_.warnings.push_back(format::make_valid_utf8(host_) + ": " + std::to_string(repaired.size()) + " name" + (repaired.size() == 1 ? "" : "s") +
                        " or text value" + (repaired.size() == 1 ? " holds" : "s hold") +
                        " bytes that are not UTF-8 (for example \"" + std::string(p_.strings.view(repaired.front()).substr(0, 60)) +
                        "\"); each invalid sequence is shown as U+FFFD");
}

// ---- First pass --------------------------------------------------------------------------

bool XSpaceImport::scan(Reader in, unsigned jobs) {
  count_later_ = jobs > 1;
  const bool ok = scan_space(in);
  // A line counted later lies before anything the rest of the pass stopped at: its error is
  // the one reading in turn would have met first.
  if (count_later_ && !count_lines_at_once(jobs)) {
    error_.clear();
    return truncated();
  }
  if (!ok) return false;
  Host& h = p_.hosts[host_index_];
  h.num_planes = uint32_t(p_.planes.size()) - h.first_plane;
  if (!hostnames_.empty()) h.hostname = intern_text(hostnames_.front());
  for (size_t i = 1; i < hostnames_.size(); ++i) h.more_hostnames.push_back(intern_text(hostnames_[i]));
  // The file's own warnings and errors are text from the file too.
  for (auto& w : warnings_) p_.warnings.push_back(format::make_valid_utf8(host_ + ": " + w));
  for (auto& e : errors_) p_.errors.push_back(format::make_valid_utf8(host_ + ": " + e));
  if (!has_origin_) p_.origin_ns = min_timestamp_ns_ == INT64_MAX ? 0 : min_timestamp_ns_;
  return true;
}

bool XSpaceImport::scan_space(Reader in) {
  has_origin_ = !p_.hosts.empty();
  host_index_ = uint32_t(p_.hosts.size());
  Host host;
  host.name = intern_text(host_);
  host.first_plane = uint32_t(p_.planes.size());
  p_.hosts.push_back(host);

  bool any_field = false;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    any_field = true;
    std::string_view text;
    Reader plane;
    switch (field_of(tag)) {
      case xs::kSpacePlanes.number:
        if (!expect(tag, xs::kSpacePlanes.wire_type)) return false;
        if (!in.message(&plane) || !scan_plane(plane)) return truncated();
        pages_.release_before(in.position());
        break;
      case xs::kSpaceErrors.number:
      case xs::kSpaceWarnings.number:
      case xs::kSpaceHostnames.number: {
        if (!expect(tag, xs::kSpaceHostnames.wire_type)) return false;
        if (!in.bytes(&text)) return truncated();
        auto& list = field_of(tag) == xs::kSpaceErrors.number     ? errors_
                     : field_of(tag) == xs::kSpaceWarnings.number ? warnings_
                                                                  : hostnames_;
        list.emplace_back(text);
        break;
      }
      default:
        // Arbitrary bytes often parse as protobuf fields; an XSpace has only these four.
        return fail("not an XSpace profile (unknown field " + std::to_string(field_of(tag)) + ")");
    }
  }
  if (in.bad()) return truncated();
  if (!any_field || (p_.planes.size() == saved_.planes && hostnames_.empty() && warnings_.empty() &&
                     errors_.empty()))
    return fail("not an XSpace profile (no planes)");
  return true;
}

bool XSpaceImport::scan_plane(Reader in) {
  PlaneScan scan;
  Plane plane;
  plane.host = host_index_;
  std::vector<RawEventMetadata> metas;
  std::vector<RawStat> plane_stats;
  std::string_view text;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    Reader sub;
    switch (field_of(tag)) {
      case xs::kPlaneId.number: {
        uint64_t v;
        if (!expect(tag, xs::kPlaneId.wire_type)) return false;
        if (!in.varint(&v)) return truncated();
        plane.id = int64_t(v);
        break;
      }
      case xs::kPlaneName.number:
        if (!expect(tag, xs::kPlaneName.wire_type)) return false;
        if (!in.bytes(&text)) return truncated();
        plane.name = intern_text(text);
        break;
      case xs::kPlaneLines.number:
        if (!expect(tag, xs::kPlaneLines.wire_type)) return false;
        if (!in.message(&sub)) return truncated();
        if (count_later_) {
          lines_to_count_.push_back({sub, in.position()});
          break;
        }
        if (!count_line(sub)) return truncated();
        pages_.release_before(in.position());
        break;
      case xs::kPlaneEventMetadata.number:
        if (!expect(tag, xs::kPlaneEventMetadata.wire_type)) return false;
        metas.emplace_back();
        if (!in.message(&sub) || !read_event_metadata_entry(sub, &metas.back())) return truncated();
        break;
      case xs::kPlaneStatMetadata.number:
        if (!expect(tag, xs::kPlaneStatMetadata.wire_type)) return false;
        if (!in.message(&sub) || !read_stat_metadata_entry(sub, &scan)) return truncated();
        ++plane.num_stat_metadata;
        break;
      case xs::kPlaneStats.number:
        if (!expect(tag, xs::kPlaneStats.wire_type)) return false;
        plane_stats.emplace_back();
        if (!in.message(&sub) || !read_stat(sub, &plane_stats.back())) return truncated();
        break;
      default:
        return fail("not an XSpace profile (unknown plane field " + std::to_string(field_of(tag)) + ")");
    }
  }
  if (in.bad()) return false;
  const PlaneIdentity identity = identify_plane(p_.strings.view(plane.name));
  plane.kind = identity.kind;
  plane.device_type = intern_text(identity.device_type);
  plane.device_ordinal = identity.device_ordinal;
  plane.stats.first = uint32_t(p_.metadata_stats.size());
  for (const RawStat& s : plane_stats) p_.metadata_stats.add(resolve_key(scan, s.key_id), resolve_value(scan, s));
  plane.stats.count = uint32_t(p_.metadata_stats.size()) - plane.stats.first;
  plane.num_event_metadata = uint32_t(metas.size());
  add_names(metas, &scan);
  scan.plane = uint32_t(p_.planes.size());
  p_.planes.push_back(plane);
  scans_.push_back(std::move(scan));
  return true;
}

// A line's events, counted without decoding them, and its timestamp.
struct LineCount {
  uint32_t events = 0;
  int64_t timestamp_ns = 0;
  bool ok = false;
};

LineCount count_events(Reader in) {
  LineCount count;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    if (tag == xs::kLineTimestampNs.tag()) {
      if (!in.int64(&count.timestamp_ns)) return count;
    } else if (tag == xs::kLineEvents.tag()) {
      if (!in.skip(tag)) return count;
      ++count.events;
    } else if (!in.skip(tag)) {
      return count;
    }
  }
  count.ok = !in.bad();
  return count;
}

bool XSpaceImport::count_line(Reader in) {
  const LineCount count = count_events(in);
  if (!count.ok) return false;
  num_events_ += count.events;
  if (count.events > 0) min_timestamp_ns_ = std::min(min_timestamp_ns_, count.timestamp_ns);
  line_counts_.push_back(count.events);
  return true;
}

// The lines the pass left for later, on `jobs` threads, each thread handing back the pages of
// the lines it counted; then added up in the file's order.
bool XSpaceImport::count_lines_at_once(unsigned jobs) {
  std::vector<LineCount> counts(lines_to_count_.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < counts.size();) {
      counts[i] = count_events(lines_to_count_[i].line);
      pages_.release_inside(lines_to_count_[i].line.position(), lines_to_count_[i].end);
    }
  };
  {
    std::vector<std::jthread> threads;
    for (unsigned j = 1; j < jobs && j < counts.size(); ++j) threads.emplace_back(work);
    work();
  }
  lines_to_count_.clear();
  for (const LineCount& count : counts) {
    if (!count.ok) return false;
    num_events_ += count.events;
    if (count.events > 0) min_timestamp_ns_ = std::min(min_timestamp_ns_, count.timestamp_ns);
    line_counts_.push_back(count.events);
  }
  return true;
}

bool XSpaceImport::read_event_metadata_entry(Reader in, RawEventMetadata* meta) {
  int64_t key = 0;
  bool has_key = false;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    if (tag == xs::kMapKey.tag()) {
      if (!in.int64(&key)) return false;
      has_key = true;
    } else if (tag == xs::kMapValue.tag()) {
      Reader value;
      if (!in.message(&value) || !read_event_metadata(value, meta)) return false;
    } else if (!in.skip(tag)) {
      return false;
    }
  }
  if (has_key) meta->id = key;
  return !in.bad();
}

bool XSpaceImport::read_event_metadata(Reader in, RawEventMetadata* meta) {
  std::string_view text;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    if (tag == xs::kEventMetaId.tag()) {
      if (!in.int64(&meta->id)) return false;
    } else if (tag == xs::kEventMetaName.tag()) {
      if (!in.bytes(&text)) return false;
      meta->name.assign(text);
    } else if (tag == xs::kEventMetaDisplayName.tag()) {
      if (!in.bytes(&text)) return false;
      meta->display_name = intern_text(text);
    } else if (tag == xs::kEventMetaStats.tag()) {
      Reader stat;
      meta->stats.emplace_back();
      if (!in.message(&stat) || !read_stat(stat, &meta->stats.back())) return false;
    } else if (!in.skip(tag)) {
      return false;
    }
  }
  return !in.bad();
}

bool XSpaceImport::read_stat_metadata_entry(Reader in, PlaneScan* scan) {
  int64_t key = 0, id = 0;
  bool has_key = false;
  StringId name = kEmptyString;
  std::string_view text;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    if (tag == xs::kMapKey.tag()) {
      if (!in.int64(&key)) return false;
      has_key = true;
    } else if (tag == xs::kMapValue.tag()) {
      Reader value;
      if (!in.message(&value)) return false;
      uint32_t inner;
      while (value.next_tag(&inner)) {
        if (inner == xs::kStatMetaId.tag()) {
          if (!value.int64(&id)) return false;
        } else if (inner == xs::kStatMetaName.tag()) {
          if (!value.bytes(&text)) return false;
          name = intern_text(text);
        } else if (!value.skip(inner)) {
          return false;
        }
      }
      if (value.bad()) return false;
    } else if (!in.skip(tag)) {
      return false;
    }
  }
  scan->stat_keys.set(has_key ? key : id, name);
  return !in.bad();
}

bool XSpaceImport::read_stat(Reader in, RawStat* stat) {
  std::string_view text;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    uint64_t v = 0;
    switch (tag) {
      case xs::kStatMetadataId.tag():
        if (!in.varint(&v)) return false;
        stat->key_id = int64_t(v);
        break;
      case xs::kStatDouble.tag(): {
        if (!in.fixed64(&v)) return false;
        double d;
        std::memcpy(&d, &v, sizeof d);
        stat->value = StatValue::of_double(d);
        break;
      }
      case xs::kStatUint64.tag():
        if (!in.varint(&v)) return false;
        stat->value = StatValue::of_uint(v);
        break;
      case xs::kStatInt64.tag():
        if (!in.varint(&v)) return false;
        stat->value = StatValue::of_int(int64_t(v));
        break;
      case xs::kStatString.tag():
        if (!in.bytes(&text)) return false;
        stat->value = StatValue::of_string(intern_text(text));
        break;
      case xs::kStatBytes.tag():
        if (!in.bytes(&text)) return false;
        stat->value = StatValue::of_string(intern_text(bytes_stat_text(text)));
        break;
      case xs::kStatRef.tag():
        if (!in.varint(&v)) return false;
        stat->value = StatValue::of_uint(v);
        stat->is_ref = true;
        break;
      default:
        if (!in.skip(tag)) return false;
    }
  }
  return !in.bad();
}

StringId XSpaceImport::resolve_key(PlaneScan& scan, int64_t key_id) {
  const uint32_t key = scan.stat_keys.get(key_id);
  if (key != IdMap::kAbsent) return key;
  // A stat whose metadata is missing keeps its id as its name, so it still shows somewhere.
  const StringId name = p_.strings.intern("stat#" + std::to_string(key_id));
  if (unknown_names_ == nullptr) scan.stat_keys.set(key_id, name);  // a chunk only reads the scans
  return name;
}

StatValue XSpaceImport::resolve_value(PlaneScan& scan, const RawStat& stat) {
  if (!stat.is_ref) return stat.value;
  return StatValue::of_string(resolve_key(scan, int64_t(stat.value.u64)));
}

// TraceMe's "name#k=v,...#". A '#' elsewhere belongs to the name: PyTorch's "ProfilerStep#3",
// "Optimizer.step#SGD.step" or "## forward ##" (as a converted PyTorch trace holds them).
bool is_encoded_annotation(std::string_view name) {
  const size_t first = name.find('#');
  return first != std::string_view::npos && first > 0 && name.size() > first + 1 && name.back() == '#' &&
         name.find('=', first) != std::string_view::npos;
}

// Turns the plane's event metadata into EventNames, splitting "name#k=v,...#" into a name and
// stats the way TensorFlow's own importer does.
void XSpaceImport::add_names(std::vector<RawEventMetadata>& metas, PlaneScan* scan) {
  for (RawEventMetadata& meta : metas) {
    EventName name;
    name.display_name = meta.display_name;
    name.stats.first = uint32_t(p_.metadata_stats.size());
    if (is_encoded_annotation(meta.name)) {
      const format::ParsedAnnotation parsed = format::parse_annotation(meta.name);
      name.name = intern_text(parsed.name);
      for (const auto& arg : parsed.args) {
        StatValue value;
        if (auto* i = std::get_if<int64_t>(&arg.value)) value = StatValue::of_int(*i);
        else if (auto* u = std::get_if<uint64_t>(&arg.value)) value = StatValue::of_uint(*u);
        else if (auto* d = std::get_if<double>(&arg.value)) value = StatValue::of_double(*d);
        else value = StatValue::of_string(intern_text(std::get<std::string_view>(arg.value)));
        p_.metadata_stats.add(intern_text(arg.key), value);
      }
    } else {
      name.name = intern_text(meta.name);
    }
    for (const RawStat& s : meta.stats)
      p_.metadata_stats.add(resolve_key(*scan, s.key_id), resolve_value(*scan, s));
    name.stats.count = uint32_t(p_.metadata_stats.size()) - name.stats.first;
    scan->names.set(meta.id, NameIndex(p_.names.size()));
    p_.names.push_back(name);
  }
}

// ---- Second pass -------------------------------------------------------------------------

void XSpaceImport::reserve() { p_.events.reserve(p_.num_events() + num_events_); }

bool XSpaceImport::decode(Reader in) {
  size_t plane = 0;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    if (tag == xs::kSpacePlanes.tag()) {
      if (plane >= scans_.size()) return fail("the file changed while it was read");
      Reader sub;
      if (!in.message(&sub) || !decode_plane(sub, scans_[plane++])) return truncated();
    } else if (!in.skip(tag)) {
      return truncated();
    }
  }
  if (in.bad()) return truncated();
  if (plane != scans_.size() || p_.num_events() != saved_.events + num_events_)
    return fail("the file changed while it was read");
  return true;
}

bool XSpaceImport::decode_plane(Reader in, PlaneScan& scan) {
  p_.planes[scan.plane].first_line = uint32_t(p_.lines.size());
  uint32_t tag;
  while (in.next_tag(&tag)) {
    if (tag == xs::kPlaneLines.tag()) {
      Reader line;
      if (!in.message(&line) || !decode_line<false>(line, scan)) return false;
      pages_.release_before(in.position());
    } else if (!in.skip(tag)) {
      return false;
    }
  }
  if (in.bad()) return false;
  Plane& plane = p_.planes[scan.plane];
  plane.num_lines = uint32_t(p_.lines.size()) - plane.first_line;
  return true;
}

template <bool kInPlace>
bool XSpaceImport::decode_line(Reader in, PlaneScan& scan) {
  const uint32_t index = uint32_t(p_.lines.size());
  p_.lines.emplace_back();
  p_.lines[index].plane = scan.plane;
  p_.lines[index].first_event = kInPlace ? out_->first : uint32_t(p_.num_events());
  if constexpr (kInPlace) out_->stats_begin = p_.event_stats.size();
  int64_t timestamp_ns = 0;
  bool sorted = true;
  int64_t prev_start = INT64_MIN, prev_duration = 0;
  std::string_view text;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    uint64_t v;
    switch (tag) {
      case xs::kLineId.tag():
        if (!in.varint(&v)) return false;
        p_.lines[index].id = int64_t(v);
        break;
      case xs::kLineName.tag():
        if (!in.bytes(&text)) return false;
        p_.lines[index].name = intern_text(text);
        break;
      case xs::kLineDisplayName.tag():
        if (!in.bytes(&text)) return false;
        p_.lines[index].display_name = intern_text(text);
        break;
      case xs::kLineTimestampNs.tag():
        if (!in.varint(&v)) return false;
        timestamp_ns = int64_t(v);
        break;
      case xs::kLineEvents.tag(): {
        Reader event;
        int64_t start = 0, duration = 0;
        if (!in.message(&event) || !decode_event<kInPlace>(event, scan, &start, &duration)) return false;
        // Sorted means by start, and an enclosing event (the longer) before what it encloses.
        if (start < prev_start || (start == prev_start && duration > prev_duration)) sorted = false;
        prev_start = start;
        prev_duration = duration;
        break;
      }
      default:
        if (!in.skip(tag)) return false;
    }
  }
  if (in.bad()) return false;
  return finish_line(index, timestamp_ns, sorted);
}

template <bool kInPlace>
bool XSpaceImport::decode_event(Reader in, PlaneScan& scan, int64_t* start, int64_t* duration) {
  int64_t metadata_id = 0;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    uint64_t v;
    switch (tag) {
      case xs::kEventMetadataId.tag():
        if (!in.varint(&v)) return false;
        metadata_id = int64_t(v);
        break;
      case xs::kEventOffsetPs.tag():
        if (!in.varint(&v)) return false;
        *start = int64_t(v);
        break;
      case xs::kEventDurationPs.tag():
        if (!in.varint(&v)) return false;
        *duration = int64_t(v);
        break;
      case xs::kEventStats.tag(): {
        Reader sub;
        RawStat stat;
        if (!in.message(&sub) || !read_stat(sub, &stat)) return false;
        p_.event_stats.add(resolve_key(scan, stat.key_id), resolve_value(scan, stat));
        break;
      }
      default:  // num_occurrences (aggregated events keep offset 0) and unknown fields
        if (!in.skip(tag)) return false;
    }
  }
  if (in.bad()) return false;
  if (*duration < 0) *duration = 0;
  if constexpr (kInPlace) {
    if (out_->count == out_->capacity) return fail("the file changed while it was read");
    const uint32_t i = out_->count++;
    out_->start[i] = *start;
    out_->duration[i] = *duration;
    out_->name[i] = name_for(scan, metadata_id);
    out_->parent[i] = kNone;
    out_->stat_end[i] = uint32_t(p_.event_stats.size());
    return true;
  }
  EventColumns& ev = p_.events;
  ev.start_ps.push_back(*start);
  ev.duration_ps.push_back(*duration);
  ev.name.push_back(name_for(scan, metadata_id));
  ev.parent.push_back(kNone);
  ev.first_stat.push_back(uint32_t(p_.event_stats.size()));
  return true;
}

NameIndex XSpaceImport::name_for(PlaneScan& scan, int64_t metadata_id) {
  const uint32_t index = scan.names.get(metadata_id);
  if (index != IdMap::kAbsent) return index;
  if (unknown_names_ != nullptr) {
    unknown_names_->emplace_back(metadata_id, p_.strings.intern(std::to_string(metadata_id)));
    return kUnknownName | NameIndex(unknown_names_->size() - 1);
  }
  EventName name;
  name.name = p_.strings.intern(std::to_string(metadata_id));
  scan.names.set(metadata_id, NameIndex(p_.names.size()));
  p_.names.push_back(name);
  return NameIndex(p_.names.size() - 1);
}

// ---- Second pass on several threads ------------------------------------------------------

// One line decoded apart: its events are in place already; its strings over the profile's (ids
// from the profile's size on are the chunk's own), its stats, its undeclared names.
struct XSpaceImport::LineChunk {
  Profile profile;
  std::vector<std::pair<int64_t, StringId>> unknown_names;  // in the order the events met them
  std::vector<StringId> repaired;                            // strings stored with U+FFFD
  std::string error;
  bool ok = false;
};

bool XSpaceImport::decode_chunk(Reader line, PlaneScan& scan, LineEvents out, LineChunk* chunk) {
  Profile& c = chunk->profile;
  c.strings = StringTable(&p_.strings);
  c.planes = planes_before_lines_;  // finish_line asks the plane's kind
  c.origin_ns = p_.origin_ns;
  PageReleaser none;
  XSpaceImport line_import(&c, host_, &none);
  line_import.unknown_names_ = &chunk->unknown_names;
  line_import.out_ = &out;
  chunk->ok = line_import.decode_line<true>(line, scan);
  chunk->repaired = std::move(line_import.repaired_);
  if (!chunk->ok) chunk->error = line_import.error();
  return chunk->ok;
}

// Completes a chunk's line as decode_line would have written it: strings it met first are
// added to the profile in the order it met them, names for undeclared ids made once a plane,
// its stats appended.
bool XSpaceImport::join_chunk(LineChunk& chunk, uint32_t scan, EventIndex first, uint32_t count) {
  if (!chunk.ok) return chunk.error.empty() ? truncated() : fail(chunk.error);
  const Profile& c = chunk.profile;
  const StringId base = StringId(p_.strings.size());
  std::vector<StringId> ids(c.strings.size() - base);
  for (size_t k = 0; k < ids.size(); ++k) ids[k] = joined_strings_->intern(c.strings.view(StringId(base + k)));
  auto id = [&](StringId s) { return s < base ? s : ids[s - base]; };
  for (StringId r : chunk.repaired) repaired_.push_back(id(r));
  std::vector<NameIndex> unknown(chunk.unknown_names.size());
  for (size_t k = 0; k < unknown.size(); ++k) {
    const auto [metadata_id, name] = chunk.unknown_names[k];
    auto [it, added] = joined_unknown_names_.try_emplace({scan, metadata_id}, NameIndex(p_.names.size()));
    if (added) {
      EventName n;
      n.name = id(name);
      p_.names.push_back(n);
    }
    unknown[k] = it->second;
  }
  Line line = c.lines.front();
  line.name = id(line.name);
  line.display_name = id(line.display_name);
  p_.lines.push_back(line);
  EventColumns& ev = p_.events;
  if (!unknown.empty()) {
    for (EventIndex e = first; e < first + count; ++e)
      if ((ev.name[e] & kUnknownName) != 0) ev.name[e] = unknown[ev.name[e] & ~kUnknownName];
  }
  const uint32_t stats0 = uint32_t(p_.event_stats.size());
  for (EventIndex e = first; e < first + count; ++e) ev.first_stat[e + 1] += stats0;
  p_.event_stats.reserve(p_.event_stats.size() + c.event_stats.size());
  for (size_t i = 0; i < c.event_stats.size(); ++i) {
    StatValue v = c.event_stats.value(i);
    if (v.type == StatType::kString) v.str = id(v.str);
    p_.event_stats.add(id(c.event_stats.key(i)), v);
  }
  return true;
}

// The columns at their final size, their memory touched by `jobs` threads, a few columns each.
void XSpaceImport::size_columns(size_t events, unsigned jobs) {
  EventColumns& ev = p_.events;
  std::vector<std::function<void()>> columns = {
      [&] { ev.start_ps.resize(events); },  [&] { ev.duration_ps.resize(events); },
      [&] { ev.name.resize(events); },      [&] { ev.parent.resize(events); },
      [&] { ev.first_stat.resize(events + 1); }};
  const unsigned threads_used = unsigned(std::min<size_t>(jobs, columns.size()));
  std::vector<std::exception_ptr> failed(threads_used);
  auto work = [&](unsigned j) {
    try {
      for (size_t c = j; c < columns.size(); c += threads_used) columns[c]();
    } catch (...) {
      failed[j] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> threads;  // joined however this block is left
    for (unsigned j = 1; j < threads_used; ++j) threads.emplace_back(work, j);
    work(0);
  }
  for (auto& f : failed)
    if (f) std::rethrow_exception(f);
}

bool XSpaceImport::decode_lines_at_once(Reader in, unsigned jobs) {
  // The lines, plane by plane, as decode() meets them.
  struct Work {
    uint32_t scan;
    Reader line;
    const uint8_t* end;  // of the line in the file
    EventIndex first;    // its first event
  };
  std::vector<Work> work;
  std::vector<uint32_t> lines_of(scans_.size(), 0);
  size_t plane = 0;
  uint32_t tag;
  while (in.next_tag(&tag)) {
    if (tag != xs::kSpacePlanes.tag()) {
      if (!in.skip(tag)) return truncated();
      continue;
    }
    if (plane >= scans_.size()) return fail("the file changed while it was read");
    Reader sub;
    if (!in.message(&sub)) return truncated();
    while (sub.next_tag(&tag)) {
      if (tag == xs::kPlaneLines.tag()) {
        Reader line;
        if (!sub.message(&line)) return truncated();
        work.push_back({uint32_t(plane), line, sub.position(), 0});
        ++lines_of[plane];
      } else if (!sub.skip(tag)) {
        return truncated();
      }
    }
    if (sub.bad()) return truncated();
    ++plane;
  }
  if (in.bad()) return truncated();
  if (plane != scans_.size() || work.size() != line_counts_.size()) return fail("the file changed while it was read");
  EventIndex first = EventIndex(saved_.events);
  for (size_t i = 0; i < work.size(); ++i) {
    work[i].first = first;
    first += line_counts_[i];
  }
  size_columns(saved_.events + num_events_, jobs);

  // The profile's strings and planes stay as they are while the threads read them.
  planes_before_lines_ = p_.planes;
  joined_strings_ = std::make_unique<StringTable>(&p_.strings);
  EventColumns& ev = p_.events;
  const bool ok = run_ordered<std::unique_ptr<LineChunk>>(
      work.size(), jobs,
      [&](size_t i) {
        auto chunk = std::make_unique<LineChunk>();
        const EventIndex e = work[i].first;
        LineEvents out{ev.start_ps.data() + e, ev.duration_ps.data() + e,  ev.name.data() + e,
                       ev.parent.data() + e,   ev.first_stat.data() + e + 1, e,
                       0,                      line_counts_[i],              0};
        try {
          decode_chunk(work[i].line, scans_[work[i].scan], out, chunk.get());
        } catch (const std::bad_alloc&) {
          chunk->ok = false;
          chunk->error = "out of memory while decoding a line";
        }
        return chunk;
      },
      [&](size_t i, std::unique_ptr<LineChunk>& chunk) {
        if (!join_chunk(*chunk, work[i].scan, work[i].first, line_counts_[i])) return false;
        chunk.reset();
        pages_.release_before(work[i].end);
        return true;
      });
  for (StringId s = StringId(p_.strings.size()); s < joined_strings_->size(); ++s)
    p_.strings.intern(joined_strings_->view(s));
  joined_strings_.reset();
  if (!ok) return false;
  uint32_t first_line = uint32_t(saved_.lines);
  for (size_t k = 0; k < scans_.size(); ++k) {
    Plane& pl = p_.planes[scans_[k].plane];
    pl.first_line = first_line;
    pl.num_lines = lines_of[k];
    first_line += lines_of[k];
  }
  return true;
}

// The line's events in p_.events, as decode() appended them.
XSpaceImport::LineEvents XSpaceImport::line_events_in_profile(uint32_t line_index) {
  EventColumns& ev = p_.events;
  const EventIndex e = p_.lines[line_index].first_event;
  const uint32_t n = uint32_t(p_.num_events()) - e;
  return {ev.start_ps.data() + e, ev.duration_ps.data() + e,  ev.name.data() + e,
          ev.parent.data() + e,   ev.first_stat.data() + e + 1, e,
          n,                      n,                            ev.first_stat[e]};
}

bool XSpaceImport::finish_line(uint32_t index, int64_t timestamp_ns, bool sorted) {
  LineEvents ev = out_ != nullptr ? *out_ : line_events_in_profile(index);
  if (ev.count != ev.capacity) return fail("the file changed while it was read");
  Line& line = p_.lines[index];
  line.num_events = ev.count;
  line.kind = identify_line(p_.planes[line.plane].kind, p_.strings.view(line.name), line.id);
  if (line.num_events == 0) return true;
  int64_t base_ps;
  if (__builtin_sub_overflow(timestamp_ns, p_.origin_ns, &base_ps) ||
      __builtin_mul_overflow(base_ps, int64_t(1000), &base_ps))
    return fail("line \"" + quotable(p_.strings.view(line.name)) + "\" has a timestamp out of range");
  for (uint32_t i = 0; i < ev.count; ++i) {
    int64_t end;
    if (ev.duration[i] > kMaxEventDurationPs)
      return fail("line \"" + quotable(p_.strings.view(line.name)) + "\" has an event lasting " +
                  std::to_string(ev.duration[i] / 1'000'000'000'000) + " s, longer than the " +
                  kMaxEventDurationText + " an event may last");
    if (__builtin_add_overflow(ev.start[i], base_ps, &ev.start[i]) ||
        __builtin_add_overflow(ev.start[i], ev.duration[i], &end))
      return fail("line \"" + quotable(p_.strings.view(line.name)) +
                  "\" has an event whose time is out of range (offset or duration past 2^63 ps)");
  }
  if (!sorted) sort_line(ev);
  link_parents(ev);
  return true;
}

// Reorders a line's events (columns and stats) by start, longest first on ties.
void XSpaceImport::sort_line(LineEvents& ev) {
  std::vector<uint32_t> order(ev.count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (ev.start[a] != ev.start[b]) return ev.start[a] < ev.start[b];
    return ev.duration[a] > ev.duration[b];
  });
  auto permute = [&](auto* column) {
    std::vector<std::decay_t<decltype(column[0])>> copy(column, column + ev.count);
    for (uint32_t i = 0; i < order.size(); ++i) column[i] = copy[order[i]];
  };
  auto stats_of = [&](uint32_t i) {
    return std::pair<size_t, size_t>(i == 0 ? ev.stats_begin : ev.stat_end[i - 1], ev.stat_end[i]);
  };
  std::vector<std::pair<StringId, StatValue>> stats;
  stats.reserve(ev.count == 0 ? 0 : ev.stat_end[ev.count - 1] - ev.stats_begin);
  std::vector<uint32_t> end(order.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    const auto [from, to] = stats_of(order[i]);
    for (size_t s = from; s < to; ++s) stats.emplace_back(p_.event_stats.key(s), p_.event_stats.value(s));
    end[i] = uint32_t(ev.stats_begin + stats.size());
  }
  for (size_t s = 0; s < stats.size(); ++s) p_.event_stats.set(ev.stats_begin + s, stats[s].first, stats[s].second);
  for (uint32_t i = 0; i < order.size(); ++i) ev.stat_end[i] = end[i];
  permute(ev.start);
  permute(ev.duration);
  permute(ev.name);
}

// Nesting on one line: the enclosing event is the innermost earlier one still open.
void XSpaceImport::link_parents(LineEvents& ev) {
  std::vector<uint32_t> open;
  for (uint32_t i = 0; i < ev.count; ++i) {
    const int64_t start = ev.start[i], stop = start + ev.duration[i];
    while (!open.empty()) {
      const uint32_t top = open.back();
      const int64_t top_end = ev.start[top] + ev.duration[top];
      // A parent must contain the event; one that ended, or only partly overlaps, is closed.
      if (top_end > start && top_end >= stop) break;
      open.pop_back();
    }
    ev.parent[i] = open.empty() ? kNone : ev.first + open.back();
    open.push_back(i);
  }
}

void XSpaceImport::rollback() {
  p_.hosts.resize(saved_.hosts);
  p_.planes.resize(saved_.planes);
  p_.lines.resize(saved_.lines);
  p_.names.resize(saved_.names);
  EventColumns& ev = p_.events;
  ev.start_ps.resize(saved_.events);
  ev.duration_ps.resize(saved_.events);
  ev.name.resize(saved_.events);
  ev.parent.resize(saved_.events);
  ev.first_stat.resize(saved_.events + 1);
  p_.event_stats.truncate(saved_.event_stats);
  p_.metadata_stats.truncate(saved_.metadata_stats);
  p_.warnings.resize(saved_.warnings);
  p_.errors.resize(saved_.errors);
}

// Runs both passes over the bytes.
bool import_from(const void* data, size_t size, std::string_view host, Profile* profile, PageReleaser* pages,
                 unsigned jobs, std::string* error) {
  XSpaceImport import(profile, host, pages);
  const int64_t saved_origin = profile->origin_ns;
  bool ok = import.scan(Reader(data, size), jobs);
  if (ok) {
    import.reserve();
    pages->restart();
    ok = jobs > 1 && import.has_lines_to_share() ? import.decode_lines_at_once(Reader(data, size), jobs)
                                                 : import.decode(Reader(data, size));
  }
  if (!ok) {
    import.rollback();
    profile->origin_ns = saved_origin;
    *error = import.error();
  } else {
    import.warn_about_repaired_strings();
  }
  return ok;
}

}  // namespace

bool import_xspace_bytes(const void* data, size_t size, std::string_view host, Profile* profile,
                         std::string* error, unsigned jobs) {
  if (size == 0) {
    *error = "empty file";
    return false;
  }
  if (size >= size_t(INT_MAX)) {
    *error = "larger than 2 GiB, the protobuf message limit";
    return false;
  }
  PageReleaser none;
  return import_from(data, size, host, profile, &none, jobs, error);
}

bool import_xspace_file(const std::string& path, std::string_view host, Profile* profile,
                        std::string* error, const LoadProgress& progress, unsigned jobs) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const int stat_errno = errno;
  void* map = MAP_FAILED;
  if (stat_ok && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < INT_MAX)
    map = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (!stat_ok) {
    *error = std::strerror(stat_errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "is a directory, expected an .xplane.pb file";
    return false;
  }
  if (st.st_size == 0) {
    *error = "empty file";
    return false;
  }
  if (st.st_size >= INT_MAX) {
    *error = "larger than 2 GiB, the protobuf message limit";
    return false;
  }
  if (map == MAP_FAILED) {
    *error = std::string("cannot map the file: ") + std::strerror(map_errno);
    return false;
  }
  const size_t size = size_t(st.st_size);
  ::madvise(map, size, MADV_SEQUENTIAL);
  PageReleaser pages(static_cast<const uint8_t*>(map), size, &progress);
  const bool ok = import_from(map, size, host, profile, &pages, jobs, error);
  ::munmap(map, size);
  return ok;
}

}  // namespace mlprof::model
