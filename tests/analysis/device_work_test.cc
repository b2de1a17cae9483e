// The one classification of device work (device_work.h) on names the vendors' tools write, and
// the precision and matrix units of kernels, with the answers their makers document: a name
// that says FP8 (E4M3) is FP8, Tensile's "_BBS_" GEMM takes bfloat16 inputs, an "_MI16x16x16"
// tile runs on AMD's matrix cores (MFMA).
#include <gtest/gtest.h>

#include "analysis/device_work.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/gpu_timeline/gpu_work_kind.h"
#include "gpu_timeline_builder.h"

namespace mlprof::analysis {
namespace {

TEST(DeviceWork, CopiesByDirectionWhateverTheVendorCallsThem) {
  EXPECT_EQ(device_work_of_name("Memcpy HtoD (Pageable -> Device)"), DeviceWork::kCopyHostToDevice);
  EXPECT_EQ(device_work_of_name("Memcpy DtoH (Device -> Pinned)"), DeviceWork::kCopyDeviceToHost);
  EXPECT_EQ(device_work_of_name("Memcpy DtoD (Device -> Device)"), DeviceWork::kCopyDeviceToDevice);
  EXPECT_EQ(device_work_of_name("MemcpyP2P"), DeviceWork::kCopyDeviceToDevice);
  EXPECT_EQ(device_work_of_name("CopyDeviceToDevice"), DeviceWork::kCopyDeviceToDevice);  // XLA on ROCm
  EXPECT_EQ(device_work_of_name("CopyHostToDevice"), DeviceWork::kCopyHostToDevice);
  EXPECT_EQ(device_work_of_name("hipMemcpyDtoH"), DeviceWork::kCopyDeviceToHost);
  EXPECT_EQ(device_work_of_name("Memset (Device)"), DeviceWork::kMemset);
  EXPECT_EQ(copy_kind_of_text("kind_src:device kind_dst:host size:16"), DeviceWork::kCopyDeviceToHost);
  EXPECT_EQ(copy_kind_of_text("DEVICE_TO_HOST"), DeviceWork::kCopyDeviceToHost);
}

TEST(DeviceWork, CollectivesOfEveryKind) {
  EXPECT_EQ(device_work_of_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            DeviceWork::kCollective);
  EXPECT_EQ(device_work_of_name("void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 8>()"),
            DeviceWork::kCollective);
  EXPECT_EQ(device_work_of_name("all-reduce.3"), DeviceWork::kCollective);
  EXPECT_EQ(device_work_of_name("all-gather-start.1"), DeviceWork::kCollective);
  EXPECT_EQ(device_work_of_name("%collective-permute-done = f32[8]{0} collective-permute-done(%x)"),
            DeviceWork::kCollective);
  EXPECT_EQ(device_work_of_name("rcclKernel"), DeviceWork::kCollective);
}

TEST(DeviceWork, XlaHostOffloadingIsACopyNotCompute) {
  // From the TPU v6e host-offloading profile: S(5) is the host's memory space.
  EXPECT_EQ(device_work_of_name("%copy-start.2 = (f32[5,1024]{1,0:T(8,128)}, f32[5,1024]{1,0:T(8,128)S(5)}, u32[]{:S(2)}) "
                                "copy-start(f32[5,1024]{1,0:T(8,128)} %param.1)"),
            DeviceWork::kCopyHostOffload);
  EXPECT_EQ(device_work_of_name("copy-done.1"), DeviceWork::kCopyHostOffload);
  EXPECT_EQ(device_work_of_name("%fusion.3 = f32[8]{0} fusion(f32[8]{0} %a), kind=kLoop"), DeviceWork::kCompute);
}

TEST(DeviceWork, DmaSyncComputeAndWhatIsUnknown) {
  EXPECT_EQ(device_work_of_name("dma_request"), DeviceWork::kDma);  // MTIA
  EXPECT_EQ(device_work_of_name("Stream Wait Event"), DeviceWork::kSync);
  EXPECT_EQ(device_work_of_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"),
            DeviceWork::kCompute);
  EXPECT_EQ(device_work_of_name("(null)"), DeviceWork::kOther);
  EXPECT_EQ(device_work_of_name(""), DeviceWork::kOther);
  // The GPU timeline's HTA kinds fold from it.
  EXPECT_EQ(gpu_work_kind(DeviceWork::kCollective), GpuWorkKind::kCommunication);
  EXPECT_EQ(gpu_work_kind(DeviceWork::kCopyHostOffload), GpuWorkKind::kMemory);
  EXPECT_EQ(gpu_work_kind(DeviceWork::kDma), GpuWorkKind::kMemory);
  EXPECT_EQ(gpu_work_kind(DeviceWork::kSync), GpuWorkKind::kOther);
}

// Work of unknown kind is "other", never guessed to be compute, with one warning naming each
// name once.
TEST(DeviceWork, UnknownKindsAreOtherAndNamedOnce) {
  testing::GpuTimelineBuilder b;
  b.kernel("sgemm", 7, 10, 5);
  b.kernel("(null)", 7, 20, 5);
  b.kernel("(null)", 7, 30, 5);
  b.kernel("runFunction_step", 7, 40, 5);
  const model::Profile p = b.profile();
  const GpuActivity gpu = collect_all_gpu_activity(p);
  ASSERT_EQ(gpu.hosts.size(), 1u);
  size_t other = 0;
  for (const GpuWork& w : gpu.hosts[0].work) other += w.kind == GpuWorkKind::kOther;
  EXPECT_EQ(other, 3u);
  ASSERT_EQ(gpu.hosts[0].warnings.size(), 1u);
  EXPECT_EQ(gpu.hosts[0].warnings[0],
            "device work of unknown kind read as other (not compute): (null), runFunction_step");
}

TEST(Precision, FromInputTypesAndHloShapes) {
  EXPECT_EQ(precision_of_types("[\"c10::BFloat16\", \"c10::BFloat16\", \"\"]"), Precision::kBits16);
  EXPECT_EQ(precision_of_types("[\"c10::Half\", \"float\"]"), Precision::kBits16);
  EXPECT_EQ(precision_of_types("[\"float\", \"float\"]"), Precision::kFp32);
  EXPECT_EQ(precision_of_types("[\"c10::Float8_e4m3fn\", \"float\"]"), Precision::kFp8);
  EXPECT_EQ(precision_of_types("bf16[8,128]{1,0}"), Precision::kBits16);
  EXPECT_EQ(precision_of_types("f8e5m2[64]{0}"), Precision::kFp8);
  EXPECT_EQ(precision_of_types("f32[5,1024]{1,0}"), Precision::kFp32);
  EXPECT_EQ(precision_of_types("[\"long int\"]"), Precision::kUnknown);
}

TEST(Precision, FromKernelNamesWithoutCase) {
  EXPECT_EQ(precision_of_kernel_name("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3"), Precision::kFp4);
  EXPECT_EQ(precision_of_kernel_name("fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKv"), Precision::kFp8);
  EXPECT_EQ(precision_of_kernel_name("void vllm::rotary_embedding_kernel<c10::BFloat16, true>"), Precision::kBits16);
  EXPECT_EQ(precision_of_kernel_name("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"), Precision::kBits16);
  EXPECT_EQ(precision_of_kernel_name("sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16"), Precision::kTf32);
  EXPECT_EQ(precision_of_kernel_name("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256_MI16x16x1_SN"),
            Precision::kBits16);
  EXPECT_EQ(precision_of_kernel_name("Cijk_Ailk_Bjlk_HHS_BH_MT128x128x32_MI32x32x8x1"), Precision::kBits16);
  EXPECT_EQ(precision_of_kernel_name("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN"),
            Precision::kFp32);
  EXPECT_EQ(precision_of_kernel_name("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT"), Precision::kUnknown);
}

TEST(MatrixUnits, ByVendor) {
  EXPECT_TRUE(runs_on_matrix_units("nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN", DeviceFamily::kNvidiaGpu));
  EXPECT_TRUE(runs_on_matrix_units("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2", DeviceFamily::kNvidiaGpu));
  EXPECT_TRUE(runs_on_matrix_units("fmhaSm100aKernel_QkvE4m3OBfloat16H64", DeviceFamily::kNvidiaGpu));
  EXPECT_TRUE(runs_on_matrix_units("sm90_xmma_gemm_bf16bf16_bf16f32", DeviceFamily::kNvidiaGpu));
  EXPECT_FALSE(runs_on_matrix_units("void at::native::vectorized_elementwise_kernel<4>", DeviceFamily::kNvidiaGpu));
  EXPECT_TRUE(runs_on_matrix_units("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256_MI16x16x1_SN",
                                   DeviceFamily::kAmdGpu));
  EXPECT_TRUE(runs_on_matrix_units("Cijk_Ailk_Bjlk_HHS_BH_MT128x128x32_MI16x16x16x1_SN", DeviceFamily::kAmdGpu));
  EXPECT_TRUE(runs_on_matrix_units("void paged_attention_ll4mi_QKV_mfma16_kernel<0>", DeviceFamily::kAmdGpu));
  EXPECT_FALSE(runs_on_matrix_units("batched_transpose_16x64_pack_1x4_ediv_1x2_half", DeviceFamily::kAmdGpu));
  EXPECT_TRUE(runs_on_matrix_units("%convolution.3 = bf16[8,8]{1,0} convolution(%a, %b)", DeviceFamily::kTpu));
  EXPECT_FALSE(runs_on_matrix_units("%add.1 = f32[8]{0} add(%a, %b)", DeviceFamily::kTpu));
  EXPECT_EQ(matrix_unit_label(matrix_unit_of(DeviceFamily::kAmdGpu)), "matrix cores");
  EXPECT_EQ(matrix_unit_label(matrix_unit_of(DeviceFamily::kTpu)), "MXU");
}

}  // namespace
}  // namespace mlprof::analysis
