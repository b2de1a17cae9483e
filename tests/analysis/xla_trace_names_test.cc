// The trace of a TPU chip names its XLA ops and async ops by their HLO op ("copy-done.2"), the
// instruction's whole text going with each as `long_name`; its modules keep their names. Checked
// on XProf's TPU file against the raw "XLA Ops" and "Async XLA Ops" lines read here with
// libprotobuf's XSpace classes (the metadata's display_name and name), in mlprof's Chrome JSON.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/step_grouping.h"
#include "analysis/trace_viewer/trace_event_details.h"
#include "analysis/trace_viewer/trace_export.h"
#include "analysis/trace_viewer/trace_flows.h"
#include "format/chrome_trace_writer.h"
#include "format/trace_output_file.h"
#include "model/load_profile.h"
#include "xplane.pb.h"

namespace mlprof::analysis {
namespace {

namespace tp = tensorflow::profiler;
namespace fs = std::filesystem;

const std::string kTpuFile =
    std::string(MLPROF_TESTDATA) + "/wild/xprof/xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb";
constexpr const char* kDevice = "/device:TPU:0";

using Counts = std::map<std::pair<std::string, std::string>, uint64_t>;  // (line, name): events

// The raw events of the chip's op lines: by (line, display name), and each display name's text.
Counts raw_op_names(std::map<std::string, std::string>* text_of) {
  std::ifstream in(kTpuFile, std::ios::binary);
  tp::XSpace space;
  EXPECT_TRUE(space.ParseFromIstream(&in));
  Counts out;
  for (const tp::XPlane& plane : space.planes()) {
    if (plane.name() != kDevice) continue;
    for (const tp::XLine& line : plane.lines()) {
      if (line.name() != "XLA Ops" && line.name() != "Async XLA Ops" && line.name() != "XLA Modules") continue;
      for (const tp::XEvent& e : line.events()) {
        const tp::XEventMetadata& m = plane.event_metadata().at(e.metadata_id());
        // An op's text is "%copy-done.2 = f32[...] copy-done(...)": its HLO op is the name before
        // the first space, which XProf gives the ops line as display_name (the async line's is
        // only "async-copy").
        const bool op_line = line.name() != "XLA Modules";
        std::string shown = m.name();
        if (op_line) {
          shown = m.name().substr(0, m.name().find(' '));
          if (shown.starts_with('%')) shown.erase(0, 1);
          if (line.name() == "XLA Ops") EXPECT_EQ(shown, m.display_name());
        }
        ++out[{line.name(), shown}];
        if (shown != m.name()) (*text_of)[shown] = m.name();
      }
    }
  }
  return out;
}

TEST(XlaTraceNames, ChipOpsAreNamedByTheirHloOp) {
  if (!fs::exists(kTpuFile)) GTEST_SKIP() << kTpuFile << " not found (it is in ../shared/testdata)";
  std::map<std::string, std::string> text_of;
  const Counts raw = raw_op_names(&text_of);
  ASSERT_FALSE(text_of.empty()) << "no display names in the file";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({kTpuFile, "", ""}, &p, &error)) << error.problem;
  const std::string path = (fs::temp_directory_path() / "xla_trace_names_test.json").string();
  {
    format::TraceOutputFile out(path);
    ASSERT_TRUE(out.ok());
    format::ChromeTraceWriter writer(out);
    std::string problem;
    ASSERT_TRUE(write_trace(p, writer, &problem)) << problem;
  }
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  fs::remove(path);
  const nlohmann::json& events = trace.is_object() ? trace["traceEvents"] : trace;
  // The chip's process and its threads, by their names.
  int64_t pid = -1;
  std::map<int64_t, std::string> threads;
  for (const auto& e : events)
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name" && e["args"]["name"] == kDevice)
      pid = e["pid"].get<int64_t>();
  ASSERT_GE(pid, 0);
  for (const auto& e : events)
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name" && e["pid"] == pid)
      threads[e["tid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
  Counts seen;
  for (const auto& e : events) {
    if (e.value("ph", "") != "X" || e["pid"] != pid) continue;
    std::string line = threads[e["tid"].get<int64_t>()];
    if (auto cut = line.find(" (overlap "); cut != std::string::npos) line.resize(cut);
    const std::string name = e["name"].get<std::string>();
    ++seen[{line, name}];
    if (auto it = text_of.find(name); it != text_of.end() && line != "XLA Modules") {
      ASSERT_TRUE(e.contains("args") && e["args"].contains("long_name")) << name;
      EXPECT_EQ(e["args"]["long_name"], it->second);
    }
  }
  for (const auto& [key, count] : raw) {
    SCOPED_TRACE(key.first + " " + key.second);
    EXPECT_EQ(seen[key], count);
  }
  EXPECT_EQ(raw.count({"XLA Ops", "copy-done.2"}), 1u) << "the HLO op names expected in the file";
  EXPECT_EQ(raw.count({"Async XLA Ops", "copy-start.2"}), 1u);
}

// The trace viewer's details of an event (what the UI shows on a click) name it the same way:
// the HLO op as its name, the whole text as long_name; a module keeps its name.
TEST(XlaTraceNames, EventDetailsGiveTheHloOpAndItsText) {
  if (!fs::exists(kTpuFile)) GTEST_SKIP() << kTpuFile << " not found (it is in ../shared/testdata)";
  std::map<std::string, std::string> text_of;
  const Counts raw = raw_op_names(&text_of);
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({kTpuFile, "", ""}, &p, &error)) << error.problem;
  const StepGrouping steps = group_steps(p);
  const TraceFlows flows = find_trace_flows(p);
  Counts seen;
  for (const model::Plane& plane : p.planes) {
    if (p.strings.view(plane.name) != kDevice) continue;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
      const std::string line_name(p.strings.view(line.name));
      for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const nlohmann::ordered_json d = trace_event_details(p, steps, flows, e, 0);
        const std::string name = d["name"].get<std::string>();
        ++seen[{line_name, name}];
        if (auto it = text_of.find(name); it != text_of.end() && line_name != "XLA Modules")
          EXPECT_EQ(d.value("long_name", ""), it->second) << name;
        else
          EXPECT_FALSE(d.contains("long_name")) << name;
      }
    }
  }
  for (const auto& [key, count] : raw) {
    SCOPED_TRACE(key.first + " " + key.second);
    EXPECT_EQ(seen[key], count);
  }
}

}  // namespace
}  // namespace mlprof::analysis
