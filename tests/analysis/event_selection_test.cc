// A window's selection of events (event_selection.h) walked with each event's slot: the slots
// given without a look-up agree with the look-up, and with the numbering worked out by hand.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "analysis/critical_path/event_selection.h"
#include "model/profile.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;

// Three lines: events [0, 5), none, [5, 11). Selected: 1, then 3 and 4 (line 0, two runs),
// and 7, 8, 9 (line 2): slots 0 to 5 in that order.
struct Selected {
  model::Profile p;
  EventSelection s;
  Selected() {
    p.lines.resize(3);
    p.lines[0].first_event = 0, p.lines[0].num_events = 5;
    p.lines[1].first_event = 5, p.lines[1].num_events = 0;
    p.lines[2].first_event = 5, p.lines[2].num_events = 6;
    s = EventSelection(p);
    s.add(0, 1, 1);
    s.add(0, 3, 2);
    s.add(2, 7, 3);
    s.finish();
  }
};

TEST(EventSelection, LinesWalkedWithTheirSlots) {
  const Selected sel;
  std::vector<std::pair<EventIndex, uint32_t>> line0, line1, line2;
  sel.s.for_each_slot_in_line(0, [&](EventIndex e, uint32_t slot) { line0.emplace_back(e, slot); });
  sel.s.for_each_slot_in_line(1, [&](EventIndex e, uint32_t slot) { line1.emplace_back(e, slot); });
  sel.s.for_each_slot_in_line(2, [&](EventIndex e, uint32_t slot) { line2.emplace_back(e, slot); });
  EXPECT_EQ(line0, (std::vector<std::pair<EventIndex, uint32_t>>{{1, 0}, {3, 1}, {4, 2}}));
  EXPECT_TRUE(line1.empty());
  EXPECT_EQ(line2, (std::vector<std::pair<EventIndex, uint32_t>>{{7, 3}, {8, 4}, {9, 5}}));
  for (const auto& [e, slot] : line0) EXPECT_EQ(sel.s.slot(e), slot);
  for (const auto& [e, slot] : line2) EXPECT_EQ(sel.s.slot(e), slot);
}

TEST(EventSelection, FirstAndCountOfALine) {
  const Selected sel;
  EXPECT_EQ(sel.s.first_in_line(0), 1u);
  EXPECT_EQ(sel.s.first_in_line(1), model::kNone);
  EXPECT_EQ(sel.s.first_in_line(2), 7u);
  EXPECT_EQ(sel.s.count_in_line(0), 3u);
  EXPECT_EQ(sel.s.count_in_line(1), 0u);
  EXPECT_EQ(sel.s.count_in_line(2), 3u);
}

TEST(EventSelection, EachEventWithTheFirstOfItsRun) {
  const Selected sel;
  std::vector<std::tuple<EventIndex, uint32_t, EventIndex>> all;
  sel.s.for_each_with_run([&](EventIndex e, uint32_t slot, EventIndex first) { all.emplace_back(e, slot, first); });
  EXPECT_EQ(all, (std::vector<std::tuple<EventIndex, uint32_t, EventIndex>>{
                     {1, 0, 1}, {3, 1, 3}, {4, 2, 3}, {7, 3, 7}, {8, 4, 7}, {9, 5, 7}}));
  // An earlier event of the same run has its slot from the later one's.
  for (const auto& [e, slot, first] : all)
    for (EventIndex before = first; before <= e; ++before) EXPECT_EQ(sel.s.slot(before), slot - (e - before));
  EXPECT_EQ(sel.s.slot(2), kNoSlot);  // between two runs of line 0
}

}  // namespace
}  // namespace mlprof::analysis
