#include "format/xspace_encoder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include "format/xspace_schema.h"

namespace mlprof::format {
namespace {

namespace xs = xspace;
using xspace::Field;

// The schema's tags are all one byte (it checks so).
constexpr char tag(const Field& field) { return char(field.tag()); }

inline uint64_t varint_size(uint64_t v) { return (64 - uint64_t(__builtin_clzll(v | 1)) + 6) / 7; }
inline uint64_t field_varint_size(uint64_t v) { return 1 + varint_size(v); }
inline uint64_t field_bytes_size(uint64_t n) { return 1 + varint_size(n) + n; }

inline char* put_varint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = char(v | 0x80);
    v >>= 7;
  }
  *p++ = char(v);
  return p;
}

// ---- sizes ----------------------------------------------------------------------------

uint64_t stat_size(const WireStat& s) {
  uint64_t n = s.metadata_id != 0 ? field_varint_size(uint64_t(s.metadata_id)) : 0;
  switch (s.type) {
    case WireStat::Type::kInt64: return n + field_varint_size(uint64_t(s.int64_value));
    case WireStat::Type::kUint64:
    case WireStat::Type::kRef: return n + field_varint_size(s.uint64_value);
    case WireStat::Type::kDouble: return n + 1 + 8;
    case WireStat::Type::kString: return n + field_bytes_size(s.str_value.size());
  }
  return n;
}

uint64_t stats_field_size(const std::vector<WireStat>& stats, size_t first, size_t count) {
  uint64_t n = 0;
  for (size_t i = first; i < first + count; ++i) n += field_bytes_size(stat_size(stats[i]));
  return n;
}

uint64_t event_body_size(const WirePlane& plane, const WireEvent& e) {
  uint64_t n = e.metadata_id != 0 ? field_varint_size(e.metadata_id) : 0;
  n += field_varint_size(uint64_t(e.offset_ps));  // a oneof member: written even when 0
  if (e.duration_ps != 0) n += field_varint_size(uint64_t(e.duration_ps));
  if (e.stats != 0) {
    const WireStatList& list = plane.stat_lists[e.stats - 1];
    n += stats_field_size(plane.stat_pool, list.first, list.count);
  }
  return n;
}

uint64_t string_field_size(const std::string& s) { return s.empty() ? 0 : field_bytes_size(s.size()); }
uint64_t int_field_size(int64_t v) { return v != 0 ? field_varint_size(uint64_t(v)) : 0; }

uint64_t line_body_size(const WirePlane& plane, const WireLine& line) {
  uint64_t n = int_field_size(line.id) + string_field_size(line.name) +
               int_field_size(line.timestamp_ns) + int_field_size(line.duration_ps) +
               int_field_size(line.display_id) + string_field_size(line.display_name);
  for (const WireEvent& e : line.events) n += field_bytes_size(event_body_size(plane, e));
  return n;
}

uint64_t event_metadata_size(const WireEventMetadata& m) {
  return int_field_size(m.id) + string_field_size(m.name) + string_field_size(m.display_name);
}

uint64_t stat_metadata_size(const WireStatMetadata& m) {
  return int_field_size(m.id) + string_field_size(m.name) + string_field_size(m.description);
}

// A map<int64, V> entry: key = 1, value = 2.
uint64_t map_entry_size(int64_t key, uint64_t value_size) {
  return field_varint_size(uint64_t(key)) + field_bytes_size(value_size);
}

// The sizes the writer needs for length prefixes, computed once.
struct Layout {
  uint64_t space = 0;
  std::vector<uint64_t> plane_bodies;
  std::vector<std::vector<uint64_t>> line_bodies;  // [plane][line]
};

Layout compute_layout(const WireSpace& space) {
  Layout layout;
  for (const WirePlane& plane : space.planes) {
    std::vector<uint64_t>& lines = layout.line_bodies.emplace_back();
    uint64_t n = int_field_size(plane.id) + string_field_size(plane.name);
    for (const WireLine& line : plane.lines) {
      lines.push_back(line_body_size(plane, line));
      n += field_bytes_size(lines.back());
    }
    for (const WireEventMetadata& m : plane.event_metadata)
      n += field_bytes_size(map_entry_size(m.id, event_metadata_size(m)));
    for (const WireStatMetadata& m : plane.stat_metadata)
      n += field_bytes_size(map_entry_size(m.id, stat_metadata_size(m)));
    n += stats_field_size(plane.stats, 0, plane.stats.size());
    layout.plane_bodies.push_back(n);
    layout.space += field_bytes_size(n);
  }
  for (const auto* strings : {&space.errors, &space.warnings, &space.hostnames})
    for (const std::string& s : *strings) layout.space += field_bytes_size(s.size());
  return layout;
}

// ---- bytes ----------------------------------------------------------------------------

// A fixed buffer drained into a sink (a file descriptor or a string).
class Output {
 public:
  static constexpr size_t kCapacity = size_t{1} << 20;
  explicit Output(std::function<bool(const char*, size_t)> sink)
      : sink_(std::move(sink)), buffer_(new char[kCapacity]), pos_(buffer_.get()) {}

  // A pointer with at least n (<= 64) writable bytes; hand the end back with commit().
  char* reserve(size_t n) {
    if (size_t(buffer_.get() + kCapacity - pos_) < n) flush();
    return pos_;
  }
  void commit(char* end) { pos_ = end; }

  void put_bytes(const void* data, size_t n) {
    if (n == 0) return;  // an empty string_view's data may be null, which memcpy must not get
    if (n > kCapacity / 4) {  // large strings bypass the buffer
      flush();
      ok_ = ok_ && sink_(static_cast<const char*>(data), n);
      return;
    }
    if (size_t(buffer_.get() + kCapacity - pos_) < n) flush();
    std::memcpy(pos_, data, n);
    pos_ += n;
  }
  void put_tag_varint(const Field& field, uint64_t v) {
    char* p = reserve(11);
    *p++ = tag(field);
    commit(put_varint(p, v));
  }
  void put_length_prefix(const Field& field, uint64_t n) { put_tag_varint(field, n); }
  void put_string_field(const Field& field, std::string_view s) {
    put_length_prefix(field, s.size());
    put_bytes(s.data(), s.size());
  }

  bool finish() {
    flush();
    return ok_;
  }

 private:
  void flush() {
    if (pos_ != buffer_.get()) ok_ = ok_ && sink_(buffer_.get(), size_t(pos_ - buffer_.get()));
    pos_ = buffer_.get();
  }

  std::function<bool(const char*, size_t)> sink_;
  std::unique_ptr<char[]> buffer_;
  char* pos_;
  bool ok_ = true;
};

void write_int_field(Output& out, const Field& field, int64_t v) {
  if (v != 0) out.put_tag_varint(field, uint64_t(v));
}
void write_string_field(Output& out, const Field& field, const std::string& s) {
  if (!s.empty()) out.put_string_field(field, s);
}

// The head of a map<int64, V> entry in `field`: its length, the key, and the value's length;
// the value's own fields follow.
void write_map_entry_head(Output& out, const Field& field, int64_t key, uint64_t value_size) {
  out.put_length_prefix(field, map_entry_size(key, value_size));
  out.put_tag_varint(xs::kMapKey, uint64_t(key));
  out.put_length_prefix(xs::kMapValue, value_size);
}

void write_stat(Output& out, const Field& field, const WireStat& s) {
  out.put_length_prefix(field, stat_size(s));
  write_int_field(out, xs::kStatMetadataId, s.metadata_id);
  switch (s.type) {
    case WireStat::Type::kDouble: {
      char* p = out.reserve(9);
      *p++ = tag(xs::kStatDouble);
      std::memcpy(p, &s.double_value, 8);  // little-endian hosts only, as is all of mlprof
      out.commit(p + 8);
      break;
    }
    case WireStat::Type::kUint64: out.put_tag_varint(xs::kStatUint64, s.uint64_value); break;
    case WireStat::Type::kInt64: out.put_tag_varint(xs::kStatInt64, uint64_t(s.int64_value)); break;
    case WireStat::Type::kString: out.put_string_field(xs::kStatString, s.str_value); break;
    case WireStat::Type::kRef: out.put_tag_varint(xs::kStatRef, s.uint64_value); break;
  }
}

// The hot loop of a large write: an event without stats is at most 2 + 6 + 11 + 11 bytes.
void write_event(Output& out, const WirePlane& plane, const WireEvent& e) {
  if (e.stats == 0) {
    char* p = out.reserve(32);
    char* body = p + 2;  // the body is < 128 bytes: a one-byte length
    char* q = body;
    if (e.metadata_id != 0) { *q++ = tag(xs::kEventMetadataId); q = put_varint(q, e.metadata_id); }
    *q++ = tag(xs::kEventOffsetPs);
    q = put_varint(q, uint64_t(e.offset_ps));
    if (e.duration_ps != 0) { *q++ = tag(xs::kEventDurationPs); q = put_varint(q, uint64_t(e.duration_ps)); }
    p[0] = tag(xs::kLineEvents);
    p[1] = char(q - body);
    out.commit(q);
    return;
  }
  out.put_length_prefix(xs::kLineEvents, event_body_size(plane, e));
  write_int_field(out, xs::kEventMetadataId, e.metadata_id);
  out.put_tag_varint(xs::kEventOffsetPs, uint64_t(e.offset_ps));
  write_int_field(out, xs::kEventDurationPs, e.duration_ps);
  const WireStatList& list = plane.stat_lists[e.stats - 1];
  for (uint32_t i = list.first; i < list.first + list.count; ++i) write_stat(out, xs::kEventStats, plane.stat_pool[i]);
}

void write_line(Output& out, const WirePlane& plane, const WireLine& line, uint64_t body_size) {
  out.put_length_prefix(xs::kPlaneLines, body_size);
  write_int_field(out, xs::kLineId, line.id);
  write_string_field(out, xs::kLineName, line.name);
  write_int_field(out, xs::kLineTimestampNs, line.timestamp_ns);
  for (const WireEvent& e : line.events) write_event(out, plane, e);
  write_int_field(out, xs::kLineDurationPs, line.duration_ps);
  write_int_field(out, xs::kLineDisplayId, line.display_id);
  write_string_field(out, xs::kLineDisplayName, line.display_name);
}

void write_plane(Output& out, const WirePlane& plane, uint64_t body_size,
                 const std::vector<uint64_t>& line_sizes) {
  out.put_length_prefix(xs::kSpacePlanes, body_size);
  write_int_field(out, xs::kPlaneId, plane.id);
  write_string_field(out, xs::kPlaneName, plane.name);
  for (size_t i = 0; i < plane.lines.size(); ++i) write_line(out, plane, plane.lines[i], line_sizes[i]);
  for (const WireEventMetadata& m : plane.event_metadata) {
    write_map_entry_head(out, xs::kPlaneEventMetadata, m.id, event_metadata_size(m));
    write_int_field(out, xs::kEventMetaId, m.id);
    write_string_field(out, xs::kEventMetaName, m.name);
    write_string_field(out, xs::kEventMetaDisplayName, m.display_name);
  }
  for (const WireStatMetadata& m : plane.stat_metadata) {
    write_map_entry_head(out, xs::kPlaneStatMetadata, m.id, stat_metadata_size(m));
    write_int_field(out, xs::kStatMetaId, m.id);
    write_string_field(out, xs::kStatMetaName, m.name);
    write_string_field(out, xs::kStatMetaDescription, m.description);
  }
  for (const WireStat& s : plane.stats) write_stat(out, xs::kPlaneStats, s);
}

bool write_space(const WireSpace& space, const Layout& layout, Output& out) {
  for (size_t i = 0; i < space.planes.size(); ++i)
    write_plane(out, space.planes[i], layout.plane_bodies[i], layout.line_bodies[i]);
  for (const std::string& s : space.errors) out.put_string_field(xs::kSpaceErrors, s);
  for (const std::string& s : space.warnings) out.put_string_field(xs::kSpaceWarnings, s);
  for (const std::string& s : space.hostnames) out.put_string_field(xs::kSpaceHostnames, s);
  return out.finish();
}

}  // namespace

uint64_t wire_event_field_size(const WirePlane& plane, const WireEvent& event) {
  return field_bytes_size(event_body_size(plane, event));
}

uint64_t xspace_size(const WireSpace& space) { return compute_layout(space).space; }

std::string encode_xspace(const WireSpace& space) {
  const Layout layout = compute_layout(space);
  std::string bytes;
  bytes.reserve(layout.space);
  Output out([&](const char* data, size_t n) {
    bytes.append(data, n);
    return true;
  });
  write_space(space, layout, out);
  return bytes;
}

bool write_xspace_file(const WireSpace& space, const std::string& path, std::string* error) {
  const Layout layout = compute_layout(space);
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  int write_errno = 0;
  Output out([&](const char* data, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd, data, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        write_errno = w < 0 ? errno : EIO;
        return false;
      }
      data += w;
      n -= size_t(w);
    }
    return true;
  });
  const bool written = write_space(space, layout, out);
  if (::close(fd) != 0 && written) write_errno = errno;
  if (!written || write_errno != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(write_errno != 0 ? write_errno : errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

}  // namespace mlprof::format
