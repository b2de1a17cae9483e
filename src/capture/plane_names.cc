#include "capture/plane_names.h"

#include <cstring>

#include "format/annotation.h"
#include "format/xspace_schema.h"

namespace mlprof::capture {

PlaneNames::PlaneNames(format::WirePlane* plane) : plane_(plane), literals_(256) {}

uint32_t PlaneNames::event_id(std::string_view bare_name) {
  auto [it, added] = event_ids_.try_emplace(bare_name, 0);
  if (added) {
    it->second = uint32_t(plane_->event_metadata.size() + 1);  // 0 means "no metadata"
    plane_->event_metadata.push_back({int64_t(it->second), format::make_valid_utf8(bare_name), {}});
  }
  return it->second;
}

uint32_t PlaneNames::stat_id(std::string_view name) {
  auto [it, added] = stat_ids_.try_emplace(name, 0);
  if (added) {
    it->second = uint32_t(plane_->stat_metadata.size() + 1);
    plane_->stat_metadata.push_back({int64_t(it->second), format::make_valid_utf8(name), {}});
  }
  return it->second;
}

std::string_view PlaneNames::valid_utf8_view(std::string_view text) {
  if (format::is_valid_utf8(text)) return text;
  return repaired_.emplace_back(format::make_valid_utf8(text));
}

uint32_t PlaneNames::add_stat_list(uint32_t first) {
  const uint32_t count = uint32_t(plane_->stat_pool.size()) - first;
  if (count == 0) return 0;
  plane_->stat_lists.push_back({first, count});
  return uint32_t(plane_->stat_lists.size());
}

EventName PlaneNames::parse(std::string_view encoded) {
  if (encoded.find('#') == std::string_view::npos) return {event_id(encoded), 0};
  const format::ParsedAnnotation parsed = format::parse_annotation(encoded);
  // Quoted text that was decoded ends with `parsed`: the plane refers to a copy of it.
  auto lasting = [&](std::string_view text) -> std::string_view {
    const bool in_encoded = text.data() >= encoded.data() && text.data() + text.size() <= encoded.data() + encoded.size();
    return text.empty() || in_encoded ? text : std::string_view(repaired_.emplace_back(text));
  };
  EventName name{event_id(parsed.name), 0};
  const uint32_t first = uint32_t(plane_->stat_pool.size());
  for (const format::AnnotationArg& arg : parsed.args) {
    const int64_t id = stat_id(lasting(arg.key));
    plane_->stat_pool.push_back(std::visit(
        [&](auto v) {
          using T = decltype(v);
          if constexpr (std::is_same_v<T, int64_t>) return format::WireStat::of_int64(id, v);
          else if constexpr (std::is_same_v<T, uint64_t>) return format::WireStat::of_uint64(id, v);
          else if constexpr (std::is_same_v<T, double>) return format::WireStat::of_double(id, v);
          else return format::WireStat::of_string(id, valid_utf8_view(lasting(v)));
        },
        arg.value));
  }
  name.stats = add_stat_list(first);
  return name;
}

PlaneNames::Slot& PlaneNames::slot_for(const char* name) {
  // Fibonacci hashing: the top bits of the product spread nearby addresses.
  const size_t mask = literals_.size() - 1;
  size_t i = size_t((reinterpret_cast<uintptr_t>(name) * 0x9e3779b97f4a7c15ull) >> 40) & mask;
  while (literals_[i].key != nullptr && literals_[i].key != name) i = (i + 1) & mask;
  return literals_[i];
}

EventName PlaneNames::literal(const char* name) {
  if (Slot& slot = slot_for(name); slot.key == name) return slot.value;
  const EventName value = parse(name);
  if (2 * (num_literals_ + 1) > literals_.size()) {  // keep the table at most half full
    std::vector<Slot> old(literals_.size() * 2);
    old.swap(literals_);
    for (const Slot& slot : old) {
      if (slot.key != nullptr) slot_for(slot.key) = slot;
    }
  }
  slot_for(name) = Slot{name, value};
  ++num_literals_;
  return value;
}

EventName PlaneNames::copied(std::string_view encoded) { return parse(encoded); }

EventName PlaneNames::step(const char* name, int64_t step) {
  if (step_num_id_ == 0) {
    step_num_id_ = stat_id(format::xspace::kStatStepNum);
    root_id_ = stat_id(format::xspace::kStatIsRoot);
  }
  EventName event{literal(name).metadata_id, 0};
  const uint32_t first = uint32_t(plane_->stat_pool.size());
  plane_->stat_pool.push_back(format::WireStat::of_int64(step_num_id_, step));
  plane_->stat_pool.push_back(format::WireStat::of_int64(root_id_, 1));
  event.stats = add_stat_list(first);
  return event;
}

}  // namespace mlprof::capture
