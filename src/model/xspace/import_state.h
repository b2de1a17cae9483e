// The XSpace importer's state, shared by its two files: importer.cc (both passes, one line
// after another) and lines_at_once.cc (the lines counted and decoded on several threads).
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/protobuf_wire.h"
#include "format/utf8_text.h"
#include "format/xspace_schema.h"
#include "model/id_map.h"
#include "model/profile.h"
#include "model/xspace/mapped_file.h"

namespace mlprof::model::xspace {

namespace wire = format::wire;
using wire::field_of;
using wire::Reader;
using wire::type_of;

// The fields of xplane.proto, as the schema header names them (docs/ARCHITECTURE.md §3.1).
namespace xs = format::xspace;

// A name from the file as an error message quotes it: at most 80 bytes, control characters
// as '?', so that the message stays one line.
inline std::string quotable(std::string_view name) {
  std::string out(name.substr(0, 80));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

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
  int64_t recorded_rank(const Host& h) const;
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

// A line's events, counted without decoding them, and its timestamp.
struct LineCount {
  uint32_t events = 0;
  int64_t timestamp_ns = 0;
  bool ok = false;
};

// Counts a line's events without decoding them (importer.cc).
LineCount count_events(Reader in);

}  // namespace mlprof::model::xspace
