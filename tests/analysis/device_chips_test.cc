// One row per chip (device_chips.h) and the TPU as its file tells it (run_environment.h), on
// XProf's TPU file (JAX on a TPU v6e: four chips and the host), every figure checked against the
// raw planes read here with libprotobuf's XSpace classes, not with mlprof's reader: the "XLA
// Modules" runs, the "XLA Ops" device times by `hlo_category`, `core_details` and the peaks.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <google/protobuf/unknown_field_set.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/analyzed_profile.h"
#include "analysis/device_chips.h"
#include "analysis/run_environment.h"
#include "analysis/tool_registry.h"
#include "format/xspace_schema.h"
#include "model/load_profile.h"
#include "model/xspace/importer.h"
#include "model/xspace_builder.h"
#include "xplane.pb.h"

namespace mlprof::analysis {
namespace {

namespace tp = tensorflow::profiler;

const std::string kTpuFile =
    std::string(MLPROF_TESTDATA) + "/wild/xprof/xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb";

// What the raw file says of one TPU plane.
struct RawPlane {
  int64_t global_chip_id = -1;  // core_details (op_stats.proto's CoreDetails) field 5
  std::string device_type;
  double peak_tflops = 0, peak_hbm_gbps = 0;
  std::map<std::string, std::pair<uint64_t, double>> module_runs;  // name: runs, summed ps
  double busy_ps = 0, collective_ps = 0, async_copy_ps = 0;
};

std::map<std::string, RawPlane> raw_planes() {
  std::ifstream in(kTpuFile, std::ios::binary);
  tp::XSpace space;
  EXPECT_TRUE(space.ParseFromIstream(&in));
  std::map<std::string, RawPlane> out;
  for (const tp::XPlane& plane : space.planes()) {
    if (!plane.name().starts_with("/device:TPU:")) continue;
    RawPlane& raw = out[plane.name()];
    std::map<int64_t, std::string> stat_names;
    for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = m.name();
    for (const tp::XStat& s : plane.stats()) {
      const std::string& name = stat_names[s.metadata_id()];
      if (name == "device_type_string") raw.device_type = s.str_value();
      if (name == "peak_teraflops_per_second") raw.peak_tflops = s.double_value();
      if (name == "peak_hbm_bw_gigabytes_per_second") raw.peak_hbm_gbps = s.double_value();
      if (name == "core_details") {
        google::protobuf::UnknownFieldSet details;
        EXPECT_TRUE(details.ParseFromString(s.bytes_value()));
        raw.global_chip_id = 0;
        for (int i = 0; i < details.field_count(); ++i)
          if (details.field(i).number() == 5) raw.global_chip_id = int64_t(details.field(i).varint());
      }
    }
    for (const tp::XLine& line : plane.lines()) {
      for (const tp::XEvent& e : line.events()) {
        const tp::XEventMetadata& m = plane.event_metadata().at(e.metadata_id());
        if (line.name() == "XLA Modules") {
          auto& [runs, ps] = raw.module_runs[m.name()];
          ++runs;
          ps += double(e.duration_ps());
        }
        if (line.name() != "XLA Ops") continue;
        double time = double(e.duration_ps());
        for (const tp::XStat& s : e.stats())
          if (stat_names[s.metadata_id()] == "device_duration_ps")
            time = s.value_case() == tp::XStat::kInt64Value ? double(s.int64_value()) : double(s.uint64_value());
        std::string category;
        for (const tp::XStat& s : m.stats())
          if (stat_names[s.metadata_id()] == "hlo_category") category = s.str_value();
        // The ops of this file never enclose one another (xla_ops_test checks it): busy is their sum.
        raw.busy_ps += time;
        if (category == "all-reduce") raw.collective_ps += time;
        if (category == "copy-start" || category == "copy-done") raw.async_copy_ps += time;
      }
    }
  }
  return out;
}

class TpuChips : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kTpuFile))
      GTEST_SKIP() << "XProf's TPU test file not found at " << kTpuFile << " (it is in ../shared/testdata)";
    model::LoadError error;
    ASSERT_TRUE(model::load_profile({kTpuFile, "", ""}, &profile_, &error)) << error.problem;
    raw_ = raw_planes();
  }
  model::Profile profile_;
  std::map<std::string, RawPlane> raw_;
};

TEST_F(TpuChips, OneRowPerChipWithItsOwnFigures) {
  const DeviceChips chips = compute_device_chips(profile_);
  ASSERT_EQ(raw_.size(), 4u);  // the testdata README: four chips
  ASSERT_EQ(chips.chips.size(), raw_.size());
  for (const ChipRow& c : chips.chips) {
    SCOPED_TRACE(c.device);
    ASSERT_TRUE(raw_.count(c.device));
    const RawPlane& raw = raw_.at(c.device);
    EXPECT_EQ(c.global_chip_id, raw.global_chip_id);
    EXPECT_EQ(c.cores, 1u);  // a v6e chip has one TensorCore, and each plane has its own chip id
    EXPECT_EQ(c.model, raw.device_type);
    EXPECT_DOUBLE_EQ(c.peak_tflops, raw.peak_tflops);
    EXPECT_DOUBLE_EQ(c.peak_hbm_gbps, raw.peak_hbm_gbps);
    // The module runs, and the most-run module (the program the loop ran).
    uint64_t runs = 0, main_runs = 0;
    double ps = 0, main_ps = 0;
    std::string main;
    for (const auto& [name, r] : raw.module_runs) {
      runs += r.first, ps += r.second;
      if (r.first > main_runs) main = name, main_runs = r.first, main_ps = r.second;
    }
    EXPECT_EQ(c.module_runs, runs);
    EXPECT_NEAR(double(c.module_time_ps), ps, 1);
    EXPECT_EQ(c.main_module, main);
    EXPECT_EQ(c.main_module_runs, main_runs);
    EXPECT_NEAR(double(c.main_module_time_ps), main_ps, 1);
    // Busy time and its split, per chip: never the sum over chips.
    EXPECT_NEAR(double(c.busy_ps), raw.busy_ps, 1e-6 * raw.busy_ps);
    EXPECT_NEAR(double(c.collective_ps), raw.collective_ps, 1e-6 * raw.busy_ps);
    EXPECT_NEAR(double(c.async_copy_ps), raw.async_copy_ps, 1e-6 * raw.busy_ps);
    EXPECT_EQ(c.compute_ps + c.collective_ps + c.async_copy_ps, c.busy_ps);
    EXPECT_GT(c.compute_ps, 0);
  }
  // The figures the raw file gives (protoc --decode of the planes, summed with a script): TPU:0
  // ran 105 module runs, the other three 103 each; TPU:0's ops ran 78.7837 s by their
  // device_duration_ps (78.7849 s by the events' own durations) of a ~92 s profile.
  EXPECT_EQ(chips.chips[0].module_runs, 105u);
  EXPECT_NEAR(double(chips.chips[0].busy_ps) / 1e12, 78.7837, 0.0001);
  EXPECT_GE(chips.busiest, 0);
}

TEST_F(TpuChips, RunEnvironmentTellsTheTpu) {
  const RunEnvironment env = compute_run_environment(profile_);
  EXPECT_TRUE(env.is_tpu());
  EXPECT_EQ(env.device_count, 4u);
  EXPECT_EQ(env.chip_count(), 4u);
  ASSERT_FALSE(env.devices.empty());
  EXPECT_EQ(env.devices.front().model, "TPU v6 Lite");
  EXPECT_EQ(tpu_generation(env.devices.front().model), "v6e");
  EXPECT_DOUBLE_EQ(env.devices.front().peak_tflops, raw_.at("/device:TPU:0").peak_tflops);
  EXPECT_DOUBLE_EQ(env.devices.front().peak_hbm_gbps, raw_.at("/device:TPU:0").peak_hbm_gbps);
  const nlohmann::json j = to_json(env);
  EXPECT_EQ(j["tpu_generation"], "v6e");
  EXPECT_EQ(j["chip_count"], 4);
}

// The pod viewer of one host with four chips has a row per chip, not "one host".
TEST_F(TpuChips, PodViewerHasARowPerChip) {
  const AnalyzedProfile profile(std::move(profile_));
  const Tool& pod = *find_tool("pod_viewer");
  ASSERT_TRUE(pod.has_data(profile)) << pod.no_data_reason;
  const nlohmann::json j = run_tool(pod, profile, {}).json();
  ASSERT_TRUE(j["chips"].is_object()) << j.dump().substr(0, 400);
  EXPECT_EQ(j["chips"]["chips"].size(), 4u);
  const nlohmann::json overview = run_tool(*find_tool("overview_page"), profile, {}).json();
  ASSERT_TRUE(overview["chips"].is_object());
  EXPECT_EQ(overview["chips"]["chips"].size(), 4u);
}

// `mlprof report --format csv` of the overview and the pod viewer: one row per chip, with the
// columns of the JSON's chip rows, each chip's figures the raw planes' (read above).
TEST_F(TpuChips, CsvHasOneRowPerChip) {
  const AnalyzedProfile profile(std::move(profile_));
  for (const char* tool : {"overview_page", "pod_viewer"}) {
    SCOPED_TRACE(tool);
    const ToolResult result = run_tool(*find_tool(tool), profile, {});
    const std::string csv = result.csv();
    ASSERT_EQ(csv.find('"'), std::string::npos) << "no field here needs quoting";
    std::vector<std::vector<std::string>> rows;
    for (size_t begin = 0; begin < csv.size();) {
      const size_t end = csv.find('\n', begin);
      std::vector<std::string> fields;
      const std::string line = csv.substr(begin, end - begin);
      for (size_t f = 0;;) {
        const size_t comma = line.find(',', f);
        fields.push_back(line.substr(f, comma - f));
        if (comma == std::string::npos) break;
        f = comma + 1;
      }
      rows.push_back(fields);
      begin = end + 1;
    }
    ASSERT_EQ(rows.size(), 1 + raw_.size());
    const nlohmann::json chips = result.json()["chips"]["chips"];
    std::map<std::string, size_t> column;
    for (size_t i = 0; i < rows[0].size(); ++i) column[rows[0][i]] = i;
    ASSERT_EQ(column.size(), chips[0].size()) << "the CSV's columns are the JSON row's keys";
    for (const auto& [key, value] : chips[0].items()) EXPECT_TRUE(column.count(key)) << key;
    for (size_t r = 1; r < rows.size(); ++r) {
      const std::vector<std::string>& row = rows[r];
      ASSERT_EQ(row.size(), column.size());
      const std::string device = row[column.at("device")];
      SCOPED_TRACE(device);
      ASSERT_TRUE(raw_.count(device));
      const RawPlane& raw = raw_.at(device);
      EXPECT_EQ(std::stoll(row[column.at("global_chip_id")]), raw.global_chip_id);
      EXPECT_EQ(row[column.at("model")], raw.device_type);
      uint64_t runs = 0;
      for (const auto& [name, m] : raw.module_runs) runs += m.first;
      EXPECT_EQ(std::stoull(row[column.at("module_runs")]), runs);
      EXPECT_NEAR(std::stod(row[column.at("busy_ms")]), raw.busy_ps / 1e9, 1e-6 * raw.busy_ps / 1e9);
      EXPECT_NEAR(std::stod(row[column.at("async_copy_ms")]), raw.async_copy_ps / 1e9, 1e-6 * raw.busy_ps / 1e9);
      EXPECT_DOUBLE_EQ(std::stod(row[column.at("peak_teraflops_per_second")]), raw.peak_tflops);
    }
  }
}

// The pages draw the step-time categories by the labels the JSON gives: on a TPU the host
// launches XLA programs, so the launch category is "Program launch" as in the text report; the
// top ops say they are summed over the file's four TPU cores (four planes /device:TPU:0..3).
TEST_F(TpuChips, PagesGetTheTpusWordsFromTheJson) {
  const AnalyzedProfile profile(std::move(profile_));
  for (const char* tool : {"overview_page", "pod_viewer"}) {
    const nlohmann::json j = run_tool(*find_tool(tool), profile, {}).json();
    ASSERT_TRUE(j["category_labels"].is_object()) << tool;
    EXPECT_EQ(j["category_labels"]["kernel_launch"], "Program launch") << tool;
    EXPECT_EQ(j["category_labels"]["device_compute"], "Device compute") << tool;
  }
  const nlohmann::json overview = run_tool(*find_tool("overview_page"), profile, {}).json();
  EXPECT_EQ(overview["top_ops_where"], "on the TPU by self time, summed over its 4 cores");
}

// Host offloading told in TPU terms: the file's chips spend ~96% of their busy time in
// copy-start/copy-done (hlo_category, read raw above); the advice gives the least of the four
// shares, and a chip busy with compute gets none.
TEST_F(TpuChips, HostOffloadingAdviceFromTheChipsAsyncCopies) {
  double least = 1;
  for (const auto& [name, raw] : raw_) least = std::min(least, raw.async_copy_ps / raw.busy_ps);
  ASSERT_GT(least, 0.9);
  const std::string advice = host_offload_advice(compute_device_chips(profile_));
  EXPECT_NE(advice.find(fmt::format("Host offloading: {:.1f}% or more of each chip's busy time", 100 * least)),
            std::string::npos)
      << advice;
  const AnalyzedProfile profile(std::move(profile_));
  const nlohmann::json overview = run_tool(*find_tool("overview_page"), profile, {}).json();
  EXPECT_EQ(std::count_if(overview["recommendations"].begin(), overview["recommendations"].end(),
                          [&](const nlohmann::json& r) { return r["text"] == advice; }),
            1);
  // The copies bound the step too: their advice is said once, the offloading's, not again as the
  // bottleneck's ("Copies bound the step: ...").
  EXPECT_EQ(std::count_if(overview["recommendations"].begin(), overview["recommendations"].end(),
                          [](const nlohmann::json& r) { return r["what_if"].is_object() && r["what_if"]["target"] == "copies"; }),
            1);

  DeviceChips busy_computing;
  busy_computing.chips.push_back({.model = "TPU v6 Lite", .busy_ps = 100, .compute_ps = 60, .async_copy_ps = 40});
  EXPECT_EQ(host_offload_advice(busy_computing), "");
}

// An older writer's TPU file: an XLA Ops line without `core_details`, peaks or an "XLA Modules"
// line. The chip still gets its row (busy time from its one op), and one line names each lack.
TEST(ChipsMissingStats, AnOlderWritersChipDegradesWithOneLineEach) {
  tp::XSpace space;
  auto device = testing::add_plane(&space, 1, "/device:TPU:0");
  auto* line = device.line(format::xspace::kDerivedLineIdBase + 5, "XLA Ops", 1000);
  device.event(line, "%fusion.1 = f32[8]{0} fusion(f32[8]{0} %p)", 1000, 500,
               {{"hlo_category", std::string("loop fusion")}});
  testing::TempDir dir;
  const std::string path = dir.path() + "/older.xplane.pb";
  testing::write_xspace(path, space);
  model::Profile profile;
  std::string error;
  ASSERT_TRUE(model::import_xspace_file(path, "older", &profile, &error)) << error;
  const DeviceChips chips = compute_device_chips(profile);
  ASSERT_EQ(chips.chips.size(), 1u);
  EXPECT_EQ(chips.chips[0].busy_ps, 500);
  EXPECT_EQ(chips.chips[0].compute_ps, 500);
  EXPECT_EQ(chips.chips[0].global_chip_id, -1);
  EXPECT_EQ(chips.chips[0].module_runs, 0u);
  std::string lines;
  for (const std::string& m : chips.missing) {
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    lines += m + "\n";
  }
  for (const char* lack : {"`core_details`", "`peak_teraflops_per_second`", "`flops`", "\"XLA Modules\""})
    EXPECT_NE(lines.find(lack), std::string::npos) << lack << " in:\n" << lines;
}

// A megacore chip (TPU v4, v5p: two TensorCores that XLA drives as one) is one row. No file of
// ../shared/testdata has one (tests/analysis/xspace_core_details_check.py lists every
// .xplane.pb's core_details: no two planes share a chip), so this XSpace is built: TPU:0 and
// TPU:1 are the two cores of chip 3, TPU:2 is chip 4 alone. XProf's rule: the cores of a chip
// are combined by its chip id and the chip is busy while any core is (ConvertXSpaceToOpStats in
// xprof/convert/xplane_to_op_stats.cc calls DutyCycleCombiner::CombineCore with the core's
// chip id, which unites the cores' duty cycles: duty_cycle_combiner.h); a plane's peaks are its
// core's, doubled for megacore (op_metrics_to_record.h's note on the roofline).
std::string core_details(uint64_t local_chip, uint64_t global_chip, uint64_t global_core) {
  std::string out;
  for (auto [field, value] : {std::pair{4u, local_chip}, std::pair{5u, global_chip}, std::pair{6u, global_core}}) {
    out += char(field << 3);  // a varint field; the values here are below 128
    out += char(value);
  }
  return out;
}

constexpr int64_t kUs = 1'000'000;  // ps

TEST(MegacoreChip, TwoCoresOfOneChipAreOneRowBusyWhileEitherIs) {
  tp::XSpace space;
  struct Op {
    const char* name;
    const char* category;
    int64_t start_us, duration_us;
    int64_t flops;
  };
  auto add_core = [&](int64_t id, int core, uint64_t chip, const std::vector<Op>& ops) {
    auto plane = testing::add_plane(&space, id, "/device:TPU:" + std::to_string(core));
    plane.plane_stat("device_type_string", std::string("TPU v4"));
    plane.plane_stat("peak_teraflops_per_second", 100.0);
    plane.plane_stat("peak_hbm_bw_gigabytes_per_second", 1000.0);
    tp::XStat* details = plane.plane()->add_stats();
    details->set_metadata_id(plane.stat_metadata("core_details"));
    details->set_bytes_value(core_details(chip - 3, chip, uint64_t(core)));
    auto* line = plane.line(format::xspace::kDerivedLineIdBase + 5, "XLA Ops", 1000);
    for (const Op& op : ops)
      plane.event(line, std::string("%") + op.name + " = f32[8]{0} " + op.category + "()", op.start_us * kUs,
                  op.duration_us * kUs, {{"hlo_category", std::string(op.category)}, {"flops", op.flops}});
  };
  // Core 0 runs 0-800 us, core 1 100-500 and 900-1000 us: the chip is busy 900 us, its cores
  // 1300 us together, of which all-reduce 200 us and the async copy 100 us.
  add_core(1, 0, 3, {{"fusion.1", "loop fusion", 0, 600, 1'000'000'000}, {"all-reduce.1", "all-reduce", 600, 200, 0}});
  add_core(2, 1, 3, {{"fusion.2", "loop fusion", 100, 400, 500'000'000}, {"copy-start.1", "copy-start", 900, 100, 0}});
  add_core(3, 2, 4, {{"fusion.3", "loop fusion", 0, 300, 0}});
  testing::TempDir dir;
  const std::string path = dir.path() + "/megacore.xplane.pb";
  testing::write_xspace(path, space);
  model::Profile profile;
  std::string error;
  ASSERT_TRUE(model::import_xspace_file(path, "megacore", &profile, &error)) << error;

  const DeviceChips chips = compute_device_chips(profile);
  ASSERT_EQ(chips.chips.size(), 2u);
  const ChipRow& mega = chips.chips[0];
  EXPECT_EQ(mega.global_chip_id, 3);
  EXPECT_EQ(mega.cores, 2u);
  EXPECT_EQ(mega.device, "/device:TPU:0");
  EXPECT_EQ(mega.core_devices, "/device:TPU:0, /device:TPU:1");
  EXPECT_EQ(mega.busy_ps, 900 * kUs);
  EXPECT_EQ(mega.core_busy_ps, 1300 * kUs);
  EXPECT_EQ(mega.collective_ps, 200 * kUs);
  EXPECT_EQ(mega.async_copy_ps, 100 * kUs);
  EXPECT_EQ(mega.compute_ps, 1000 * kUs);
  // 1.5 GFLOP in the 900 us the chip was busy, against its two cores' 2 x 100 TFLOP/s.
  EXPECT_NEAR(mega.flop_util_pct, 100 * 1.5e9 / (900e-6 * 200e12), 1e-9);
  const ChipRow& single = chips.chips[1];
  EXPECT_EQ(single.global_chip_id, 4);
  EXPECT_EQ(single.cores, 1u);
  EXPECT_EQ(single.core_devices, "/device:TPU:2");
  EXPECT_EQ(single.busy_ps, 300 * kUs);
  EXPECT_EQ(single.core_busy_ps, 300 * kUs);

  // The pod viewer and the overview show the two chips, and say what a megacore row holds.
  const AnalyzedProfile analyzed(std::move(profile));
  for (const char* tool : {"pod_viewer", "overview_page"}) {
    SCOPED_TRACE(tool);
    const nlohmann::json j = run_tool(*find_tool(tool), analyzed, {}).json()["chips"];
    ASSERT_TRUE(j.is_object());
    ASSERT_EQ(j["chips"].size(), 2u);
    EXPECT_EQ(j["chips"][0]["cores"], 2);
    EXPECT_EQ(j["chips"][0]["core_devices"], "/device:TPU:0, /device:TPU:1");
    EXPECT_DOUBLE_EQ(j["chips"][0]["busy_ms"].get<double>(), 0.9);
    EXPECT_DOUBLE_EQ(j["chips"][0]["core_busy_ms"].get<double>(), 1.3);
    EXPECT_NE(j["figures"].get<std::string>().find("megacore"), std::string::npos);
  }
}

// Google's names of its parts: "Lite" parts are the e parts (v5e, v6e).
TEST(TpuGeneration, FromDeviceTypeString) {
  EXPECT_EQ(tpu_generation("TPU v6 Lite"), "v6e");
  EXPECT_EQ(tpu_generation("TPU v5 Lite"), "v5e");
  EXPECT_EQ(tpu_generation("TPU v5p"), "v5p");
  EXPECT_EQ(tpu_generation("TPU v4"), "v4");
  EXPECT_EQ(tpu_generation("TPU"), "");
  EXPECT_EQ(tpu_generation("NVIDIA H100"), "");
}

}  // namespace
}  // namespace mlprof::analysis
