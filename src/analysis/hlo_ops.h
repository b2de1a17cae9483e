// XLA's ops on each device, gathered once for the op profile, the HLO op stats and the roofline
// model (docs/ARCHITECTURE.md §3.2): what XProf calls the device's op metrics database.
//
// Where the ops are: a TPU (or GPU) plane's "XLA Ops" line, whose events are HLO instructions
// carrying `hlo_category`, `flops`, `bytes_accessed`, `memory_access_breakdown`, `program_id`,
// `source`... (XProf: xprof/convert/xplane_to_op_metrics_db.cc,
// ConvertTensorCoreDeviceTraceXPlaneToOpMetricsDb, which reads only op lines; the "Async XLA
// Ops" line is not device time there and is counted apart here); else a GPU's stream kernels
// that name their HLO op (`hlo_op`, `hlo_module`: JAX on ROCm and CUDA).
//
// An op's time is its device timespan (`device_duration_ps` where the event has it, as XProf's
// GetDeviceEventTimespan), its self time that less the time of the ops it encloses on its line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// The op's name from an HLO instruction's text: "%copy-done.2 = (f32[...]) copy-done(...)" is
// "copy-done.2" (the name up to the first space, without XLA's '%').
std::string_view hlo_op_name_of_text(std::string_view text);

// Where a TPU core sits in the mesh (`core_details`: XProf's CoreDetails in op_stats.proto);
// -1 when the file does not say.
struct CorePlace {
  int64_t global_chip_id = -1, global_core_id = -1;
};
CorePlace core_place(const model::Profile& profile, uint32_t plane);

// A device plane's peaks (`peak_teraflops_per_second`, `peak_hbm_bw_gigabytes_per_second`,
// 10^9 bytes/s); 0 where the file does not give one.
struct DevicePeaks {
  double tflops = 0, hbm_gbps = 0;
};
DevicePeaks device_peaks(const model::Profile& profile, uint32_t plane);

// One device (a TPU chip, a GPU) that ran XLA ops.
struct HloDevice {
  uint32_t plane = 0;
  std::string name;         // "/device:TPU:0"
  std::string host;         // the host the device belongs to
  uint32_t ordinal = 0;
  std::string device_type;  // `device_type_string` ("TPU v6 Lite"), else the plane's type ("GPU")
  // Where the core sits in the TPU mesh (`core_details`: XProf's CoreDetails in op_stats.proto);
  // -1 when the file does not say.
  int64_t global_chip_id = -1, global_core_id = -1;
  double peak_tflops = 0;   // `peak_teraflops_per_second`; 0: not in the file
  double peak_hbm_gbps = 0; // `peak_hbm_bw_gigabytes_per_second` (10^9 bytes/s); 0: not in the file
  int64_t busy_ps = 0;      // time any op ran (the sum of the outermost ops' times)
  uint64_t async_ops = 0;   // "Async XLA Ops" events (copy-start/-done pairs...), not in busy_ps
};

// One HLO op on one device, over all its runs.
struct HloOp {
  uint32_t device = 0;      // index into HloOps::devices
  std::string program;      // its module, "jit_train_step(2041036616644817336)"; "" when unknown
  std::string name;         // "fusion.12"
  std::string category;     // `hlo_category`, else the name without XLA's numbering ("copy" for copy.1)
  std::string expression;   // the instruction's full text where the file has it
  std::string provenance;   // `tf_op`: the framework op (JAX's "jit(f)/jit(main)/dot_general:")
  std::string source;       // `source`: "file.py:37"
  std::string source_stack; // `source_stack`
  uint64_t occurrences = 0;
  int64_t time_ps = 0;      // its own runs, ops nested in it included
  int64_t self_ps = 0;      // less the ops it encloses
  double flops = 0;         // XLA's count for all runs (`flops`)
  double model_flops = 0;   // `model_flops`
  double bytes_accessed = 0;   // all memories (`bytes_accessed`)
  double hbm_bytes = 0;        // off-chip memory: the HBM reads and writes of
                               // `memory_access_breakdown`, else bytes_accessed (XProf's rule
                               // for files without a breakdown, SetRooflineMetrics)
  // Async pairs (copy-start/copy-done, all-reduce-start/-done, send/send-done...): the other
  // half's name, and the pairs' spans, from each start's begin to its done's end. The transfer
  // runs over that span while other ops run: a half's own time is the core issuing or waiting.
  std::string async_partner;   // "" when not a half of a pair
  bool async_start = false;    // the start half
  uint64_t async_pairs = 0;    // runs matched with the other half
  int64_t async_span_ps = 0;   // their spans, summed
};

// The time an op's rates are taken over: its own time, or for a half of an async pair the
// pairs' spans (mlprof differs from XProf here on purpose: a copy-start's bytes over its
// sub-microsecond issue time read as billions of GiB/s).
int64_t rate_time_ps(const HloOp& op);

// An async pair's halves, from the op's name and text: "copy-done.2" with operand
// "%copy-start.2" is the done half whose start is "copy-start.2".
bool is_async_start(std::string_view op_name);
bool is_async_done(std::string_view op_name);
// The op a done half completes: the last %operand of its text ("" when none).
std::string_view async_start_of(std::string_view done_text);

// Stats the tools read that the file lacks: what each missing one takes away.
struct MissingStat {
  std::string stat;  // "flops"
  std::string lost;  // "FLOP rates and FLOP utilisation"
};

struct HloOps {
  std::vector<HloDevice> devices;  // by host, then plane order
  std::vector<HloOp> ops;          // by device, then first run
  std::vector<MissingStat> missing;
  uint64_t async_halves = 0;  // ops that are a half of an async pair

  bool empty() const { return ops.empty(); }
  // "TPU v6 Lite" when every device says the same, else "" (mixed or unknown).
  std::string common_device_type() const;
};

HloOps collect_hlo_ops(const model::Profile& profile);

// A GPU kernel's op given its tf_op: JAX gives every XLA kernel the tf_op "XlaModule:", and
// its `hlo_op` stat names the op it ran for; any other tf_op is the op.
model::StringId xla_kernel_op(const model::Profile& profile, model::EventIndex kernel, model::StringId tf_op);

// The name a timeline shows for an event: on an XLA op line ("XLA Ops", "Async XLA Ops") the
// HLO op its text names ("copy-done.2"; XProf's display name on the ops line, while the async
// line's is only "async-copy"), the whole text going with it as `long_name`; any other event
// keeps its name (TensorFlow's display names drop the op's scope, which its users read). A view
// into the profile's strings.
std::string_view timeline_title(const model::Profile& profile, const model::Line& line, model::EventIndex e);
// Whether the line's events are XLA ops (named by their HLO instruction's text).
bool is_xla_op_line(const model::Profile& profile, const model::Line& line);

// Whether a profile has XLA ops at all (cheap: looks for the lines and stats, not the ops).
bool has_hlo_ops(const model::Profile& profile);

// Shared arithmetic of the three tools, as XProf defines it (xprof/convert/op_metrics_to_record.h).
// FLOP utilisation: flops / (time x peak FLOP rate); HBM utilisation: HBM bytes / (time x peak
// HBM bandwidth); both per device, uncapped (XProf's `uncapped_flops`), 0 without a peak.
double flop_utilisation(double flops, int64_t time_ps, double peak_tflops);
double hbm_utilisation(double hbm_bytes, int64_t time_ps, double peak_hbm_gbps);
// The roofline (xprof/convert/op_stats_to_roofline_model.cc): the ridge point in FLOP/byte,
// peak FLOP rate / peak HBM bandwidth, and the roof at an HBM operational intensity in
// GFLOP/s, min(peak, intensity x bandwidth) (XProf's optimal_flop_rate); 0 without peaks.
double ridge_point(double peak_tflops, double peak_hbm_gbps);
double roof_gflops(double hbm_intensity, double peak_tflops, double peak_hbm_gbps);
// XProf's "bound by" (SetRooflineMetrics): the resource closer to its peak, "Compute" or "HBM";
// "Unknown" when neither is known.
std::string_view bound_by(double flop_util, double hbm_util);

// The one line that says what a missing stat takes away.
std::string missing_stat_line(const MissingStat& m);

}  // namespace mlprof::analysis
