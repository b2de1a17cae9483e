// JAX on MI300X GPUs (wild/tracelens/xplane/): every XLA kernel carries the tf_op "XlaModule:"
// and names its HLO op in `hlo_op`. The framework op stats show the HLO op, never "XlaModule:":
// each op's kernel count and time are checked against the raw events read here with
// libprotobuf's XSpace classes, not with mlprof's reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/framework_op_stats.h"
#include "model/load_profile.h"
#include "xplane.pb.h"

namespace mlprof::analysis {
namespace {

namespace tp = tensorflow::profiler;

const std::string kGpuFile =
    std::string(MLPROF_TESTDATA) + "/wild/tracelens/xplane/tracelens__traces_mi300_jax08_gemm_tw003.xplane.pb";

// Per HLO op of the XLA kernels on the GPU planes: kernels and their summed duration.
std::map<std::string, std::pair<uint64_t, double>> raw_xla_kernels() {
  std::ifstream in(kGpuFile, std::ios::binary);
  tp::XSpace space;
  EXPECT_TRUE(space.ParseFromIstream(&in));
  std::map<std::string, std::pair<uint64_t, double>> out;
  for (const tp::XPlane& plane : space.planes()) {
    if (!plane.name().starts_with("/device:GPU:")) continue;
    std::map<int64_t, std::string> stat_names;
    for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = m.name();
    for (const tp::XLine& line : plane.lines()) {
      if (!line.name().starts_with("Stream #")) continue;
      for (const tp::XEvent& e : line.events()) {
        std::string tf_op, hlo_op;
        // A string stat is inline or a reference to the stat metadata holding it (ref_value).
        auto read = [&](const tp::XStat& s) {
          const std::string value =
              s.value_case() == tp::XStat::kRefValue ? stat_names[int64_t(s.ref_value())] : s.str_value();
          if (stat_names[s.metadata_id()] == "tf_op") tf_op = value;
          if (stat_names[s.metadata_id()] == "hlo_op") hlo_op = value;
        };
        for (const tp::XStat& s : e.stats()) read(s);
        for (const tp::XStat& s : plane.event_metadata().at(e.metadata_id()).stats()) read(s);
        if (tf_op != "XlaModule:" || hlo_op.empty()) continue;
        auto& [kernels, ps] = out[hlo_op];
        ++kernels;
        ps += double(e.duration_ps());
      }
    }
  }
  return out;
}

TEST(XlaKernelOpNames, JaxGpuKernelsShowTheirHloOp) {
  if (!std::filesystem::exists(kGpuFile)) GTEST_SKIP() << kGpuFile << " not found (it is in ../shared/testdata)";
  const auto raw = raw_xla_kernels();
  ASSERT_FALSE(raw.empty()) << "no XLA kernels with an hlo_op in the file";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({kGpuFile, "", ""}, &p, &error)) << error.problem;
  const FrameworkOpStats stats = compute_framework_op_stats(p);
  std::map<std::string, const OpStatsRow*> device_rows;
  for (const OpStatsRow& r : stats.rows) {
    if (!r.on_device) continue;
    EXPECT_NE(r.name, "XlaModule:");
    device_rows[r.name] = &r;
  }
  for (const auto& [hlo_op, figures] : raw) {
    SCOPED_TRACE(hlo_op);
    ASSERT_TRUE(device_rows.count(hlo_op)) << "no device op row";
    EXPECT_EQ(device_rows[hlo_op]->kernel_count, figures.first);
    EXPECT_NEAR(double(device_rows[hlo_op]->total_ps), figures.second, 1e-6 * figures.second + 1);
  }
}

}  // namespace
}  // namespace mlprof::analysis
