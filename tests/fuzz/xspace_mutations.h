// Structured mutations of an XSpace file: what damaged or hostile writers produce and byte-level
// fuzzing rarely reaches through protobuf's framing. A name cut in the middle of a character or
// holding stray bytes, an event offset or duration at the edge of 64 bits, a huge string shared
// by every event (a stat name, a metadata stat), a bytes stat of binary. Used by the
// xspace_importer fuzzer's custom mutator and by the seeded sweep in make test.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "xplane.pb.h"

namespace mlprof::fuzz {

// Applies one to three mutations to `bytes` when they parse as an XSpace with events; false
// (and `bytes` unchanged) when they do not or the result would exceed `max_size`.
inline bool mutate_xspace(std::string& bytes, std::mt19937_64& rng, size_t max_size) {
  tensorflow::profiler::XSpace space;
  if (!space.ParseFromString(bytes) || space.planes_size() == 0) return false;
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  auto bad_text = [&](std::string s) {
    static const char* kBad[] = {"\xE2\x82", "\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80"};
    const std::string bad = kBad[pick(6)];
    s.insert(s.empty() ? 0 : pick(s.size() + 1), bad);
    return s;
  };
  const int mutations = 1 + int(pick(3));
  for (int m = 0; m < mutations; ++m) {
    auto& plane = *space.mutable_planes(int(pick(size_t(space.planes_size()))));
    switch (pick(6)) {
      case 0:  // a name with bytes that are not UTF-8
        if (plane.event_metadata().empty()) break;
        {
          auto it = plane.mutable_event_metadata()->begin();
          std::advance(it, long(pick(plane.event_metadata().size())));
          it->second.set_name(bad_text(it->second.name()));
        }
        break;
      case 1:  // a line or plane name the same way
        if (plane.lines_size() > 0) {
          auto& line = *plane.mutable_lines(int(pick(size_t(plane.lines_size()))));
          line.set_name(bad_text(line.name()));
        } else {
          plane.set_name(bad_text(plane.name()));
        }
        break;
      case 2:  // an event's time at the edge of 64 bits
      {
        if (plane.lines_size() == 0) break;
        auto& line = *plane.mutable_lines(int(pick(size_t(plane.lines_size()))));
        if (line.events_size() == 0) break;
        auto& event = *line.mutable_events(int(pick(size_t(line.events_size()))));
        static const uint64_t kEdges[] = {uint64_t(INT64_MAX), uint64_t(INT64_MAX) - 1000, UINT64_MAX,
                                          (uint64_t(1) << 56) + 1, uint64_t(1) << 63, (uint64_t(1) << 62) + 7};
        if (pick(2) == 0) event.set_duration_ps(int64_t(kEdges[pick(6)]));
        else event.set_offset_ps(int64_t(kEdges[pick(6)]));
        break;
      }
      case 3:  // a huge stat name, shared by every event that has the stat
      {
        if (plane.stat_metadata().empty()) break;
        auto it = plane.mutable_stat_metadata()->begin();
        std::advance(it, long(pick(plane.stat_metadata().size())));
        const size_t room = max_size > bytes.size() ? max_size - bytes.size() : 0;
        it->second.set_name(std::string(std::min<size_t>(room / 2, size_t(1) << (10 + pick(11))), 'n'));
        break;
      }
      case 4:  // a binary bytes stat on an event
      case 5: {
        if (plane.lines_size() == 0) break;
        auto& line = *plane.mutable_lines(int(pick(size_t(plane.lines_size()))));
        if (line.events_size() == 0 || plane.stat_metadata().empty()) break;
        auto& event = *line.mutable_events(int(pick(size_t(line.events_size()))));
        auto* stat = event.add_stats();
        stat->set_metadata_id(plane.stat_metadata().begin()->first);
        std::string binary(1 + pick(64), '\0');
        for (char& c : binary) c = char(rng());
        if (pick(2) == 0) stat->set_bytes_value(binary);
        else stat->set_str_value(bad_text("value"));
        break;
      }
    }
  }
  std::string out;
  if (!space.SerializeToString(&out) || out.size() > max_size) return false;
  bytes.swap(out);
  return true;
}

}  // namespace mlprof::fuzz
