// GPU activity -> XSpace with synthetic CUPTI records: no GPU needed. The log of
// synthetic_gpu_log.h goes through the session's exporter and is read back as a file.
#include <gtest/gtest.h>

#include <map>

#include "capture/cupti/occupancy.h"
#include "capture/run_reader.h"
#include "cupti/synthetic_gpu_log.h"
#include "format/scratch_dir.h"
#include "format/xspace_reader.h"

namespace mlprof::testing {
namespace {

std::string stat_text(const tp::XPlane& plane, const tp::XStat& s) {
  switch (s.value_case()) {
    case tp::XStat::kStrValue: return s.str_value();
    case tp::XStat::kRefValue: return plane.stat_metadata().at(int64_t(s.ref_value())).name();
    case tp::XStat::kUint64Value: return std::to_string(s.uint64_value());
    case tp::XStat::kInt64Value: return std::to_string(s.int64_value());
    case tp::XStat::kDoubleValue: return std::to_string(s.double_value());
    default: return "";
  }
}

const tp::XLine* find_line(const tp::XPlane& plane, const std::string& name) {
  for (const auto& line : plane.lines())
    if (line.name() == name) return &line;
  return nullptr;
}

class GpuTraceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(write_synthetic_xspace(dir_.path() + "/gpu.xplane.pb", &trace_, &error)) << error;
    ASSERT_TRUE(format::read_xspace(dir_.path() + "/gpu.xplane.pb", &space_, &error)) << error;
    gpu_ = find_plane(space_, "/device:GPU:0");
    host_ = find_plane(space_, "/host:CPU");
    ASSERT_NE(gpu_, nullptr);
    ASSERT_NE(host_, nullptr);
  }

  // Events of a device line: name -> stats as text.
  std::vector<std::pair<ReadEvent, std::map<std::string, std::string>>> device_events(const std::string& line) {
    std::vector<std::pair<ReadEvent, std::map<std::string, std::string>>> out;
    const tp::XLine* l = find_line(*gpu_, line);
    EXPECT_NE(l, nullptr) << line;
    if (l == nullptr) return out;
    for (ReadEvent& e : events_of(*gpu_, *l)) {
      std::map<std::string, std::string> stats;
      for (const auto& [k, v] : e.stats) stats[k] = stat_text(*gpu_, v);
      out.emplace_back(std::move(e), std::move(stats));
    }
    return out;
  }

  ScratchDir dir_;
  capture::DeviceTrace trace_;
  tp::XSpace space_;
  const tp::XPlane* gpu_ = nullptr;
  const tp::XPlane* host_ = nullptr;
};

TEST_F(GpuTraceFile, DevicePlaneHasCapabilitiesAndStreamLines) {
  std::map<std::string, std::string> caps;
  for (const auto& s : gpu_->stats()) caps[gpu_->stat_metadata().at(s.metadata_id()).name()] = stat_text(*gpu_, s);
  EXPECT_EQ(caps["clock_rate"], "1410000");
  EXPECT_EQ(caps["core_count"], "108");
  EXPECT_EQ(caps["memory_bandwidth"], "1555000000000");
  EXPECT_EQ(caps["memory_size"], "42505273344");
  EXPECT_EQ(caps["compute_cap_major"], "8");
  EXPECT_EQ(caps["compute_cap_minor"], "0");
  EXPECT_EQ(caps["device_name"], "NVIDIA A100-SXM4-40GB");

  std::vector<std::pair<int64_t, std::string>> lines;
  for (const auto& l : gpu_->lines()) lines.emplace_back(l.id(), l.name());
  EXPECT_EQ(lines, (std::vector<std::pair<int64_t, std::string>>{{7, "Stream #7(Compute,Memset)"},
                                                                  {8, "Stream #8(MemcpyH2D,MemcpyD2H)"},
                                                                  {int64_t(int32_t(0xdeadbeefu)) + 0x100, "Stream Synchronization"}}));
  for (const auto& l : gpu_->lines()) EXPECT_EQ(l.timestamp_ns(), kStartUnixNs);
}

TEST_F(GpuTraceFile, KernelsCarryDetailsLinksAndTheirOp) {
  const auto kernels = device_events("Stream #7(Compute,Memset)");
  ASSERT_EQ(kernels.size(), 3u);
  const auto& [scale, scale_stats] = kernels[0];
  EXPECT_EQ(scale.name, "scale_kernel(float*, int, float)");  // demangled
  EXPECT_EQ(scale.begin_ps, 120'000);
  EXPECT_EQ(scale.end_ps, 170'000);
  EXPECT_EQ(scale_stats.at("kernel_details"),
            "regs:32 static_shared:0 dynamic_shared:0 grid:80,1,1 block:256,1,1 occ_pct:100.0");
  // Launched through the driver call #12 inside cudaLaunchKernel #11: linked to the runtime call.
  EXPECT_EQ(scale_stats.at("correlation_id"), "11");
  EXPECT_EQ(scale_stats.at("context_id"), "1");
  EXPECT_EQ(scale_stats.at("tf_op"), "aten::mm");
  EXPECT_EQ(scale_stats.count("external_id"), 0u);

  const auto& [gemm, gemm_stats] = kernels[1];
  EXPECT_EQ(gemm.name, kGemm);
  EXPECT_EQ(gemm_stats.at("kernel_details"),
            "regs:128 static_shared:1024 dynamic_shared:49152 grid:64,2,1 block:256,1,1 occ_pct:25.0");
  EXPECT_EQ(gemm_stats.at("correlation_id"), "13");
  EXPECT_EQ(gemm_stats.at("tf_op"), "aten::conv2d");
  EXPECT_EQ(gemm_stats.at("external_id"), "77");

  const auto& [memset, memset_stats] = kernels[2];
  EXPECT_EQ(memset.name, "Memset");
  EXPECT_EQ(memset_stats.at("memset_details"), "kind:device size:512 async:0");
  EXPECT_EQ(memset_stats.at("correlation_id"), "16");
}

TEST_F(GpuTraceFile, CopiesCarryMemcpyDetails) {
  const auto copies = device_events("Stream #8(MemcpyH2D,MemcpyD2H)");
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].first.name, "MemcpyH2D");
  EXPECT_EQ(copies[0].first.begin_ps, 30'000);
  EXPECT_EQ(copies[0].second.at("memcpy_details"), "kind_src:pinned kind_dst:device size:4096 dest:0 async:1");
  EXPECT_EQ(copies[0].second.at("correlation_id"), "10");
  EXPECT_EQ(copies[1].first.name, "MemcpyD2H");
  EXPECT_EQ(copies[1].second.at("memcpy_details"), "kind_src:device kind_dst:pageable size:16 dest:0 async:1");

  const auto syncs = device_events("Stream Synchronization");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].first.name, "Stream Sync");
  EXPECT_EQ(syncs[0].second.at("stream_id"), "7");
  EXPECT_EQ(syncs[0].second.at("correlation_id"), "14");
}

TEST_F(GpuTraceFile, HostLineHoldsTheCallsWithTheirCorrelationIds) {
  const tp::XLine* line = nullptr;
  for (const auto& l : host_->lines())
    if (l.id() == kOsThread) line = &l;  // CUPTI's thread 555 is OS thread 4242
  ASSERT_NE(line, nullptr);
  std::vector<std::tuple<std::string, int64_t, int64_t, std::string>> calls;
  for (const ReadEvent& e : events_of(*host_, *line)) {
    auto c = e.stats.find("correlation_id");
    calls.emplace_back(e.name, e.begin_ps, e.end_ps, c == e.stats.end() ? "" : stat_text(*host_, c->second));
  }
  // The driver call inside cudaLaunchKernel and the cudaGetDevice query are left out.
  EXPECT_EQ(calls, (std::vector<std::tuple<std::string, int64_t, int64_t, std::string>>{
                       {"cudaMemcpyAsync", 10'000, 20'000, "10"},
                       {"cudaLaunchKernel", 100'000, 110'000, "11"},
                       {"cudaLaunchKernel", 200'000, 210'000, "13"},
                       {"cudaMemsetAsync", 230'000, 240'000, "16"},
                       {"cudaMemcpyAsync", 250'000, 260'000, "17"},
                       {"cudaStreamSynchronize", 300'000, 480'000, ""},  // started no device work
                   }));
  EXPECT_EQ(space_.warnings_size(), 0);
}

TEST(GpuTraceBuilder, DroppedRecordsAndEarlyWorkAreAccountedFor) {
  gpu::GpuActivityLog log;
  fill_synthetic_log(log);
  log.dropped_records = 12;
  gpu::KernelActivity early = log.kernels[0];
  early.start_ns = kStart - 50;  // began before the session: not its work
  early.end_ns = kStart + 5;
  log.kernels.push_back(early);
  capture::DeviceTrace trace;
  gpu::build_device_trace(log, synthetic_clock(), &trace);
  ASSERT_EQ(trace.warnings.size(), 1u);
  EXPECT_NE(trace.warnings[0].find("dropped 12 GPU activity records"), std::string::npos) << trace.warnings[0];
  EXPECT_EQ(trace.device_events, 6u);  // 2 kernels, 1 memset, 2 copies, 1 sync
}

TEST(GpuTraceBuilder, TwoDevicesGetTwoPlanesEachWithItsOwnNames) {
  gpu::GpuActivityLog log;
  fill_synthetic_log(log);
  gpu::KernelActivity on_second = log.kernels[1];
  on_second.device = 1;
  on_second.context = 2;
  log.kernels.push_back(on_second);
  capture::DeviceTrace trace;
  gpu::build_device_trace(log, synthetic_clock(), &trace);
  ASSERT_EQ(trace.planes.size(), 2u);
  EXPECT_EQ(trace.planes[1].name, "/device:GPU:1");
  ASSERT_EQ(trace.planes[1].lines.size(), 1u);
  const format::WireEvent& e = trace.planes[1].lines[0].events[0];
  EXPECT_EQ(trace.planes[1].event_metadata.at(e.metadata_id - 1).name, kGemm);
  // No properties for device 1: no capability stats and no occupancy.
  EXPECT_TRUE(trace.planes[1].stats.empty());
}

TEST(Occupancy, LimitedByWarpsRegistersAndSharedMemory) {
  gpu::DeviceProperties a100;
  a100.compute_capability_major = 8;
  a100.max_warps_per_multiprocessor = 64;
  a100.max_blocks_per_multiprocessor = 32;
  a100.max_shared_memory_per_multiprocessor = 167936;
  a100.max_registers_per_multiprocessor = 65536;
  gpu::KernelActivity k;
  k.block[0] = 1024, k.block[1] = 1, k.block[2] = 1;
  k.registers_per_thread = 32;
  EXPECT_DOUBLE_EQ(gpu::theoretical_occupancy_pct(k, a100), 100.0);  // 2 blocks of 32 warps
  k.registers_per_thread = 40;  // 1280 a warp: 51 warps fit, one block of 32
  EXPECT_DOUBLE_EQ(gpu::theoretical_occupancy_pct(k, a100), 50.0);
  k.block[0] = 64;
  k.registers_per_thread = 16;
  EXPECT_DOUBLE_EQ(gpu::theoretical_occupancy_pct(k, a100), 100.0);  // 32 blocks of 2 warps
  k.dynamic_shared_bytes = 15 * 1024;  // + 1 KiB reserved: 10 blocks fit
  EXPECT_DOUBLE_EQ(gpu::theoretical_occupancy_pct(k, a100), 100.0 * 20 / 64);
  k.block[0] = 0;
  EXPECT_DOUBLE_EQ(gpu::theoretical_occupancy_pct(k, a100), -1);
  EXPECT_DOUBLE_EQ(gpu::theoretical_occupancy_pct(gpu::KernelActivity{}, gpu::DeviceProperties{}), -1);
}

}  // namespace
}  // namespace mlprof::testing
