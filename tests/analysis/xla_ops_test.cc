// The XLA op tools (op_profile, hlo_stats, roofline_model) on real files, every figure checked
// against the raw stats read here with libprotobuf's XSpace classes, not with mlprof's reader:
// - ../shared/testdata/wild/xprof/...tpu_inference_2.xplane.pb: JAX on a TPU v6e, four chips;
// - ../shared/testdata/wild/tracelens/xplane/...gemm...xplane.pb: JAX on MI300X GPUs.
// XProf's definitions followed: xprof/convert/xplane_to_op_metrics_db.cc
// (ConvertTensorCoreDeviceTraceXPlaneToOpMetricsDb: ops of the "XLA Ops" line, device timespans),
// xprof/convert/op_metrics_to_record.h (GigaFlopsPerSecondPerCore, SetRooflineMetrics: rates,
// intensities, HBM bytes from the memory access breakdown, "bound by"),
// xprof/convert/op_profile_builder.cc (PopulateOpMetricsNode: utilisation against the peaks,
// CapUtilization).
#include <gtest/gtest.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <deque>
#include <regex>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "analysis/framework_op_stats.h"
#include "analysis/hlo_stats.h"
#include "analysis/kernel_stats.h"
#include "analysis/op_profile.h"
#include "analysis/roofline_model.h"
#include "analysis/run_environment.h"
#include "format/xspace_schema.h"
#include "model/xspace_builder.h"
#include "model/xspace/importer.h"
#include "xplane.pb.h"

namespace mlprof::analysis {
namespace {

namespace tp = tensorflow::profiler;

const std::string kTpuFile =
    std::string(MLPROF_TESTDATA) + "/wild/xprof/xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb";
const std::string kCorruptFile = std::string(MLPROF_TESTDATA) +
                                 "/wild/xprof/xprof__xprof_convert_test_xplanes_tpu_inference_2.CORRUPT_utf8mangled_"
                                 "bfd424c8.xplane.pb.bin";
const std::string kGpuFile =
    std::string(MLPROF_TESTDATA) + "/wild/tracelens/xplane/tracelens__traces_mi300_jax08_gemm_tw003.xplane.pb";

tp::XSpace read_space(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  tp::XSpace space;
  EXPECT_TRUE(space.ParseFromIstream(&in)) << path;
  return space;
}

// A stat's value as a double, or its text.
double number(const tp::XStat& s) {
  switch (s.value_case()) {
    case tp::XStat::kDoubleValue: return s.double_value();
    case tp::XStat::kUint64Value: return double(s.uint64_value());
    case tp::XStat::kInt64Value: return double(s.int64_value());
    default: return 0;
  }
}

// The HBM (memory space 1) bytes of a serialized MemoryAccessBreakdown, decoded with
// libprotobuf's unknown-field parser.
double hbm_bytes(const std::string& bytes) {
  google::protobuf::UnknownFieldSet outer;
  EXPECT_TRUE(outer.ParseFromString(bytes));
  double hbm = 0;
  for (int i = 0; i < outer.field_count(); ++i) {
    google::protobuf::UnknownFieldSet entry;
    EXPECT_TRUE(entry.ParseFromString(outer.field(i).length_delimited()));
    uint64_t space = 0, amount = 0;
    for (int j = 0; j < entry.field_count(); ++j) {
      if (entry.field(j).number() == 2) space = entry.field(j).varint();
      if (entry.field(j).number() == 3) amount = entry.field(j).varint();
    }
    if (space == 1) hbm += double(amount);
  }
  return hbm;
}

// What the raw file says of one chip's XLA ops.
struct RawOp {
  std::string category, source;
  uint64_t count = 0;
  double time_ps = 0, flops = 0, bytes = 0, hbm = 0;
  uint64_t pairs = 0;  // async halves: runs matched with the other half
  double span_ps = 0;  // and their spans, start begin to done end
  // What rates are over (mlprof, on purpose unlike XProf): an async half's pair spans.
  double rate_ps() const { return pairs > 0 ? span_ps : time_ps; }
};

// Async pairs as XLA writes them: "copy-start.2" (also "send", "recv") starts, "copy-done.2"
// completes the op its text names last: "... copy-done((...) %copy-start.2)".
bool raw_is_start(const std::string& name) {
  static const std::regex start(R"(^([\w-]+-start|send|recv)(\.\d+)?$)");
  return std::regex_match(name, start);
}
std::string raw_done_of(const std::string& name, const std::string& text) {
  static const std::regex done(R"(^[\w-]+-done(\.\d+)?$)");
  static const std::regex last_operand(R"(%([\w.-]+)\)$)");
  std::smatch m;
  if (!std::regex_match(name, done) || !std::regex_search(text, m, last_operand)) return "";
  return m[1];
}
struct RawChip {
  double peak_tflops = 0, peak_hbm_gbps = 0;
  std::string device_type;
  int64_t global_chip_id = -1;  // core_details field 5
  double busy_ps = 0;
  std::map<std::string, RawOp> ops;  // by display name
  std::map<std::string, double> category_ps;
};

std::map<std::string, RawChip> raw_tpu_chips(const tp::XSpace& space) {
  std::map<std::string, RawChip> chips;
  for (const tp::XPlane& plane : space.planes()) {
    if (!plane.name().starts_with("/device:TPU:")) continue;
    RawChip& chip = chips[plane.name()];
    std::map<int64_t, std::string> stat_names;
    for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = m.name();
    for (const tp::XStat& s : plane.stats()) {
      if (stat_names[s.metadata_id()] == "peak_teraflops_per_second") chip.peak_tflops = number(s);
      if (stat_names[s.metadata_id()] == "peak_hbm_bw_gigabytes_per_second") chip.peak_hbm_gbps = number(s);
      if (stat_names[s.metadata_id()] == "device_type_string") chip.device_type = s.str_value();
      if (stat_names[s.metadata_id()] == "core_details") {
        google::protobuf::UnknownFieldSet details;
        EXPECT_TRUE(details.ParseFromString(s.bytes_value()));
        chip.global_chip_id = 0;
        for (int i = 0; i < details.field_count(); ++i)
          if (details.field(i).number() == 5) chip.global_chip_id = int64_t(details.field(i).varint());
      }
    }
    for (const tp::XLine& line : plane.lines()) {
      if (line.name() != "XLA Ops") continue;
      // The test's arithmetic assumes that no op encloses another in device time (the
      // events' own offsets are the host's view: there some share one start).
      std::vector<std::pair<double, double>> device_spans;
      struct Run {
        double begin, end;
        std::string name, text;
      };
      std::vector<Run> runs;
      for (const tp::XEvent& e : line.events()) {
        const tp::XEventMetadata& m = plane.event_metadata().at(e.metadata_id());
        RawOp& op = chip.ops[m.display_name()];
        double time = double(e.duration_ps()), begin = double(e.offset_ps());
        for (const tp::XStat& s : e.stats()) {
          if (stat_names[s.metadata_id()] == "device_duration_ps") time = number(s);
          if (stat_names[s.metadata_id()] == "device_offset_ps") begin = number(s);
        }
        device_spans.emplace_back(begin, begin + time);
        runs.push_back({begin, begin + time, m.display_name(), m.name()});
        bool has_breakdown = false;
        double bytes = 0, hbm = 0;
        for (const tp::XStat& s : m.stats()) {
          const std::string& name = stat_names[s.metadata_id()];
          if (name == "hlo_category") op.category = s.str_value();
          if (name == "source") op.source = s.str_value();
          if (name == "flops") op.flops += number(s);
          if (name == "bytes_accessed") bytes = number(s);
          if (name == "memory_access_breakdown") has_breakdown = true, hbm = hbm_bytes(s.bytes_value());
        }
        op.count += 1;
        op.time_ps += time;
        op.bytes += bytes;
        op.hbm += has_breakdown ? hbm : bytes;
        chip.busy_ps += time;
        chip.category_ps[op.category] += time;
      }
      std::sort(device_spans.begin(), device_spans.end());
      for (size_t i = 1; i < device_spans.size(); ++i)
        EXPECT_LE(device_spans[i - 1].second, device_spans[i].first) << plane.name() << ": ops overlap";
      // Each done takes the oldest open run of its start, in device time.
      std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.begin < b.begin; });
      std::map<std::string, std::deque<double>> open;
      for (const Run& r : runs) {
        if (raw_is_start(r.name)) {
          open[r.name].push_back(r.begin);
          continue;
        }
        const std::string start = raw_done_of(r.name, r.text);
        if (start.empty() || open[start].empty()) continue;
        const double span = r.end - open[start].front();
        open[start].pop_front();
        for (const std::string& half : {start, r.name}) chip.ops[half].pairs += 1, chip.ops[half].span_ps += span;
      }
    }
  }
  return chips;
}

double d_ridge(const RooflineModel& m, const std::string& device) {
  for (const RooflineDevice& d : m.devices)
    if (d.device == device) return d.ridge_point;
  return 0;
}

class TpuFile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kTpuFile))
      GTEST_SKIP() << "XProf's TPU test file not found at " << kTpuFile << " (it is in ../shared/testdata)";
    std::string error;
    ASSERT_TRUE(model::import_xspace_file(kTpuFile, "tpu", &profile_, &error)) << error;
    raw_ = raw_tpu_chips(read_space(kTpuFile));
    ASSERT_EQ(raw_.size(), 4u);
  }
  model::Profile profile_;
  std::map<std::string, RawChip> raw_;
};

TEST_F(TpuFile, OpsAreNamedByTheirHloOpUnderTheirModule) {
  const HloOps ops = collect_hlo_ops(profile_);
  ASSERT_EQ(ops.devices.size(), 4u);
  EXPECT_EQ(ops.common_device_type(), "TPU v6 Lite");
  for (const HloOp& op : ops.ops) {
    EXPECT_EQ(op.name.find_first_of(" %"), std::string::npos) << op.name;
    EXPECT_TRUE(op.program.starts_with("jit_")) << op.name << " in " << op.program;
    EXPECT_TRUE(op.expression.starts_with("%" + op.name + " = ")) << op.expression;
    EXPECT_EQ(op.category, raw_[ops.devices[op.device].name].ops[op.name].category) << op.name;
  }
  EXPECT_EQ(hlo_op_name_of_text("%copy-done.2 = (f32[8]{0}, u32[]{:S(2)}) copy-done(...)"), "copy-done.2");
}

TEST_F(TpuFile, AsyncHalvesArePairedAndTheirRatesAreOverThePairsSpans) {
  const HloOps ops = collect_hlo_ops(profile_);
  size_t halves = 0;
  for (const HloOp& op : ops.ops) {
    const RawOp& raw = raw_[ops.devices[op.device].name].ops[op.name];
    EXPECT_EQ(op.async_pairs, raw.pairs) << op.name;
    EXPECT_DOUBLE_EQ(double(op.async_span_ps), raw.span_ps) << op.name;
    if (op.async_pairs == 0) continue;
    ++halves;
    EXPECT_EQ(op.async_pairs, op.occurrences) << op.name;  // every run has its other half here
    EXPECT_GE(op.async_span_ps, op.time_ps) << op.name;    // a pair spans its halves
    if (op.name == "copy-start.3") {
      EXPECT_EQ(op.async_partner, "copy-done.3");
    }
    if (op.name == "copy-done.3") {
      EXPECT_EQ(op.async_partner, "copy-start.3");
    }
  }
  EXPECT_EQ(halves, 4u * 12);  // six copy pairs a chip
  EXPECT_EQ(async_start_of("%copy-done.2 = f32[8]{0:T(8,128)} copy-done((f32[8], u32[]) %copy-start.2)"),
            "copy-start.2");
}

TEST_F(TpuFile, OpProfileSumsEachChipsOpsAndCategories) {
  const OpProfile p = compute_op_profile(profile_);
  EXPECT_EQ(p.device_type, "TPU v6 Lite");
  ASSERT_EQ(p.views.size(), 5u);  // all chips, then one per chip
  EXPECT_NE(p.views[0].device.find("summed over 4"), std::string::npos) << p.views[0].device;
  double all_busy = 0;
  for (size_t v = 1; v < p.views.size(); ++v) {
    const OpProfileView& view = p.views[v];
    const RawChip& chip = raw_.at(view.device);
    all_busy += chip.busy_ps;
    EXPECT_DOUBLE_EQ(view.peak_tflops, chip.peak_tflops);
    EXPECT_DOUBLE_EQ(view.peak_hbm_gbps, chip.peak_hbm_gbps);
    EXPECT_DOUBLE_EQ(double(view.busy_ps), chip.busy_ps) << view.device;
    EXPECT_DOUBLE_EQ(double(view.by_category.time_ps), chip.busy_ps) << view.device;
    EXPECT_DOUBLE_EQ(double(view.by_program.time_ps), chip.busy_ps) << view.device;
    ASSERT_EQ(view.by_category.children.size(), chip.category_ps.size());
    for (const OpProfileNode& category : view.by_category.children) {
      EXPECT_DOUBLE_EQ(double(category.time_ps), chip.category_ps.at(category.name)) << category.name;
      for (const OpProfileNode& op : category.children) {
        const RawOp& raw = chip.ops.at(op.name);
        EXPECT_EQ(op.occurrences, raw.count) << op.name;
        EXPECT_DOUBLE_EQ(double(op.time_ps), raw.time_ps) << op.name;
        EXPECT_DOUBLE_EQ(op.flops, raw.flops) << op.name;
        EXPECT_DOUBLE_EQ(op.hbm_bytes, raw.hbm) << op.name;
        const double seconds = raw.rate_ps() * 1e-12;
        EXPECT_NEAR(op.flop_util, std::min(1.0, raw.flops / (seconds * chip.peak_tflops * 1e12)), 1e-12) << op.name;
        EXPECT_NEAR(op.hbm_util, std::min(1.0, raw.hbm / (seconds * chip.peak_hbm_gbps * 1e9)), 1e-12) << op.name;
      }
    }
  }
  EXPECT_DOUBLE_EQ(double(p.views[0].busy_ps), all_busy);
  EXPECT_DOUBLE_EQ(double(p.views[0].by_category.time_ps), all_busy);
}

TEST_F(TpuFile, HloStatsRowsAreTheRawOpsSummedOverChips) {
  const HloStats s = compute_hlo_stats(collect_hlo_ops(profile_));
  EXPECT_EQ(s.num_devices, 4u);
  std::map<std::string, RawOp> by_name;
  double busy = 0;
  for (const auto& [name, chip] : raw_) {
    busy += chip.busy_ps;
    for (const auto& [op_name, op] : chip.ops) {
      RawOp& r = by_name[op_name];
      r.count += op.count, r.time_ps += op.time_ps, r.flops += op.flops, r.bytes += op.bytes, r.hbm += op.hbm;
      r.pairs += op.pairs, r.span_ps += op.span_ps;
      r.source = op.source, r.category = op.category;
    }
  }
  // Each op ran in one program here, so a row is an op.
  ASSERT_EQ(s.rows.size(), by_name.size());
  double self_sum = 0;
  for (const HloStatsRow& r : s.rows) {
    const RawOp& raw = by_name.at(r.name);
    self_sum += double(r.self_ps);
    EXPECT_EQ(r.occurrences, raw.count) << r.name;
    EXPECT_DOUBLE_EQ(double(r.total_ps), raw.time_ps) << r.name;
    EXPECT_DOUBLE_EQ(double(r.self_ps), raw.time_ps) << r.name;  // nothing nests
    EXPECT_EQ(r.category, raw.category);
    EXPECT_EQ(r.source, raw.source);
    EXPECT_NEAR(r.gflops_per_s, raw.flops / (raw.rate_ps() * 1e-12) / 1e9, 1e-9 * (1 + r.gflops_per_s)) << r.name;
    EXPECT_NEAR(r.hbm_gib_per_s, raw.hbm / (raw.rate_ps() * 1e-12) / (1024.0 * 1024 * 1024),
                1e-9 * (1 + r.hbm_gib_per_s))
        << r.name;
    if (raw.bytes > 0) {
      EXPECT_DOUBLE_EQ(r.operational_intensity, raw.flops / raw.bytes) << r.name;
    }
  }
  EXPECT_DOUBLE_EQ(self_sum, busy);
  EXPECT_DOUBLE_EQ(double(s.busy_ps), busy);
  EXPECT_NEAR(s.rows.back().cumulative_self_pct, 100.0, 1e-9);
  // Every stat is there: the notes are about the async pairs' rates and the shares' base, where
  // mlprof differs from XProf on purpose.
  ASSERT_EQ(s.notes.size(), 2u);
  EXPECT_NE(s.notes[0].find("async pairs"), std::string::npos) << s.notes[0];
  EXPECT_NE(s.notes[1].find("idle time included"), std::string::npos) << s.notes[1];

  // One chip.
  const HloStats one = compute_hlo_stats(collect_hlo_ops(profile_), 2);
  EXPECT_EQ(one.devices, "/device:TPU:2");
  EXPECT_DOUBLE_EQ(double(one.busy_ps), raw_.at("/device:TPU:2").busy_ps);
}

TEST_F(TpuFile, RooflineRidgePointAndPointsComeFromThePlaneStats) {
  const RooflineModel m = compute_roofline_model(profile_);
  ASSERT_EQ(m.devices.size(), 4u);
  for (const RooflineDevice& d : m.devices) {
    const RawChip& chip = raw_.at(d.device);
    // 918 TFLOP/s over 1637.99 GB/s: about 560 FLOP per byte.
    EXPECT_DOUBLE_EQ(d.ridge_point, chip.peak_tflops * 1e12 / (chip.peak_hbm_gbps * 1e9));
    EXPECT_NEAR(d.ridge_point, 560.4, 0.1);
    EXPECT_EQ(d.global_chip_id, chip.global_chip_id) << d.device;
    EXPECT_EQ(d.device_type, "TPU v6 Lite");
    EXPECT_DOUBLE_EQ(double(d.total.time_ps), chip.busy_ps);
    double program_ps = 0;
    for (const RooflinePoint& p : d.programs) program_ps += double(p.time_ps);
    EXPECT_DOUBLE_EQ(program_ps, chip.busy_ps);
  }
  for (const RooflinePoint& p : m.ops) {
    const RawChip& chip = raw_.at(p.device);
    const RawOp& raw = chip.ops.at(p.name);
    EXPECT_DOUBLE_EQ(p.flops, raw.flops);
    EXPECT_DOUBLE_EQ(p.hbm_bytes, raw.hbm);
    EXPECT_NEAR(p.attained_gflops_per_s, raw.flops / (raw.rate_ps() * 1e-12) / 1e9, 1e-9 * (1 + p.attained_gflops_per_s));
    if (raw.hbm > 0) {
      EXPECT_DOUBLE_EQ(p.hbm_operational_intensity, raw.flops / raw.hbm) << p.name;
    }
    if (raw.flops > 0 && raw.hbm > 0) {
      const double intensity = raw.flops / raw.hbm;
      const double roof = std::min(chip.peak_tflops * 1e3, intensity * chip.peak_hbm_gbps);  // GFLOP/s
      EXPECT_NEAR(p.roof_gflops_per_s, roof, 1e-9 * roof) << p.name;
      // Below the ridge point the HBM roof is the lower one.
      if (intensity < d_ridge(m, p.device)) {
        EXPECT_EQ(p.bound_by, "HBM") << p.name;
      }
    }
  }
}

TEST_F(TpuFile, FrameworkOpStatsNameXlaOpsWithoutFrameworkOpByTheirHloOp) {
  const FrameworkOpStats stats = compute_framework_op_stats(profile_);
  std::set<std::string> device_ops;
  for (const OpStatsRow& r : stats.rows)
    if (r.on_device) device_ops.insert(r.name);
  for (const std::string& name : device_ops) EXPECT_FALSE(name.starts_with("%")) << name;
  EXPECT_TRUE(device_ops.count("copy-done.2"));            // no tf_op: the HLO op's name
  EXPECT_TRUE(device_ops.count("jit(f)/jit(main)/add"));  // tf_op: the framework op, as XProf names it
}

TEST_F(TpuFile, RunEnvironmentNamesTheTpuGeneration) {
  const RunEnvironment env = compute_run_environment(profile_);
  size_t tpus = 0;
  for (const DeviceInfo& d : env.devices) {
    if (!d.name.starts_with("/device:TPU:")) continue;
    EXPECT_EQ(d.model, raw_.at(d.name).device_type);
    ++tpus;
  }
  EXPECT_EQ(tpus, 4u);
}

TEST_F(TpuFile, CsvHasARowPerOp) {
  const HloStats s = compute_hlo_stats(collect_hlo_ops(profile_));
  const std::string csv = to_csv(s);
  EXPECT_EQ(size_t(std::count(csv.begin(), csv.end(), '\n')), s.rows.size() + 1);
  const nlohmann::json j = to_json(compute_op_profile(profile_));
  EXPECT_EQ(j["views"][1]["by_category"]["children"][0]["children"][0]["xla"]["expression"].get<std::string>()[0], '%');
}

TEST(XlaOpsBadInput, TheMangledTpuFileIsRefusedInOneLine) {
  if (!std::filesystem::exists(kCorruptFile)) GTEST_SKIP() << kCorruptFile << " not found (it is in ../shared/testdata)";
  model::Profile profile;
  std::string error;
  EXPECT_FALSE(model::import_xspace_file(kCorruptFile, "tpu", &profile, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(XlaOpsGpu, MI300KernelsAreGroupedByTheirHloOpAndMissingStatsAreNamed) {
  if (!std::filesystem::exists(kGpuFile)) GTEST_SKIP() << kGpuFile << " not found (it is in ../shared/testdata)";
  // Raw: per GPU plane, kernels by their hlo_op stat.
  std::map<std::pair<std::string, std::string>, std::pair<uint64_t, double>> raw;  // (gpu, op) -> count, time
  const tp::XSpace space = read_space(kGpuFile);
  for (const tp::XPlane& plane : space.planes()) {
    if (!plane.name().starts_with("/device:GPU:")) continue;
    std::map<int64_t, std::string> stat_names;
    for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = m.name();
    for (const tp::XLine& line : plane.lines())
      for (const tp::XEvent& e : line.events()) {
        auto add = [&](const tp::XStat& s) {
          if (stat_names[s.metadata_id()] != "hlo_op") return;
          const std::string op = s.value_case() == tp::XStat::kRefValue ? stat_names[int64_t(s.ref_value())] : s.str_value();
          auto& r = raw[{plane.name(), op}];
          r.first += 1, r.second += double(e.duration_ps());
        };
        for (const tp::XStat& s : e.stats()) add(s);
        for (const tp::XStat& s : plane.event_metadata().at(e.metadata_id()).stats()) add(s);
      }
  }
  ASSERT_FALSE(raw.empty());
  model::Profile profile;
  std::string error;
  ASSERT_TRUE(model::import_xspace_file(kGpuFile, "gpu", &profile, &error)) << error;
  const HloOps ops = collect_hlo_ops(profile);
  ASSERT_EQ(ops.ops.size(), raw.size());
  for (const HloOp& op : ops.ops) {
    const auto& r = raw.at({ops.devices[op.device].name, op.name});
    EXPECT_EQ(op.occurrences, r.first) << op.name;
    EXPECT_DOUBLE_EQ(double(op.time_ps), r.second) << op.name;
    EXPECT_TRUE(op.program.starts_with("jit_")) << op.program;
  }
  // No FLOPs, bytes or peaks in these files: one line for each, naming the stat.
  const HloStats s = compute_hlo_stats(ops);
  std::set<std::string> named;
  for (const MissingStat& m : ops.missing) named.insert(m.stat);
  EXPECT_TRUE(named.count("flops"));
  EXPECT_TRUE(named.count("peak_teraflops_per_second"));
  for (const std::string& line : s.notes) EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_FALSE(s.rows.empty());

  // Kernel stats: a kernel's op is its HLO op, not the "XlaModule:" JAX gives as its tf_op.
  std::set<std::string> hlo_ops;
  for (const auto& [key, r] : raw) hlo_ops.insert(key.second);
  for (const KernelStatsRow& r : compute_kernel_stats(profile).rows)
    if (!r.op_name.empty()) {
      EXPECT_TRUE(hlo_ops.count(r.op_name)) << r.kernel_name << " under " << r.op_name;
    }
}

TEST(XlaOpsMissingStats, AnOpLineWithoutFlopsOrPeaksDegradesWithOneLineEach) {
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
  const OpProfile p = compute_op_profile(profile);
  ASSERT_EQ(p.views.size(), 1u);
  EXPECT_EQ(p.views[0].by_category.children.at(0).children.at(0).name, "fusion.1");
  EXPECT_EQ(p.views[0].by_category.children.at(0).name, "loop fusion");
  std::string notes;
  for (const std::string& n : p.notes) notes += n + "\n";
  EXPECT_NE(notes.find("`flops`"), std::string::npos) << notes;
  EXPECT_NE(notes.find("`peak_teraflops_per_second`"), std::string::npos) << notes;
  EXPECT_NE(notes.find("`bytes_accessed`"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("`hlo_category`"), std::string::npos) << notes;
}

// A serialized MemoryAccessed {operation_type, memory_space, bytes_accessed}, as field 1 of a
// MemoryAccessBreakdown, written with libprotobuf's unknown-field set.
std::string breakdown_entry(uint64_t operation, uint64_t space, uint64_t bytes) {
  google::protobuf::UnknownFieldSet entry;
  entry.AddVarint(1, operation);
  entry.AddVarint(2, space);
  entry.AddVarint(3, bytes);
  std::string inner;
  entry.SerializeToString(&inner);
  google::protobuf::UnknownFieldSet outer;
  outer.AddLengthDelimited(1, inner);
  std::string out;
  outer.SerializeToString(&out);
  return out;
}

TEST(XlaOpsHbmBytes, OnlyTheHbmEntriesOfTheBreakdownCount) {
  tp::XSpace space;
  auto device = testing::add_plane(&space, 1, "/device:TPU:0");
  auto* line = device.line(format::xspace::kDerivedLineIdBase + 5, "XLA Ops", 1000);
  tp::XEvent* e = device.event(line, "%fusion.7 = f32[8]{0} fusion(f32[8]{0} %p)", 0, 1'000'000,
                               {{"hlo_category", std::string("loop fusion")}, {"bytes_accessed", int64_t(7000)}});
  auto* stat = e->add_stats();
  stat->set_metadata_id(device.stat_metadata("memory_access_breakdown"));
  // HBM read 1000, HBM write 2000, VMEM (space 3) read 4000.
  stat->set_bytes_value(breakdown_entry(1, 1, 1000) + breakdown_entry(2, 1, 2000) + breakdown_entry(1, 3, 4000));
  testing::TempDir dir;
  const std::string path = dir.path() + "/breakdown.xplane.pb";
  testing::write_xspace(path, space);
  model::Profile profile;
  std::string error;
  ASSERT_TRUE(model::import_xspace_file(path, "breakdown", &profile, &error)) << error;
  const HloOps ops = collect_hlo_ops(profile);
  ASSERT_EQ(ops.ops.size(), 1u);
  EXPECT_DOUBLE_EQ(ops.ops[0].bytes_accessed, 7000);
  EXPECT_DOUBLE_EQ(ops.ops[0].hbm_bytes, 3000);
}

}  // namespace
}  // namespace mlprof::analysis
