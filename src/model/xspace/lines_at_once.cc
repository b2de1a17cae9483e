// The XSpace importer's work on several threads: the lines' events counted at once after the
// rest of the first pass, and decoded at once in the second, each line straight into its
// place in the columns, joined in the file's order so that the model is what one thread makes.
#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <thread>

#include "model/ordered_parallel.h"
#include "model/xspace/import_state.h"

namespace mlprof::model::xspace {

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

}  // namespace mlprof::model::xspace
