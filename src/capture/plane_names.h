// Interns the names of one plane while the exporter walks the records: event metadata per
// distinct bare name, stat metadata per stat name, and the stats that "name#k=v,...#"
// annotations carry (docs/ARCHITECTURE.md §3.3).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/xspace_encoder.h"

namespace mlprof::capture {

// What an event refers to: its metadata id and its stats (see WireEvent::stats).
struct EventName {
  uint32_t metadata_id = 0;
  uint32_t stats = 0;
};

class PlaneNames {
 public:
  // Appends metadata and stats to `plane`, which must outlive this object. Every string
  // passed in must stay valid until the plane is written (views are kept).
  explicit PlaneNames(format::WirePlane* plane);

  // A literal, recognised by its address; parsed once however many events use it.
  EventName literal(const char* name);
  // A name copied into the capture buffer; its stats belong to this one event.
  EventName copied(std::string_view encoded);
  // A StepTrace: step_num=<step> and _r=1.
  EventName step(const char* name, int64_t step);

  uint32_t stat_id(std::string_view name);

 private:
  EventName parse(std::string_view encoded);
  uint32_t event_id(std::string_view bare_name);
  uint32_t add_stat_list(uint32_t first);
  // `text`, or a repaired copy kept here when it is not UTF-8 (proto3 readers reject it).
  std::string_view valid_utf8_view(std::string_view text);
  struct Slot;
  Slot& slot_for(const char* name);

  format::WirePlane* plane_;
  // Open addressing on the pointer: the exporter looks a literal up for every event.
  struct Slot {
    const char* key = nullptr;
    EventName value;
  };
  std::vector<Slot> literals_;
  size_t num_literals_ = 0;
  std::unordered_map<std::string_view, uint32_t> event_ids_;
  std::unordered_map<std::string_view, uint32_t> stat_ids_;
  std::deque<std::string> repaired_;  // repaired UTF-8, decoded annotation text (a deque: views stay valid)
  uint32_t step_num_id_ = 0;
  uint32_t root_id_ = 0;
};

}  // namespace mlprof::capture
