// Helpers for the PyTorch importer tests: gzip in memory, lookups by name, and the event
// categories of a trace as the model shows them (to compare with counts taken from the JSON).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>

#include "model/gzip_bytes.h"
#include "model/profile.h"

namespace mlprof::testing {

inline model::EventIndex find_event(const model::Profile& p, std::string_view name, size_t nth = 0) {
  for (model::EventIndex e = 0; e < p.num_events(); ++e)
    if (p.name(e) == name && nth-- == 0) return e;
  ADD_FAILURE() << "no event " << name;
  return 0;
}

inline bool has_event(const model::Profile& p, std::string_view name) {
  for (model::EventIndex e = 0; e < p.num_events(); ++e)
    if (p.name(e) == name) return true;
  return false;
}

inline std::string stat_text(const model::Profile& p, model::EventIndex e, std::string_view key) {
  const model::StringId id = p.strings.find(key);
  if (id == model::kNoString) return "<no such stat name>";
  auto v = p.stat(e, id);
  if (!v) return "<absent>";
  return v->type == model::StatType::kString ? std::string(p.string_of(*v)) : std::to_string(v->as_int());
}

inline const model::Line* find_line(const model::Profile& p, std::string_view name) {
  for (const auto& line : p.lines)
    if (p.strings.view(line.name) == name) return &line;
  return nullptr;
}

// Event counts by what the trace called them, read back from the model alone.
struct CategoryCounts {
  size_t host_ops = 0;     // cpu_op, user_annotation and other host slices and instants
  size_t runtime = 0;      // cuda_runtime and cuda_driver (they carry a correlation id)
  size_t kernels = 0, memcpys = 0, memsets = 0;
  size_t gpu_annotations = 0, syncs = 0;
  size_t memory = 0;       // [memory]
  size_t python = 0;

  bool operator==(const CategoryCounts&) const = default;
  friend std::ostream& operator<<(std::ostream& os, const CategoryCounts& c) {
    return os << "{host_ops " << c.host_ops << ", runtime " << c.runtime << ", kernels " << c.kernels << ", memcpys "
              << c.memcpys << ", memsets " << c.memsets << ", gpu_annotations " << c.gpu_annotations << ", syncs "
              << c.syncs << ", memory " << c.memory << ", python " << c.python << "}";
  }
};

inline CategoryCounts count_categories(const model::Profile& p) {
  CategoryCounts c;
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    const model::Line& line = p.line_of(e);
    const model::Plane& plane = p.planes[line.plane];
    const std::string_view name = p.name(e);
    if (plane.kind == model::PlaneKind::kDevice) {
      if (line.kind == model::LineKind::kStream) {
        if (name.starts_with("Memcpy")) ++c.memcpys;
        else if (name.starts_with("Memset")) ++c.memsets;
        else ++c.kernels;
      } else if (line.kind == model::LineKind::kNameScope) {
        ++c.gpu_annotations;
      } else {
        ++c.syncs;
      }
    } else if (plane.kind == model::PlaneKind::kHostThreads) {
      if (name == "MemoryAllocation" || name == "MemoryDeallocation") ++c.memory;
      else if (p.stat(e, model::kCorrelationId)) ++c.runtime;
      else ++c.host_ops;
    } else {
      ++c.python;
    }
  }
  return c;
}

}  // namespace mlprof::testing
