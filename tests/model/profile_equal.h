// Whether two profiles hold the same model, field by field (strings by id and text): how the
// tests check that a parallel or differently inflated load gives what the plain one gives.
#pragma once

#include <gtest/gtest.h>

#include "model/profile.h"

namespace mlprof::testing {

inline bool same_stats(const model::StatTable& a, const model::StatTable& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const model::StatValue x = a.value(i), y = b.value(i);
    if (a.key(i) != b.key(i) || x.type != y.type || x.u64 != y.u64) return false;
  }
  return true;
}

inline void expect_same_profile(const model::Profile& a, const model::Profile& b) {
  EXPECT_EQ(a.run, b.run);
  EXPECT_EQ(a.origin_ns, b.origin_ns);
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (model::StringId s = 0; s < a.strings.size(); ++s) ASSERT_EQ(a.strings.view(s), b.strings.view(s)) << s;
  ASSERT_EQ(a.hosts.size(), b.hosts.size());
  for (size_t i = 0; i < a.hosts.size(); ++i) {
    const model::Host &x = a.hosts[i], &y = b.hosts[i];
    EXPECT_TRUE(x.name == y.name && x.hostname == y.hostname && x.first_plane == y.first_plane &&
                x.num_planes == y.num_planes) << "host " << i;
  }
  ASSERT_EQ(a.planes.size(), b.planes.size());
  for (size_t i = 0; i < a.planes.size(); ++i) {
    const model::Plane &x = a.planes[i], &y = b.planes[i];
    EXPECT_TRUE(x.name == y.name && x.id == y.id && x.kind == y.kind && x.device_type == y.device_type &&
                x.device_ordinal == y.device_ordinal && x.host == y.host && x.first_line == y.first_line &&
                x.num_lines == y.num_lines && x.stats.first == y.stats.first && x.stats.count == y.stats.count)
        << "plane " << i;
  }
  ASSERT_EQ(a.lines.size(), b.lines.size());
  for (size_t i = 0; i < a.lines.size(); ++i) {
    const model::Line &x = a.lines[i], &y = b.lines[i];
    EXPECT_TRUE(x.name == y.name && x.display_name == y.display_name && x.id == y.id && x.kind == y.kind &&
                x.plane == y.plane && x.first_event == y.first_event && x.num_events == y.num_events)
        << "line " << i;
  }
  ASSERT_EQ(a.names.size(), b.names.size());
  for (size_t i = 0; i < a.names.size(); ++i) {
    const model::EventName &x = a.names[i], &y = b.names[i];
    EXPECT_TRUE(x.name == y.name && x.display_name == y.display_name && x.stats.first == y.stats.first &&
                x.stats.count == y.stats.count) << "name " << i;
  }
  EXPECT_EQ(a.events.start_ps, b.events.start_ps);
  EXPECT_EQ(a.events.duration_ps, b.events.duration_ps);
  EXPECT_EQ(a.events.name, b.events.name);
  EXPECT_EQ(a.events.parent, b.events.parent);
  EXPECT_EQ(a.events.first_stat, b.events.first_stat);
  EXPECT_TRUE(same_stats(a.event_stats, b.event_stats));
  EXPECT_TRUE(same_stats(a.metadata_stats, b.metadata_stats));
  EXPECT_EQ(a.warnings, b.warnings);
  EXPECT_EQ(a.errors, b.errors);
}

}  // namespace mlprof::testing
