// Builds XSpace files for tests with the generated protobuf classes, so that tests of the
// model and the analysis do not depend on the capture SDK.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>
#include <variant>
#include <vector>

#include "xplane.pb.h"

namespace mlprof::testing {

using StatArg = std::pair<std::string, std::variant<int64_t, uint64_t, double, std::string>>;

class PlaneBuilder {
 public:
  explicit PlaneBuilder(tensorflow::profiler::XPlane* plane) : plane_(plane) {}

  int64_t event_metadata(const std::string& name) {
    auto it = event_ids_.find(name);
    if (it != event_ids_.end()) return it->second;
    const int64_t id = int64_t(event_ids_.size()) + 1;
    auto& m = (*plane_->mutable_event_metadata())[id];
    m.set_id(id);
    m.set_name(name);
    event_ids_[name] = id;
    return id;
  }
  int64_t stat_metadata(const std::string& name) {
    auto it = stat_ids_.find(name);
    if (it != stat_ids_.end()) return it->second;
    const int64_t id = int64_t(stat_ids_.size()) + 1000;
    auto& m = (*plane_->mutable_stat_metadata())[id];
    m.set_id(id);
    m.set_name(name);
    stat_ids_[name] = id;
    return id;
  }
  tensorflow::profiler::XLine* line(int64_t id, const std::string& name, int64_t timestamp_ns) {
    auto* l = plane_->add_lines();
    l->set_id(id);
    l->set_name(name);
    l->set_timestamp_ns(timestamp_ns);
    return l;
  }
  // An event at `start_ps` from the line's timestamp lasting `duration_ps`.
  tensorflow::profiler::XEvent* event(tensorflow::profiler::XLine* line, const std::string& name,
                                      int64_t start_ps, int64_t duration_ps,
                                      const std::vector<StatArg>& stats = {}) {
    auto* e = line->add_events();
    e->set_metadata_id(event_metadata(name));
    e->set_offset_ps(start_ps);
    e->set_duration_ps(duration_ps);
    for (const auto& [key, value] : stats) add_stat(e->add_stats(), key, value);
    return e;
  }
  void plane_stat(const std::string& key, const StatArg::second_type& value) {
    add_stat(plane_->add_stats(), key, value);
  }
  tensorflow::profiler::XPlane* plane() { return plane_; }

 private:
  void add_stat(tensorflow::profiler::XStat* s, const std::string& key, const StatArg::second_type& value) {
    s->set_metadata_id(stat_metadata(key));
    if (auto* i = std::get_if<int64_t>(&value)) s->set_int64_value(*i);
    else if (auto* u = std::get_if<uint64_t>(&value)) s->set_uint64_value(*u);
    else if (auto* d = std::get_if<double>(&value)) s->set_double_value(*d);
    else s->set_str_value(std::get<std::string>(value));
  }

  tensorflow::profiler::XPlane* plane_;
  std::map<std::string, int64_t> event_ids_;
  std::map<std::string, int64_t> stat_ids_;
};

inline PlaneBuilder add_plane(tensorflow::profiler::XSpace* space, int64_t id, const std::string& name) {
  auto* p = space->add_planes();
  p->set_id(id);
  p->set_name(name);
  return PlaneBuilder(p);
}

// A fresh directory under the system temp folder, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mlprof_test_XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void write_file(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

inline void write_xspace(const std::string& path, const tensorflow::profiler::XSpace& space) {
  write_file(path, space.SerializeAsString());
}

constexpr int64_t kPsPerMs = 1000000000;
constexpr int64_t kPsPerUs = 1000000;

}  // namespace mlprof::testing
