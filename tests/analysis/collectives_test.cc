// The collectives tool: NCCL tests' bandwidth definitions on their own, then real NCCL traces
// against figures computed by hand from the raw JSON:
//
//   zcat FILE | python3 -c "
//   import json, sys, collections
//   size = {'Float': 4, 'Long': 8, 'BFloat16': 2}
//   agg = collections.defaultdict(lambda: [0, 0.0, 0])
//   for e in json.load(sys.stdin)['traceEvents']:
//     a = e.get('args', {})
//     if e.get('cat') == 'kernel' and 'Collective name' in a:
//       r = agg[(a['Collective name'], a.get('Process Group Name'), a.get('Group size'))]
//       r[0] += 1; r[1] += e['dur']; r[2] += max(a['In msg nelems'], a['Out msg nelems']) * size[a['dtype']]
//   print(dict(agg))"
//
// with algbw = bytes / total time and busbw = algbw × NCCL's factor for the group size.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/gpu_timeline/collectives.h"
#include "analysis/host_labels.h"
#include "analysis/pod_viewer.h"
#include "model/load_profile.h"
#include "model/pytorch/importer.h"

namespace mlprof::analysis {
namespace {

namespace fs = std::filesystem;
const fs::path kTestdata = MLPROF_TESTDATA;

// nccl-tests' doc/PERFORMANCE.md: bus bandwidth factors, and the names PyTorch and NCCL use.
TEST(Collectives, NcclTestsBusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("all_reduce", 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("all_gather", 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("reduce_scatter", 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("all_to_all", 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("broadcast", 8), 1);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("reduce", 8), 1);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("send", 2), 1);
  EXPECT_LT(bus_bandwidth_factor("barrier", 8), 0);
  EXPECT_LT(bus_bandwidth_factor("all_reduce", -1), 0);

  EXPECT_EQ(collective_kind("allreduce"), "all_reduce");
  EXPECT_EQ(collective_kind("_allgather_base"), "all_gather");
  EXPECT_EQ(collective_kind("_reduce_scatter_base"), "reduce_scatter");
  EXPECT_EQ(collective_kind("all_to_allv"), "all_to_all");
  EXPECT_EQ(collective_kind("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            "all_reduce");
  EXPECT_EQ(collective_kind("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"), "send_recv");
  EXPECT_EQ(collective_kind("all_reduce"), "all_reduce");  // gloo:all_reduce's part after the colon
  EXPECT_EQ(collective_kind("wait"), "");

  EXPECT_EQ(dtype_bytes("Float"), 4);
  EXPECT_EQ(dtype_bytes("BFloat16"), 2);
  EXPECT_EQ(dtype_bytes("Long"), 8);
  EXPECT_EQ(dtype_bytes("Float8_e4m3fn"), 1);
  EXPECT_EQ(dtype_bytes("Byte"), 1);
  EXPECT_EQ(dtype_bytes("QInt4x2"), 0);
}

CollectivesTable of_file(const fs::path& file) {
  model::Profile p;
  model::LoadError error;
  EXPECT_TRUE(model::load_profile({file.string(), "", ""}, &p, &error)) << error.problem;
  return compute_collectives(p);
}

const CollectiveRow* row(const CollectivesTable& t, std::string_view kind) {
  for (const CollectiveRow& r : t.rows)
    if (r.kind == kind) return &r;
  return nullptr;
}

// A100, rank 0 of 2 (the testdata README): NCCL kernels with their own collective arguments.
TEST(Collectives, NcclKernelsOnA100) {
  const fs::path file = kTestdata / "pytorch/nccl_parser_config__nccl_data.json.gz";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not found (the real profiles are in ../shared/testdata)";
  const CollectivesTable t = of_file(file);
  ASSERT_EQ(t.rows.size(), 2u);
  const CollectiveRow* all_reduce = row(t, "all_reduce");
  ASSERT_NE(all_reduce, nullptr);
  EXPECT_TRUE(all_reduce->on_device);
  EXPECT_EQ(all_reduce->process_group, "0");
  EXPECT_EQ(all_reduce->group_ranks, "[0, 1]");
  EXPECT_EQ(all_reduce->group_size, 2);
  EXPECT_EQ(all_reduce->count, 15u);
  EXPECT_EQ(all_reduce->sized_count, 15u);
  EXPECT_NEAR(double(all_reduce->total_ps) / 1e6, 46762.159, 1e-3);  // us
  EXPECT_EQ(all_reduce->bytes, 306684384);
  EXPECT_NEAR(all_reduce->algbw_gbps(), 6.558388, 1e-5);
  EXPECT_NEAR(all_reduce->busbw_gbps(), 6.558388, 1e-5);  // 2(n-1)/n = 1 for two ranks
  const CollectiveRow* broadcast = row(t, "broadcast");
  ASSERT_NE(broadcast, nullptr);
  EXPECT_EQ(broadcast->count, 6u);  // 3 of Float, 3 of Long
  EXPECT_EQ(broadcast->bytes, 638712);
  EXPECT_NEAR(double(broadcast->total_ps) / 1e6, 114.334, 1e-3);
  EXPECT_NEAR(broadcast->algbw_gbps(), 5.586370, 1e-5);
  EXPECT_NEAR(broadcast->busbw_gbps(), 5.586370, 1e-5);
}

// B200, rank 0 of 8 (vLLM): one NCCL all-gather with its arguments, and symmetric-memory
// all-reduce kernels that record none (counted and timed, no size).
TEST(Collectives, AllGatherAndSymmetricMemoryOnB200) {
  const fs::path file = kTestdata / "wild/tracelens/kineto_b200/tracelens__traces_b200_eager_trace.json.gz";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not found (the real profiles are in ../shared/testdata)";
  const CollectivesTable t = of_file(file);
  const CollectiveRow* all_gather = row(t, "all_gather");
  ASSERT_NE(all_gather, nullptr);
  EXPECT_EQ(all_gather->count, 1u);
  EXPECT_EQ(all_gather->process_group, "3");
  EXPECT_EQ(all_gather->group_size, 8);
  EXPECT_EQ(all_gather->bytes, 402176);  // Out msg nelems 201088 × 2 bytes of BFloat16
  EXPECT_NEAR(all_gather->algbw_gbps(), 18.319865, 1e-5);
  EXPECT_NEAR(all_gather->busbw_gbps(), 16.029882, 1e-5);
  const CollectiveRow* all_reduce = row(t, "all_reduce");
  ASSERT_NE(all_reduce, nullptr);
  EXPECT_EQ(all_reduce->count, 73u);  // multimem_all_reduce_kernel launches
  EXPECT_EQ(all_reduce->sized_count, 0u);
  EXPECT_LT(all_reduce->algbw_gbps(), 0);
  const nlohmann::json j = to_json(t);
  EXPECT_EQ(j["window"], "the whole profile");
  EXPECT_TRUE(j["rows"][1]["algbw_gbps"].is_null());
  const std::string csv = to_csv(t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "host,collective,process_group,group_ranks,group_size,timed_on,count,total_ms,mean_ms,sized_count,bytes,"
            "mean_message_bytes,algbw_gbps,busbw_gbps");
  EXPECT_NE(csv.find(",all_gather,3,\"[0, 1, 2, 3, 4, 5, 6, 7]\",8,device,1,"), std::string::npos) << csv;
}

// Ranks are named from the trace's distributedInfo.rank, not from file names that
// tensorboard_trace_handler makes (worker name, then a time stamp); the file name stays beside.
TEST(HostLabels, RankFromDistributedInfo) {
  auto trace = [](int rank) {
    return R"({"distributedInfo": {"backend": "nccl", "rank": )" + std::to_string(rank) +
           R"(, "world_size": 2}, "traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5}]})";
  };
  model::Profile p;
  std::string error;
  for (auto [rank, file] : {std::pair{1, "rank1.1795844602081"}, std::pair{0, "rank0.1795844602080"}}) {
    const std::string json = trace(rank);
    ASSERT_TRUE(model::import_pytorch_trace_bytes(json.data(), json.size(), file, &p, &error)) << error;
  }
  ASSERT_EQ(p.hosts.size(), 2u);
  EXPECT_EQ(p.hosts[0].rank, 1);
  EXPECT_EQ(host_labels(p), (std::vector<std::string>{"rank 1", "rank 0"}));
  const PodViewer pod = compute_pod_viewer(p);
  ASSERT_EQ(pod.workers.size(), 2u);
  EXPECT_EQ(pod.workers[0].host, "rank 1");
  EXPECT_EQ(pod.workers[0].file, "rank1.1795844602081");
  EXPECT_EQ(to_json(pod)["workers"][1]["file"], "rank0.1795844602080");

  // Two files of one rank (two runs copied together) keep their file names.
  p.hosts[1].rank = 1;
  EXPECT_EQ(host_labels(p), (std::vector<std::string>{"rank1.1795844602081", "rank0.1795844602080"}));
  p.hosts[1].rank = -1;  // no distributedInfo
  EXPECT_EQ(host_labels(p), (std::vector<std::string>{"rank 1", "rank0.1795844602080"}));
}

}  // namespace
}  // namespace mlprof::analysis
