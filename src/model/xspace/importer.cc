// Two passes over the wire format of a mapped file. The first reads everything but the events:
// plane names, metadata (which protobuf writes after the lines), and how many events each line
// holds, so that the columns are allocated once at their final size. The second decodes the
// events straight into the columns. Both passes work line after line here; lines_at_once.cc
// does the same on several threads. Pages already read are handed back to the kernel as the
// passes go (mapped_file.h), so the file does not add to the process' memory.
#include "model/xspace/importer.h"

#include <algorithm>
#include <numeric>

#include "format/annotation.h"
#include "model/event_time_limits.h"
#include "model/plane_naming.h"
#include "model/xspace/import_state.h"

namespace mlprof::model {
namespace xspace {

// A bytes stat as text: printable UTF-8 as it is (writers store text as bytes too), anything
// else (a serialized proto, raw bytes) as hex after "0x", so that every output stays text.
static std::string bytes_stat_text(std::string_view bytes) {
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

// The rank the Task Environment plane records (mlprof's captures of a job's process), or -1.
int64_t XSpaceImport::recorded_rank(const Host& h) const {
  for (uint32_t pl = h.first_plane; pl < h.first_plane + h.num_planes; ++pl) {
    const Plane& plane = p_.planes[pl];
    if (plane.kind != PlaneKind::kTaskEnvironment) continue;
    for (uint32_t i = plane.stats.first; i < plane.stats.first + plane.stats.count; ++i)
      if (p_.metadata_stats.key(i) == kRank && p_.metadata_stats.value(i).as_int() >= 0)
        return p_.metadata_stats.value(i).as_int();
  }
  return -1;
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
  h.rank = recorded_rank(h);
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
static bool is_encoded_annotation(std::string_view name) {
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
// lines_at_once.cc decodes lines in place.
template bool XSpaceImport::decode_line<true>(Reader in, PlaneScan& scan);

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
static bool import_from(const void* data, size_t size, std::string_view host, Profile* profile, PageReleaser* pages,
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

}  // namespace xspace

using xspace::PageReleaser;

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
  return xspace::import_from(data, size, host, profile, &none, jobs, error);
}

bool import_xspace_file(const std::string& path, std::string_view host, Profile* profile,
                        std::string* error, const LoadProgress& progress, unsigned jobs) {
  xspace::MappedFile file;
  if (!file.open(path, error)) return false;
  PageReleaser pages(file.data(), file.size(), &progress);
  const bool ok = xspace::import_from(file.data(), file.size(), host, profile, &pages, jobs, error);
  if (file.cut_short()) {
    *error = kCutShortWhileRead;
    return false;
  }
  return ok;
}

}  // namespace mlprof::model
