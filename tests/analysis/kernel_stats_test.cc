// kernel_stats: kernel_details of both spellings, Tensor Core names and eligible ops, rows of a
// hand-built GPU profile, and what the tool finds in TensorFlow's and PyTorch's own files (pinned,
// so that a regression shows).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "analysis/kernel_stats.h"
#include "analysis/training_profile.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

TEST(KernelDetails, NewAndOldSpellings) {
  const KernelLaunchConfig c =
      parse_kernel_details("regs:40 static_shared:1024 dynamic_shared:49152 grid:64,2,1 block:256,1,1 occ_pct:25.0");
  EXPECT_EQ(c.registers_per_thread, 40);
  EXPECT_EQ(c.static_shared_bytes, 1024);
  EXPECT_EQ(c.dynamic_shared_bytes, 49152);
  EXPECT_EQ(c.grid, (std::array<int64_t, 3>{64, 2, 1}));
  EXPECT_EQ(c.block, (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_DOUBLE_EQ(c.occupancy_pct, 25.0);

  const KernelLaunchConfig old = parse_kernel_details("regs:38 shm:512 grid:160,1,1 block:1024,1,1");
  EXPECT_EQ(old.registers_per_thread, 38);
  EXPECT_EQ(old.static_shared_bytes, 512);
  EXPECT_EQ(old.dynamic_shared_bytes, 0);
  EXPECT_EQ(old.grid, (std::array<int64_t, 3>{160, 1, 1}));
  EXPECT_DOUBLE_EQ(old.occupancy_pct, -1);

  const KernelLaunchConfig empty = parse_kernel_details("");
  EXPECT_EQ(empty.registers_per_thread, 0);
  EXPECT_EQ(empty.grid, (std::array<int64_t, 3>{0, 0, 0}));
}

TEST(TensorCores, KernelNamesOfNvidiasLibraries) {
  for (const char* name : {"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", "volta_h884gemm_64x64_nn",
                           "turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn", "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn",
                           "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw",
                           "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
                           "cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4", "void cutlass::Kernel<cutlass_80_wmma_tensorop_h161616gemm>",
                           "volta_int8_i8816gemm_128x128_nn", "sm90_gemm_wgmma_f16"})
    EXPECT_TRUE(kernel_uses_tensor_cores(name)) << name;
  for (const char* name : {"volta_sgemm_128x64_nn", "ampere_sgemm_32x32_sliced1x4_tn", "cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1",
                           "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
                           "ampere_gcgemm_64x64_nt"})
    EXPECT_FALSE(kernel_uses_tensor_cores(name)) << name;
}

TEST(TensorCores, EligibleOps) {
  for (const char* op : {"aten::conv2d", "aten::cudnn_convolution", "aten::convolution_backward", "aten::_convolution",
                         "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
                         "aten::einsum", "aten::lstm", "aten::gru_cell", "aten::_cudnn_rnn",
                         "model/conv1/Conv2D:Conv2D", "dense/MatMul:MatMul", "attn/BatchMatMulV2:BatchMatMulV2",
                         "grad/Conv2DBackpropFilter:Conv2DBackpropFilter", "rnn/CudnnRNN:CudnnRNN", "cell/LSTMBlockCell:LSTMBlockCell"})
    EXPECT_TRUE(op_is_tensor_core_eligible(op)) << op;
  for (const char* op : {"aten::add_", "aten::cudnn_batch_norm", "aten::relu", "cast/Cast:Cast", "aten::convert_element_type",
                         "Convert", "", "aten::max_pool2d_with_indices", "forward"})
    EXPECT_FALSE(op_is_tensor_core_eligible(op)) << op;
}

// A device with a compute stream (kernels, a memset) and a copy stream; the host launches.
model::Profile gpu_profile() {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* compute = gpu.line(7, "Stream #7(Compute,Memset)", 0);
  auto* copies = gpu.line(8, "Stream #8(MemcpyH2D)", 0);
  const std::string gemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn";
  const std::string details = "regs:128 static_shared:0 dynamic_shared:49152 grid:64,1,1 block:256,1,1 occ_pct:25.0";
  for (int i = 0; i < 3; ++i) {
    const int64_t t0 = i * 100 * kPsPerUs;
    const uint64_t id = 10 * uint64_t(i);
    // A plain CUDA program: its kernels' op is the annotation around the launch.
    host.event(main, "forward", t0, 50 * kPsPerUs);
    host.event(main, "cudaLaunchKernel", t0 + 1 * kPsPerUs, 2 * kPsPerUs, {{"correlation_id", id + 1}});
    host.event(main, "cudaLaunchKernel", t0 + 4 * kPsPerUs, 2 * kPsPerUs, {{"correlation_id", id + 2}});
    host.event(main, "cudaMemcpyAsync", t0 + 7 * kPsPerUs, 2 * kPsPerUs, {{"correlation_id", id + 3}});
    gpu.event(compute, gemm, t0 + 10 * kPsPerUs, (20 + i) * kPsPerUs,
              {{"correlation_id", id + 1}, {"kernel_details", details}, {"tf_op", std::string("aten::mm")}});
    gpu.event(compute, "relu_kernel", t0 + 31 * kPsPerUs, 4 * kPsPerUs,
              {{"correlation_id", id + 2}, {"kernel_details", std::string("regs:16 shm:0 grid:8,1,1 block:128,1,1")}});
    gpu.event(compute, "Memset", t0 + 36 * kPsPerUs, 1 * kPsPerUs, {{"memset_details", std::string("kind:device size:4")}});
    gpu.event(copies, "MemcpyH2D", t0 + 40 * kPsPerUs, 5 * kPsPerUs, {{"correlation_id", id + 3}});
  }
  return import_space(space);
}

TEST(KernelStats, OneRowPerKernelConfigurationAndOp) {
  const KernelStatsTable t = compute_kernel_stats(gpu_profile());
  ASSERT_EQ(t.rows.size(), 2u);  // copies and memsets are no kernels
  EXPECT_EQ(t.launches, 6u);
  EXPECT_EQ(t.total_ps, (20 + 21 + 22 + 3 * 4) * kPsPerUs);

  const KernelStatsRow& gemm = t.rows[0];
  EXPECT_EQ(gemm.kernel_name, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn");
  EXPECT_EQ(gemm.op_name, "aten::mm");
  EXPECT_EQ(gemm.occurrences, 3u);
  EXPECT_EQ(gemm.total_ps, 63 * kPsPerUs);
  EXPECT_EQ(gemm.min_ps, 20 * kPsPerUs);
  EXPECT_EQ(gemm.max_ps, 22 * kPsPerUs);
  EXPECT_EQ(gemm.avg_ps(), 21 * kPsPerUs);
  EXPECT_EQ(gemm.config.registers_per_thread, 128);
  EXPECT_EQ(gemm.config.dynamic_shared_bytes, 49152);
  EXPECT_TRUE(gemm.uses_tensor_cores);
  EXPECT_TRUE(gemm.op_tensor_core_eligible);

  const KernelStatsRow& relu = t.rows[1];
  EXPECT_EQ(relu.kernel_name, "relu_kernel");
  EXPECT_EQ(relu.op_name, "forward");  // found through the launch's correlation id
  EXPECT_EQ(relu.occurrences, 3u);
  EXPECT_FALSE(relu.uses_tensor_cores);
  EXPECT_FALSE(relu.op_tensor_core_eligible);

  EXPECT_EQ(t.tensor_core_ps, 63 * kPsPerUs);
  EXPECT_EQ(t.eligible_without_tensor_cores_ps, 0);

  const nlohmann::json j = to_json(t);
  EXPECT_EQ(j["summary"]["kernel_launches"], 6);
  EXPECT_EQ(j["summary"]["distinct_kernels"], 2);
  EXPECT_NEAR(j["summary"]["total_kernel_time_ms"].get<double>(), 0.075, 1e-12);
  EXPECT_NEAR(j["summary"]["tensor_core_time_pct"].get<double>(), 84.0, 1e-9);
  const auto& row = j["kernels"][0];
  EXPECT_EQ(row["rank"], 1);
  EXPECT_EQ(row["grid"], nlohmann::json::array({64, 1, 1}));
  EXPECT_EQ(row["block"], nlohmann::json::array({256, 1, 1}));
  EXPECT_EQ(row["occurrences"], 3);
  EXPECT_NEAR(row["total_duration_us"].get<double>(), 63.0, 1e-9);
  EXPECT_NEAR(row["avg_duration_us"].get<double>(), 21.0, 1e-9);
  EXPECT_NEAR(row["min_duration_us"].get<double>(), 20.0, 1e-9);
  EXPECT_NEAR(row["max_duration_us"].get<double>(), 22.0, 1e-9);
  EXPECT_NEAR(row["occupancy_pct"].get<double>(), 25.0, 1e-9);
  EXPECT_EQ(row["uses_tensor_cores"], true);
  EXPECT_EQ(row["op_is_tensor_core_eligible"], true);
  EXPECT_TRUE(j["kernels"][1]["occupancy_pct"].is_null());

  // Each kernel also says what kind of device work it is and its precision (docs/ARCHITECTURE.md §5.11):
  // an fp16 cuBLAS GEMM is 16-bit compute.
  EXPECT_EQ(row["work"], "compute");
  EXPECT_EQ(row["precision"], "bits16");
  const std::string csv = to_csv(t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "rank,kernel_name,op_name,grid,block,registers_per_thread,static_shared_memory_bytes,"
            "dynamic_shared_memory_bytes,occupancy_pct,occurrences,total_duration_us,avg_duration_us,min_duration_us,"
            "max_duration_us,total_time_pct,uses_tensor_cores,op_is_tensor_core_eligible,work,precision");
  EXPECT_NE(csv.find("\n1,ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn,aten::mm,\"64,1,1\",\"256,1,1\",128,0,49152,25,3,63,21,20,22,84,true,true,compute,bits16\n"),
            std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
}

TEST(KernelStats, AProfileWithoutDevicesHasNoRows) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  host.event(host.line(1, "main", 0), "work", 0, kPsPerMs);
  const KernelStatsTable t = compute_kernel_stats(import_space(space));
  EXPECT_TRUE(t.rows.empty());
  EXPECT_EQ(to_json(t)["summary"]["tensor_core_time_pct"], 0.0);
}

// ---- Real files ----------------------------------------------------------------------------

std::string testdata(const std::string& file) { return std::string(MLPROF_TESTDATA) + "/" + file; }

KernelStatsTable stats_of(const std::string& file) {
  model::Profile p;
  model::LoadError error;
  EXPECT_TRUE(model::load_profile({testdata(file), "", ""}, &p, &error)) << error.path << ": " << error.problem;
  return compute_kernel_stats(p);
}

#define SKIP_WITHOUT(file)                                                                                   \
  if (!std::filesystem::exists(testdata(file)))                                                              \
  GTEST_SKIP() << testdata(file) << " not found (the real profiles are in ../shared/testdata)"

TEST(KernelStatsFiles, TensorFlowBertOnV100) {
  const std::string file = "tensorflow/gpu_multi_worker.xplane.pb";
  SKIP_WITHOUT(file);
  const KernelStatsTable t = stats_of(file);
  // Every kernel ran for its own op ("level 0" names replica and layer): one row each.
  EXPECT_EQ(t.launches, 1330u);
  EXPECT_EQ(t.rows.size(), 1330u);
  EXPECT_NEAR(double(t.total_ps) / 1e9, 29.690748, 1e-6);
  ASSERT_FALSE(t.rows.empty());
  const KernelStatsRow& top = t.rows[0];
  EXPECT_EQ(top.op_name, "replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast:Cast");
  EXPECT_TRUE(top.kernel_name.starts_with("void Eigen::internal::EigenMetaKernel<")) << top.kernel_name;
  EXPECT_NEAR(double(top.total_ps) / 1e6, 246.783, 1e-3);
  EXPECT_EQ(top.config.registers_per_thread, 16);
  EXPECT_EQ(top.config.grid, (std::array<int64_t, 3>{160, 1, 1}));
  EXPECT_EQ(top.config.block, (std::array<int64_t, 3>{1024, 1, 1}));
  // The captured steps hold only element-wise kernels (casts, dropout): no Tensor Core work.
  EXPECT_EQ(t.tensor_core_ps, 0);
  EXPECT_EQ(t.eligible_ps, 0);
}

TEST(KernelStatsFiles, PyTorchResNetOnV100InFloat32) {
  const std::string file = "pytorch/ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
  SKIP_WITHOUT(file);
  const KernelStatsTable t = stats_of(file);
  EXPECT_EQ(t.launches, 4350u);
  EXPECT_EQ(t.rows.size(), 205u);
  EXPECT_NEAR(double(t.total_ps) / 1e9, 468.153602, 1e-6);
  const KernelStatsRow& top = t.rows[0];
  EXPECT_TRUE(top.kernel_name.starts_with("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>"))
      << top.kernel_name;
  EXPECT_EQ(top.op_name, "aten::cudnn_batch_norm_backward");
  EXPECT_EQ(top.occurrences, 20u);
  EXPECT_NEAR(double(top.total_ps) / 1e6, 15924.99, 1e-2);
  EXPECT_EQ(top.config.registers_per_thread, 40);
  EXPECT_DOUBLE_EQ(top.config.occupancy_pct, 75.0);
  // Float32 convolutions and matrix products on a V100: eligible, but no kernel used Tensor Cores.
  EXPECT_EQ(t.tensor_core_ps, 0);
  EXPECT_NEAR(100.0 * double(t.eligible_without_tensor_cores_ps) / double(t.total_ps), 64.348, 1e-3);
  size_t sgemm_rows = 0;
  for (const KernelStatsRow& r : t.rows) sgemm_rows += r.kernel_name.starts_with("volta_sgemm") && r.op_tensor_core_eligible;
  EXPECT_GT(sgemm_rows, 0u);
}

TEST(KernelStatsFiles, PyTorchOnA100WithTf32Convolutions) {
  const std::string file = "pytorch/critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz";
  SKIP_WITHOUT(file);
  const KernelStatsTable t = stats_of(file);
  EXPECT_EQ(t.launches, 79u);
  EXPECT_EQ(t.rows.size(), 33u);
  EXPECT_NEAR(double(t.total_ps) / 1e9, 10.728, 1e-9);
  const KernelStatsRow& top = t.rows[0];
  EXPECT_EQ(top.kernel_name, "ampere_sgemm_32x32_sliced1x4_tn");
  EXPECT_EQ(top.op_name, "aten::addmm");
  EXPECT_EQ(top.occurrences, 4u);
  EXPECT_NEAR(double(top.total_ps) / 1e6, 2478.0, 1e-9);
  EXPECT_FALSE(top.uses_tensor_cores);
  EXPECT_TRUE(top.op_tensor_core_eligible);
  // cuDNN's TF32 implicit-GEMM convolution is the one Tensor Core kernel.
  int64_t xmma_ps = 0;
  for (const KernelStatsRow& r : t.rows)
    if (r.uses_tensor_cores) {
      EXPECT_TRUE(r.kernel_name.starts_with("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32")) << r.kernel_name;
      EXPECT_EQ(r.op_name, "aten::cudnn_convolution");
      xmma_ps += r.total_ps;
    }
  EXPECT_EQ(xmma_ps, t.tensor_core_ps);
  EXPECT_NEAR(100.0 * double(t.tensor_core_ps) / double(t.total_ps), 16.834, 1e-3);
  EXPECT_NEAR(100.0 * double(t.eligible_ps) / double(t.total_ps), 75.205, 1e-3);
}

}  // namespace
}  // namespace mlprof::analysis
