// Time-shifted copies of a real PyTorch trace, for the ingest benchmarks: the k-th copy of its
// events k × shift later, inside one trace with the original's device properties and
// distributed info.
#pragma once

#include <simdjson.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string>

#include "model/load_profile.h"
#include "model/pytorch/trace_file.h"
#include "model/pytorch/number.h"
#include "model/pytorch/trace_tokenizer.h"

namespace mlprof::bench {

namespace kineto = mlprof::model::kineto;
namespace od = simdjson::ondemand;

// Writes the trace's events `copies` times, the k-th copy `k × shift_us` later, inside one
// trace with the original's device properties and distributed info.
class CopyWriter final : public kineto::TraceJsonVisitor {
 public:
  CopyWriter(std::FILE* out, int64_t shift_ns, int first = 0) : out_(out), shift_ns_(shift_ns), first_copy_(first) {}

  bool wants(std::string_view key) const override {
    return key == "deviceProperties" || key == "distributedInfo" || key == "baseTimeNanoseconds";
  }
  bool top_level_value(std::string_view key, const kineto::PaddedJson& value, std::string*) override {
    if (copy_ == first_copy_) header_ += ",\n  \"" + std::string(key) + "\": " + std::string(value.data, value.size);
    return true;
  }
  bool event_batch(const kineto::PaddedJson& batch, std::string* error) override {
    od::document doc;
    od::array events;
    if (parser_.iterate(batch.data, batch.size, batch.capacity).get(doc) || doc.get_array().get(events)) {
      *error = "cannot parse the source trace";
      return false;
    }
    for (auto item : events) {
      od::object event;
      std::string_view text, ts;
      if (item.get_object().get(event) || event.raw_json().get(text)) return false;
      // raw_json() consumed the object: find "ts" in its text again.
      const size_t at = text.find("\"ts\":");
      std::fputs(first_ ? "\n    " : ",\n    ", out_);
      first_ = false;
      int64_t ns = 0;
      size_t begin = at == std::string_view::npos ? 0 : text.find_first_not_of(' ', at + 5), end = begin;
      while (end < text.size() && text[end] != ',' && text[end] != '}') ++end;
      if (at == std::string_view::npos || !kineto::parse_fixed(text.substr(begin, end - begin), 3, &ns)) {
        std::fwrite(text.data(), 1, text.size(), out_);
        continue;
      }
      ns += shift_ns_ * copy_;
      std::fwrite(text.data(), 1, begin, out_);
      // As the source writes it: whole microseconds as integers.
      if (ns % 1000 == 0) std::fprintf(out_, "%" PRId64, ns / 1000);
      else std::fprintf(out_, "%" PRId64 ".%03d", ns / 1000, int(ns % 1000));
      std::fwrite(text.data() + end, 1, text.size() - end, out_);
    }
    return true;
  }

  void next_copy() { ++copy_; }
  const std::string& header() const { return header_; }

 private:
  std::FILE* out_;
  int64_t shift_ns_;
  int first_copy_ = 0;
  int copy_ = first_copy_;
  bool first_ = true;
  std::string header_;
  od::parser parser_;
};

// Writes copies [first, first + copies) of `source` into `path` (kept when already there).
inline bool write_copies(const std::filesystem::path& source, const std::filesystem::path& path, int copies,
                         int64_t shift_ns, int first = 0) {
  namespace fs = std::filesystem;
  if (fs::exists(path)) return true;
  const fs::path partial = path.string() + ".partial";
  std::FILE* out = std::fopen(partial.c_str(), "w");
  if (out == nullptr) return false;
  std::fputs("{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [", out);
  CopyWriter writer(out, shift_ns, first);
  for (int k = 0; k < copies; ++k, writer.next_copy()) {
    kineto::JsonSource text;
    std::string error;
    if (!text.open_file(source, &error) || !kineto::walk_trace_json(text, writer, {}, &error)) {
      std::fprintf(stderr, "%s: %s\n", source.c_str(), error.c_str());
      std::fclose(out);
      return false;
    }
  }
  std::fprintf(out, "\n  ]%s\n}\n", writer.header().c_str());
  const bool ok = std::fclose(out) == 0;
  return ok && (fs::rename(partial, path), true);
}

// The benches over copies of one trace: the copies written once under `folder` (a bench's own,
// in the build tree). Empty, with a line on stdout, when the trace is absent (`*skipped` set:
// the bench skips), or when they cannot be written.
inline std::filesystem::path copies_of(const char* bench, const std::filesystem::path& source,
                                       const std::filesystem::path& folder, int copies, int64_t shift_ns,
                                       bool* skipped) {
  namespace fs = std::filesystem;
  *skipped = !fs::exists(source);
  if (*skipped) {
    std::printf("%s: skipped, %s not found (needs ../shared/testdata)\n", bench, source.c_str());
    return {};
  }
  fs::create_directories(folder);
  const fs::path path = folder / ("df_index_x" + std::to_string(copies) + ".pt.trace.json");
  return write_copies(source, path, copies, shift_ns) ? path : fs::path();
}

// Loads them, or says why not on stderr.
inline bool load_copies(const char* bench, const std::filesystem::path& path, model::Profile* profile) {
  model::LoadError error;
  if (model::load_profile({path.string(), "", ""}, profile, &error)) return true;
  std::fprintf(stderr, "%s: %s: %s\n", bench, error.path.c_str(), error.problem.c_str());
  return false;
}

}  // namespace mlprof::bench
