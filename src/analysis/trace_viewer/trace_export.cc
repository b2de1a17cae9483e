#include "analysis/trace_viewer/trace_export.h"

#include "analysis/hlo_ops.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/trace_viewer/trace_flows.h"
#include "analysis/trace_viewer/trace_lanes.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::Profile;

// Thread ids of extra lanes and of lines whose ids are not thread ids (device lines).
constexpr uint64_t kFirstSyntheticTid = uint64_t(1) << 30;

// A long text (a name, a stat's key or value) is written whole where it first appears; later
// uses write its start and a note. One value shared by every event (a stat of the events'
// metadata, a ref value) would otherwise be written once per event: a 100 MB stat on each of a
// million events makes a file of 100 TB from one of 100 MB. The output stays within a small
// multiple of the input.
class LongTextOnce {
 public:
  explicit LongTextOnce(const Profile& p) : p_(p) {}

  std::string_view text(model::StringId id) {
    const std::string_view whole = p_.strings.view(id);
    if (whole.size() <= kLongTextBytes) return whole;
    auto [it, first_use] = cut_.try_emplace(id);
    if (first_use) {
      // The cut text for later uses: a whole character's start, then the note.
      size_t keep = kKeptBytes;
      while (keep > 0 && (static_cast<unsigned char>(whole[keep]) & 0xC0) == 0x80) --keep;
      it->second = std::string(whole.substr(0, keep)) + "… [" + std::to_string(whole.size()) +
                   " bytes; written whole where this text first appears in the trace]";
      return whole;
    }
    return it->second;
  }

 private:
  static constexpr size_t kLongTextBytes = 1024;
  static constexpr size_t kKeptBytes = 64;
  const Profile& p_;
  std::unordered_map<model::StringId, std::string> cut_;
};

void append_stats(const Profile& p, const model::StatTable& table, model::StatRange range,
                  std::vector<format::TraceArg>& args, LongTextOnce& texts) {
  for (uint32_t s = range.first; s < range.first + range.count; ++s) {
    format::TraceArg a;
    a.key = texts.text(table.key(s));
    const model::StatValue v = table.value(s);
    switch (v.type) {
      case model::StatType::kInt64: a.type = format::TraceArg::Type::kInt, a.int_value = v.i64; break;
      case model::StatType::kUint64: a.type = format::TraceArg::Type::kUint, a.uint_value = v.u64; break;
      case model::StatType::kDouble: a.type = format::TraceArg::Type::kDouble, a.double_value = v.f64; break;
      case model::StatType::kString: a.type = format::TraceArg::Type::kString, a.string_value = texts.text(v.str); break;
    }
    args.push_back(a);
  }
}

std::string process_name(const Profile& p, const model::Plane& plane) {
  std::string name(p.strings.view(plane.name));
  if (p.hosts.size() > 1) name = std::string(p.strings.view(p.hosts[plane.host].name)) + " " + name;
  return name;
}

}  // namespace

bool write_trace(const Profile& p, format::TraceWriter& writer, std::string* error) {
  const TraceFlows flows = find_trace_flows(p);
  std::vector<format::TraceArg> args;
  std::vector<uint64_t> out_ids, in_ids;
  LongTextOnce texts(p);
  for (uint32_t pl = 0; pl < p.planes.size(); ++pl) {
    const model::Plane& plane = p.planes[pl];
    const std::string pname = process_name(p, plane);
    std::unordered_set<uint64_t> used_tids;
    uint64_t next_synthetic = kFirstSyntheticTid;
    int32_t sort_index = 0;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
      if (line.num_events == 0) continue;
      const LinePlacement placement = place_line_events(p, l);
      const std::string line_name(p.strings.view(line.display_name != model::kEmptyString ? line.display_name : line.name));
      for (uint16_t lane = 0; lane < placement.num_lanes; ++lane) {
        format::TraceTrack track;
        track.pid = pl + 1;
        track.process_name = pname;
        const bool thread_id = plane.kind == model::PlaneKind::kHostThreads && lane == 0 && line.id > 0 &&
                               uint64_t(line.id) < kFirstSyntheticTid && !used_tids.count(uint64_t(line.id));
        track.tid = thread_id ? uint64_t(line.id) : next_synthetic++;
        used_tids.insert(track.tid);
        const std::string name = lane == 0 ? line_name : line_name + " (overlap " + std::to_string(lane) + ")";
        track.thread_name = name;
        track.sort_index = sort_index++;
        writer.begin_track(track);
        for (uint32_t i = 0; i < line.num_events; ++i) {
          if (placement.lane[i] != lane) continue;
          const EventIndex e = line.first_event + i;
          args.clear();
          append_stats(p, p.event_stats, p.event_stat_range(e), args, texts);
          append_stats(p, p.metadata_stats, p.names[p.events.name[e]].stats, args, texts);
          out_ids.clear();
          in_ids.clear();
          for (const TraceFlow& f : flows.starting_at(e)) out_ids.push_back(uint64_t(&f - flows.flows.data()) + 1);
          for (uint32_t f : flows.ending_at(e)) in_ids.push_back(uint64_t(f) + 1);
          // An HLO op's name names the event; its whole text goes with it (hlo_ops.h).
          const std::string_view title = timeline_title(p, line, e);
          if (title.size() != p.name(e).size()) {
            format::TraceArg whole;
            whole.key = "long_name";
            whole.type = format::TraceArg::Type::kString;
            whole.string_value = texts.text(p.name_id(e));
            args.push_back(whole);
          }
          writer.event({p.start_ps(e), p.duration_ps(e),
                        title.size() != p.name(e).size() ? title : texts.text(p.name_id(e)), args, out_ids, in_ids});
        }
      }
    }
  }
  return writer.finish(error);
}

}  // namespace mlprof::analysis
