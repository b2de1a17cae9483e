// The critical path against Holistic Trace Analysis's, on the traces of HTA's own tests.
//
// Expected values: HolisticTraceAnalysis 0.6.1, run from its public source
// (github.com/facebookresearch/HolisticTraceAnalysis, tag v0.6.1) with Debian's Python packages:
//   TraceAnalysis(trace_dir).critical_path_analysis(rank=0,
//       annotation="[param|pytorch.model.alex_net|0|0|0|measure|forward]", instance_id=0)
//   (hta/analyzers/critical_path_analysis.py: CriticalPathAnalysis.critical_path_analysis), then
//   CPGraph.get_critical_path_breakdown(): the sum of `duration` over the path's edges is the
//   path's length; the edges on CUDA streams name the kernels on the path.
// The simple_add overlay (wild/hta_extra/*overlaid_critical_path*) is HTA's own answer over the
// whole trace (hta/analyzers/critical_path_analysis.py: overlay_critical_path_analysis): the
// events it marks `critical`.
//
// Where mlprof differs, and why:
//   - Length: HTA weighs the time between two ops on a thread as nothing (its DEPENDENCY edges
//     weigh 0), so its path is shorter than the span it covers; mlprof's path is the span itself
//     (time no op covers counts: the program ran there), longer by that time: 0.7 % on simple_add,
//     1.1 % on AlexNet.
//   - Kernels: with those gaps free, HTA's longest path can run through kernels the host never
//     waited for (on simple_add: the last three GEMMs end 0.24 ms before the cudaDeviceSynchronize
//     that follows them begins); mlprof's path only reaches a kernel through a host call that
//     waited for it, or through the span's end. On AlexNet the path's largest kernels are the
//     same, and HTA's cuDNN FFT and gcgemm kernels (0.5 ms of its 78.8 ms) are on mlprof's path
//     too: the host waits for them in cudaEventSynchronize calls on the events recorded after
//     them (event_waits.h).
//   - HTA reads times in whole microseconds; mlprof keeps the trace's own.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "analysis/critical_path/critical_path.h"
#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/longest_path.h"
#include "analysis/step_breakdown.h"
#include "model/load_profile.h"
#include "testdata_files.h"

namespace mlprof::analysis {
namespace {

constexpr std::string_view kForward = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

struct PathOfFirstInstance {
  double path_ms = 0;
  std::map<std::string, int> kernels;  // name -> edges on the path
};

bool load(const std::string& file, model::Profile* p) { return testing::load_testdata_profile(file, p); }

PathOfFirstInstance first_instance(const model::Profile& p) {
  const StepAnalysis steps = analyze_steps(p);
  const DependencyGraph g = build_dependency_graph(p, steps, annotation_spans(p, kForward));
  PathOfFirstInstance out;
  if (g.steps.empty()) return out;
  const Replay r = replay(g, nullptr, 1, true);
  out.path_ms = double(replayed_duration_ps(g, r, g.steps[0])) / 1e9;
  for (const PathPiece& piece : critical_path(g, r, g.steps[0])) {
    if (piece.edge == UINT32_MAX) continue;
    const PathEdge& e = g.edges[piece.edge];
    if (e.event != model::kNone && p.plane_of(e.event).kind == model::PlaneKind::kDevice && piece.ps > 0)
      ++out.kernels[std::string(p.name(e.event))];
  }
  return out;
}

#define LOAD_OR_SKIP(file, p) \
  if (!load(file, &p)) GTEST_SKIP() << file << " not found (it is in ../shared/testdata)"

bool on_path(const PathOfFirstInstance& got, std::string_view kernel_prefix) {
  for (const auto& [name, n] : got.kernels)
    if (name.starts_with(kernel_prefix)) return true;
  return false;
}

// HTA: path 294.696 ms, of it cpu_bound 294.162 ms, gpu_compute_bound 0.508 ms, launch and
// kernel-kernel overhead 0.026 ms; the annotation spans 296.813 ms.
TEST(CriticalPathHta, SimpleAddIsHostBoundAsInHta) {
  model::Profile p;
  LOAD_OR_SKIP("pytorch/critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz", p);
  const PathOfFirstInstance got = first_instance(p);
  EXPECT_NEAR(got.path_ms, 296.813, 0.001);  // the span: mlprof's path covers it
  EXPECT_GE(got.path_ms, 294.696);
  EXPECT_NEAR(got.path_ms, 294.696, 294.696 * 0.01);
  const CriticalPath c = compute_critical_path_of_annotation(p, analyze_steps(p), kForward);
  ASSERT_FALSE(c.steps.empty());
  const auto& kinds = c.steps[0].kind_ms;
  // HTA: 99.8 % cpu_bound (host work and launches).
  EXPECT_GT(kinds[size_t(PathKind::kHost)] + kinds[size_t(PathKind::kKernelLaunch)], 0.99 * got.path_ms);
  EXPECT_EQ(c.bottleneck(), PathKind::kHost);
}

// HTA: path 78.776 ms: cpu_bound 74.984, gpu_compute_bound 3.712, kernel-kernel 0.050, launch
// 0.030; its largest kernels on the path ampere_sgemm_32x32_sliced1x4_tn (1.306 ms, 6 edges)
// and sm80_xmma_fprop_implicit_gemm..._cudnn (0.916 ms, 6 edges), then nchwToNhwcKernel,
// elementwise_kernel, vectorized_elementwise_kernel, max_pool_forward_nchw,
// adaptive_average_pool, epilogue::impl::globalKernel, fused_dropout_kernel_vec.
TEST(CriticalPathHta, AlexNetLengthAndKernelsAsInHta) {
  model::Profile p;
  LOAD_OR_SKIP("wild/hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz", p);
  const PathOfFirstInstance got = first_instance(p);
  EXPECT_GE(got.path_ms, 78.776);
  EXPECT_NEAR(got.path_ms, 78.776, 78.776 * 0.015);
  for (std::string_view k : {"ampere_sgemm_32x32_sliced1x4_tn", "sm80_xmma_fprop_implicit_gemm",
                             "void cudnn::ops::nchwToNhwcKernel", "void at::native::elementwise_kernel",
                             "void at::native::vectorized_elementwise_kernel", "void epilogue::impl::globalKernel",
                             "void at::native::(anonymous namespace)::max_pool_forward_nchw",
                             "void at::native::(anonymous namespace)::adaptive_average_pool",
                             "void at::native::(anonymous namespace)::fused_dropout_kernel_vec"})
    EXPECT_TRUE(on_path(got, k)) << k;
  // Behind cudaEventSynchronize calls that wait for the kernel their event recorded.
  for (std::string_view k : {"ampere_gcgemm_64x64_nt", "void fft2d_c2r_32x32"}) EXPECT_TRUE(on_path(got, k)) << k;
  // HTA lists six sgemm edges: three kernels, each with its span and the delay before it.
  EXPECT_EQ(got.kernels.at("ampere_sgemm_32x32_sliced1x4_tn"), 3);
  const CriticalPath c = compute_critical_path_of_annotation(p, analyze_steps(p), kForward);
  ASSERT_FALSE(c.steps.empty());
  // HTA's gpu_compute_bound 3.712 ms; mlprof's device compute on the path, within 20 %.
  EXPECT_NEAR(c.steps[0].kind_ms[size_t(PathKind::kDeviceCompute)], 3.712, 3.712 * 0.2);
}

// HTA's overlay over the whole simple_add trace marks the 16 host-to-device copies (39.080 ms
// together) critical: the same copies carry the path's copy time in mlprof, over the whole
// profile as one span (its steps, found from its repeated kernels, leave the copies before
// them out).
TEST(CriticalPathHta, SimpleAddOverlayCopies) {
  model::Profile p;
  LOAD_OR_SKIP("pytorch/critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz", p);
  int64_t begin = INT64_MAX, end = INT64_MIN;
  for (model::EventIndex e = 0; e < p.num_events(); ++e)
    begin = std::min(begin, p.start_ps(e)), end = std::max(end, p.end_ps(e));
  const StepSpan whole{0, 0, begin, end, model::kNone, 0};
  const CriticalPath c = compute_critical_path_of_spans(p, analyze_steps(p), {whole});
  ASSERT_EQ(c.steps.size(), 1u);
  EXPECT_NEAR(c.steps[0].kind_ms[size_t(PathKind::kCopies)], 39.080, 0.01);  // and a 2 µs memset
  ASSERT_FALSE(c.top_kernels.empty());
  EXPECT_EQ(c.top_kernels[0].name, "Memcpy HtoD (Pageable -> Device)");
}

}  // namespace
}  // namespace mlprof::analysis
