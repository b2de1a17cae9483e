// The roofline arithmetic of the XLA op tools (analysis/hlo_ops.h: ridge_point, roof_gflops,
// bound_by, flop_utilisation, hbm_utilisation) against XProf's own answers: its roofline_model
// tool on a TPU v5 training profile, ../shared/testdata/wild/xprof/golden_tpu_training_no_input/
// (XProf's definitions: SetRooflineMetrics in xprof/convert/op_metrics_to_record.h and
// xprof/convert/op_stats_to_roofline_model.cc). The table's header gives the device's peaks
// (peak_flop_rate in GFLOP/s, peak_hbm_bw in GiB/s) and the ridge point; each row an op's
// measured FLOP rate, HBM bandwidth (GiB/s), HBM operational intensity, "bound by" and
// optimal_flop_rate, the roof at its intensity.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/hlo_ops.h"
#include "testdata_files.h"

namespace mlprof::analysis {
namespace {

using mlprof::testing::gunzip;

const std::string kGolden = std::string(MLPROF_TESTDATA) +
                            "/wild/xprof/golden_tpu_training_no_input/"
                            "xprof__golden_data_tpu-training_roofline_model_tpu_training.json.gz";
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(XlaOpsGolden, RidgePointRoofAndBoundByAreXProfs) {
  if (!std::filesystem::exists(kGolden)) GTEST_SKIP() << kGolden << " not found (it is in ../shared/testdata)";
  const nlohmann::json tables = nlohmann::json::parse(gunzip(kGolden));
  const nlohmann::json& table = tables.at(0);
  const nlohmann::json& props = table.at("p");
  const double peak_gflops = std::stod(props.at("peak_flop_rate").get<std::string>());
  const double peak_hbm_gbps = std::stod(props.at("peak_hbm_bw").get<std::string>()) * kGiB / 1e9;
  const double peak_tflops = peak_gflops / 1e3;
  EXPECT_EQ(props.at("device_type"), "TPU v5");
  EXPECT_NEAR(ridge_point(peak_tflops, peak_hbm_gbps), std::stod(props.at("hbm_ridge_point").get<std::string>()),
              1e-3);

  std::map<std::string, size_t> column;
  for (size_t i = 0; i < table.at("cols").size(); ++i) column[table["cols"][i].at("id")] = i;
  auto value = [&](const nlohmann::json& row, const char* id) -> const nlohmann::json& {
    return row.at("c").at(column.at(id)).at("v");
  };
  size_t checked = 0;
  for (const nlohmann::json& row : table.at("rows")) {
    const std::string xprof_bound = value(row, "bound_by");
    if (xprof_bound != "Compute" && xprof_bound != "HBM") continue;  // "Unknown": no time or no figures
    // One second of the op at its measured rates, through the tools' own functions.
    const int64_t one_second_ps = 1'000'000'000'000;
    const double flops = value(row, "measured_flop_rate").get<double>() * 1e9;
    const double hbm_bytes = value(row, "hbm_bw").get<double>() * kGiB;
    const std::string name = value(row, "operation");
    EXPECT_EQ(bound_by(flop_utilisation(flops, one_second_ps, peak_tflops),
                       hbm_utilisation(hbm_bytes, one_second_ps, peak_hbm_gbps)),
              xprof_bound)
        << name;
    const double intensity = value(row, "hbm_operational_intensity").get<double>();
    const double optimal = value(row, "optimal_flop_rate").get<double>();
    if (intensity > 0) {
      EXPECT_NEAR(roof_gflops(intensity, peak_tflops, peak_hbm_gbps), optimal, 1e-6 * optimal) << name;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 622u);  // the rows XProf says are compute- or HBM-bound
}

}  // namespace
}  // namespace mlprof::analysis
