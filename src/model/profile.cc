#include "model/profile.h"

#include <algorithm>

namespace mlprof::model {

int64_t StatValue::as_int() const {
  switch (type) {
    case StatType::kInt64: return i64;
    case StatType::kUint64: return int64_t(u64);
    case StatType::kDouble: return int64_t(f64);
    case StatType::kString: return 0;
  }
  return 0;
}

uint64_t StatValue::as_uint() const {
  switch (type) {
    case StatType::kInt64: return uint64_t(i64);
    case StatType::kUint64: return u64;
    case StatType::kDouble: return f64 > 0 ? uint64_t(f64) : 0;
    case StatType::kString: return 0;
  }
  return 0;
}

double StatValue::as_double() const {
  switch (type) {
    case StatType::kInt64: return double(i64);
    case StatType::kUint64: return double(u64);
    case StatType::kDouble: return f64;
    case StatType::kString: return 0;
  }
  return 0;
}

void StatTable::reserve(size_t n) {
  while (blocks_.size() * kBlockSize < n) blocks_.push_back(std::make_unique<Block>());
}

void StatTable::add_block() { blocks_.push_back(std::make_unique<Block>()); }

void StatTable::truncate(size_t n) {
  if (n >= size_) return;
  size_ = n;
  blocks_.resize((n + kBlockSize - 1) / kBlockSize);
}

void EventColumns::reserve(size_t n) {
  start_ps.reserve(n);
  duration_ps.reserve(n);
  name.reserve(n);
  parent.reserve(n);
  first_stat.reserve(n + 1);
}

size_t EventColumns::bytes_used() const {
  return start_ps.capacity() * sizeof(int64_t) + duration_ps.capacity() * sizeof(int64_t) +
         name.capacity() * sizeof(NameIndex) + parent.capacity() * sizeof(EventIndex) + first_stat.capacity() * sizeof(uint32_t);
}

Profile::Profile() { events.first_stat.push_back(0); }

std::optional<StatValue> Profile::stat(EventIndex e, StringId key) const {
  for (uint32_t i = events.first_stat[e], end = events.first_stat[e + 1]; i < end; ++i)
    if (event_stats.key(i) == key) return event_stats.value(i);
  const StatRange named = names[events.name[e]].stats;
  for (uint32_t i = named.first, end = named.first + named.count; i < end; ++i)
    if (metadata_stats.key(i) == key) return metadata_stats.value(i);
  return std::nullopt;
}

uint32_t Profile::line_index(EventIndex e) const {
  // The first line starting past e; the one before it holds e (an empty line starts where the
  // next begins, so it is never that one).
  const auto after = std::upper_bound(lines.begin(), lines.end(), e,
                                      [](EventIndex event, const Line& l) { return event < l.first_event; });
  return uint32_t(after - lines.begin()) - 1;
}

std::optional<StatValue> Profile::plane_stat(uint32_t plane, StringId key) const {
  const StatRange r = planes[plane].stats;
  for (uint32_t i = r.first, end = r.first + r.count; i < end; ++i)
    if (metadata_stats.key(i) == key) return metadata_stats.value(i);
  return std::nullopt;
}

size_t Profile::bytes_used() const {
  return strings.bytes_used() + hosts.capacity() * sizeof(Host) + planes.capacity() * sizeof(Plane) +
         lines.capacity() * sizeof(Line) + names.capacity() * sizeof(EventName) +
         events.bytes_used() + event_stats.bytes_used() + metadata_stats.bytes_used();
}

}  // namespace mlprof::model
