// roofline_model: each op's operational intensity (FLOPs per byte of HBM traffic) and attained
// FLOP rate against its device's roofline: the peak FLOP rate (`peak_teraflops_per_second`)
// and the HBM bandwidth (`peak_hbm_bw_gigabytes_per_second`), which meet at the ridge point.
// Per device, with a point for the device as a whole and one per program. XProf's tool of the
// same name (xprof/convert/op_stats_to_roofline_model.cc, ConvertOpStatsToRooflineModel, and
// SetRooflineMetrics in xprof/convert/op_metrics_to_record.h for the rates, intensities and
// "bound by"). On GPUs the points exist where the file has XLA's `flops`; without peaks the
// ridge point and roof are 0 and a note says which stat was missing.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/hlo_ops.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct RooflinePoint {
  std::string device;   // "/device:TPU:0"
  std::string program;  // "" for the device's total
  std::string category, name;  // ops only
  uint64_t occurrences = 0;
  int64_t time_ps = 0, self_ps = 0;
  int64_t rate_ps = 0;  // the time the rates are over: an op's own time, an async half's pair spans
  double flops = 0, bytes_accessed = 0, hbm_bytes = 0;
  double operational_intensity = 0;      // flops / bytes_accessed (XProf: operational_intensity)
  double hbm_operational_intensity = 0;  // flops / HBM bytes: the roofline's x
  double attained_gflops_per_s = 0;      // flops / time: the roofline's y
  double hbm_gib_per_s = 0;
  double roof_gflops_per_s = 0;   // min(peak, HBM intensity x HBM bandwidth); 0 without peaks
  double roof_fraction = 0;       // attained / roof
  std::string bound_by;           // "Compute", "HBM" or "Unknown"
};

struct RooflineDevice {
  std::string device, host, device_type;
  double peak_tflops = 0, peak_hbm_gbps = 0;
  int64_t global_chip_id = -1;  // in the TPU mesh (core_details), -1 when unknown
  double ridge_point = 0;  // FLOP/byte where the roofs meet: peak FLOP rate / HBM bandwidth
  int64_t busy_ps = 0;
  RooflinePoint total;                  // all its ops (the sum of the outermost ops' figures)
  std::vector<RooflinePoint> programs;  // by time, longest first
};

struct RooflineModel {
  std::vector<RooflineDevice> devices;  // one per chip or GPU
  std::vector<RooflinePoint> ops;       // per device and op, by device then time, longest first
  std::vector<std::string> notes;       // one line per missing stat
};

RooflineModel compute_roofline_model(const HloOps& ops);
RooflineModel compute_roofline_model(const model::Profile& profile);

nlohmann::json to_json(const RooflineModel& model);
std::string to_csv(const RooflineModel& model);  // the device, program and op points

}  // namespace mlprof::analysis
