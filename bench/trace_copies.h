// Time-shifted copies of a real PyTorch trace, for the ingest benchmarks: the k-th copy of its
// events k × shift later, inside one trace with the original's device properties and
// distributed info. Each copy's steps, correlation ids and flows are numbered after the copy
// before's, as a longer run of the same program records them (with the numbers repeated, the
// copies' steps and launches could not be told apart).
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
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
    if (copy_ == first_copy_) count_steps(std::string_view(batch.data, batch.size));
    od::document doc;
    od::array events;
    if (parser_.iterate(batch.data, batch.size, batch.capacity).get(doc) || doc.get_array().get(events)) {
      *error = "cannot parse the source trace";
      return false;
    }
    for (auto item : events) {
      od::object event;
      std::string_view raw, ts;
      if (item.get_object().get(event) || event.raw_json().get(raw)) return false;
      const std::string renumbered = renumber(raw);
      const std::string_view text = renumbered;
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
  static constexpr std::string_view kStep = "\"ProfilerStep#";
  static constexpr int64_t kIdsPerCopy = 10'000'000;  // above any id a trace of this size holds

  // The source's step numbers, from the first copy's text.
  void count_steps(std::string_view text) {
    for (size_t at = text.find(kStep); at != std::string_view::npos; at = text.find(kStep, at + 1)) {
      int64_t n = 0;
      size_t i = at + kStep.size();
      if (i >= text.size() || unsigned(text[i] - '0') >= 10) continue;
      for (; i < text.size() && unsigned(text[i] - '0') < 10; ++i) n = n * 10 + (text[i] - '0');
      first_step_ = std::min(first_step_, n);
      last_step_ = std::max(last_step_, n);
    }
  }

  // Adds `add` to the integer after `key` (a quoted key with its colon) wherever it is.
  static void add_to_numbers(std::string& text, std::string_view key, int64_t add) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
      size_t begin = text.find_first_not_of(' ', at + key.size()), end = begin;
      while (end < text.size() && unsigned(text[end] - '0') < 10) ++end;
      if (begin == std::string::npos || end == begin) continue;
      const std::string n = std::to_string(std::stoll(text.substr(begin, end - begin)) + add);
      text.replace(begin, end - begin, n);
    }
  }

  // The event as the copy numbers it: ids after the copy before's in the file, steps after its last.
  std::string renumber(std::string_view raw) const {
    std::string text(raw);
    const int64_t copy = copy_ - first_copy_;  // in this file (a rank's file holds one copy)
    if (copy == 0) return text;
    add_to_numbers(text, "\"correlation\":", copy * kIdsPerCopy);
    add_to_numbers(text, "\"External id\":", copy * kIdsPerCopy);
    const bool flow = text.find("\"ph\": \"s\"") != std::string::npos || text.find("\"ph\": \"f\"") != std::string::npos ||
                      text.find("\"ph\":\"s\"") != std::string::npos || text.find("\"ph\":\"f\"") != std::string::npos;
    if (flow) add_to_numbers(text, "\"id\":", copy * kIdsPerCopy);
    if (last_step_ >= first_step_) {
      const std::string step_key(kStep);
      for (size_t at = text.find(step_key); at != std::string::npos; at = text.find(step_key, at + 1)) {
        size_t begin = at + step_key.size(), end = begin;
        while (end < text.size() && unsigned(text[end] - '0') < 10) ++end;
        if (end == begin) continue;
        const int64_t n = std::stoll(text.substr(begin, end - begin)) + copy * (last_step_ - first_step_ + 1);
        text.replace(begin, end - begin, std::to_string(n));
      }
    }
    return text;
  }

  std::FILE* out_;
  int64_t shift_ns_;
  int first_copy_ = 0;
  int copy_ = first_copy_;
  bool first_ = true;
  int64_t first_step_ = INT64_MAX, last_step_ = INT64_MIN;
  std::string header_;
  od::parser parser_;
};

// The file of `copies` copies in a bench's folder (named anew when what the copies hold changes,
// since a file already there is kept).
inline std::string copies_file_name(int copies) { return "df_index_steps_x" + std::to_string(copies) + ".pt.trace.json"; }

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
  const fs::path path = folder / copies_file_name(copies);
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
