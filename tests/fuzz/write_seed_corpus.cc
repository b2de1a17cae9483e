// Writes the seed corpus of each fuzz target (tests/fuzz/corpus/<target>/) from the project's
// own code: XSpace files built with the test builder, PyTorch traces plain and gzipped,
// annotations from the encoder, API request targets and ProfileRequest messages. `make fuzz`
// adds real files at run time; those are never committed.
//
//   usage: write_seed_corpus CORPUS_DIR
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "format/annotation.h"
#include "fuzz/fixture_logdir.h"
#include "fuzz/seed_traces.h"
#include "model/gzip_bytes.h"
#include "model/xspace_builder.h"
#ifdef MLPROF_WITH_RPC_SEEDS
#include "rpc/profiler_service.pb.h"
#endif

namespace {

namespace fs = std::filesystem;
using mlprof::TraceArg;

fs::path g_corpus;

void put(const std::string& target, const std::string& name, const std::string& bytes) {
  const fs::path dir = g_corpus / target;
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

// A TensorFlow-style host: TraceMe names with metadata, every stat value kind, a derived
// "Steps" line on a device and an XLA line.
tensorflow::profiler::XSpace tensorflow_style_xspace() {
  using mlprof::testing::kPsPerUs;
  tensorflow::profiler::XSpace space;
  space.add_hostnames("worker0");
  space.add_warnings("a warning");
  auto host = mlprof::testing::add_plane(&space, 1, "/host:CPU");
  auto* tf = host.line(11, "tf_Compute", 1'700'000'000'000'000'000);
  host.event(tf, "MatMul:MatMul#id=4,step_num=2,_r=1#", 0, 50 * kPsPerUs,
             {{"u", uint64_t{7}}, {"d", 2.5}, {"s", std::string("text")}});
  host.event(tf, "Iterator::Model::Prefetch", 10 * kPsPerUs, 5 * kPsPerUs, {{"element_id", int64_t{3}}});
  auto* e = host.event(tf, "ref_and_bytes", 20 * kPsPerUs, 1 * kPsPerUs);
  auto* ref = e->add_stats();
  ref->set_metadata_id(host.stat_metadata("kind"));
  ref->set_ref_value(uint64_t(host.stat_metadata("ref target")));
  auto* bytes = e->add_stats();
  bytes->set_metadata_id(host.stat_metadata("bytes"));
  bytes->set_bytes_value(std::string("\x01\x02", 2));
  auto device = mlprof::testing::add_plane(&space, 2, "/device:TPU:0");
  auto* steps = device.line(1, "Steps", 1'700'000'000'000'000'000);
  device.event(steps, "1", 0, 100 * kPsPerUs, {{"group_id", int64_t{1}}});
  auto* ops = device.line(2, "XLA Ops", 1'700'000'000'000'000'000);
  device.event(ops, "fusion.1", 5 * kPsPerUs, 30 * kPsPerUs, {{"hlo_category", std::string("convolution")}});
  device.event(ops, "fusion.2", 5 * kPsPerUs, 0);
  auto meta = mlprof::testing::add_plane(&space, 3, "/host:metadata");
  meta.plane_stat("hlo_proto", std::string("not really"));
  return space;
}

void write_xspace_seeds() {
  std::vector<std::pair<std::string, std::string>> seeds = {
      {"fixture_host.xplane.pb", mlprof::fuzz::fixture_xspace("seed").SerializeAsString()},
      {"tensorflow_style.xplane.pb", tensorflow_style_xspace().SerializeAsString()},
  };
  tensorflow::profiler::XSpace errors_only;
  errors_only.add_errors("the capture failed");
  errors_only.add_hostnames("h");
  seeds.push_back({"errors_only.xplane.pb", errors_only.SerializeAsString()});
  tensorflow::profiler::XSpace empty_plane;
  mlprof::testing::add_plane(&empty_plane, 9, "/host:CPU");
  seeds.push_back({"empty_plane.xplane.pb", empty_plane.SerializeAsString()});
  for (const auto& [name, bytes] : seeds) {
    put("xspace_reader", name, bytes);
    put("xspace_importer", name, bytes);
  }
}

void write_pytorch_seeds() {
  using mlprof::fuzz::kCurrentKinetoTrace;
  using mlprof::fuzz::kOldKinetoTrace;
  put("pytorch_importer", "current.json", kCurrentKinetoTrace);
  put("pytorch_importer", "current.json.gz", mlprof::testing::gzip(kCurrentKinetoTrace, Z_BEST_COMPRESSION));
  put("pytorch_importer", "old_schema.json", kOldKinetoTrace);
  put("pytorch_importer", "old_schema.json.gz", mlprof::testing::gzip(kOldKinetoTrace, Z_BEST_COMPRESSION));
  put("pytorch_importer", "events_array_only.json",
      R"([{"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 1}, {"ph": "E", "pid": 1, "tid": 1, "ts": 2}])");
  put("pytorch_importer", "empty_events.json", R"({"traceEvents": []})");
}

void write_annotation_seeds() {
  struct Seed {
    const char* file;
    const char* name;
    std::vector<TraceArg> args;
  };
  const std::vector<Seed> seeds = {
      {"plain_name", "aten::mm", {}},
      {"step", "ProfilerStep", {{"step_num", int64_t{5}}, {"_r", int64_t{1}}}},
      {"every_kind", "op",
       {{"i", int64_t{-3}}, {"u", std::numeric_limits<uint64_t>::max()}, {"d", 1.5}, {"b", true}, {"s", "text"}}},
      {"nested", "Iterator::Map",
       {{"dims", "[1,2],[3]"}, {"q", "\"a,b\""}, {"sq", "'c,d'"}, {"obj", "{x:1,y:(2,3)}"}}},
      {"numbers_as_text", "n", {{"big", "18446744073709551616"}, {"exp", "1e-300"}, {"neg", "-0"}}},
  };
  for (const auto& seed : seeds) {
    std::string encoded(1, char(200));  // the first byte sizes the bounded encoder's buffer
    mlprof::format::append_encoded(encoded, seed.name, seed.args.data(), seed.args.size());
    put("annotation", seed.file, encoded);
  }
}

void write_server_seeds() {
  const std::vector<std::pair<std::string, std::string>> targets = {
      {"runs", "/api/runs"},
      {"hosts", "/api/runs/two_hosts/hosts"},
      {"tools", "/api/runs/steps/tools?host=trainer"},
      {"overview", "/api/data?run=steps&tool=overview_page"},
      {"op_stats", "/api/data?run=two_hosts&host=a&tool=framework_op_stats&include_idle=1"},
      {"kernel_csv", "/api/csv?run=steps&tool=kernel_stats"},
      {"memory", "/api/data?run=torch&tool=memory_profile&memory_id=GPU%3A0&sort=requested&filter=mm"},
      {"pod", "/api/data?run=two_hosts&tool=pod_viewer"},
      {"input_pipeline", "/api/csv?run=steps&host=trainer&tool=input_pipeline_analyzer"},
      {"trace", "/api/trace?run=steps&start_ps=0&end_ps=20000000000&width_px=800"},
      {"trace_event", "/api/trace/event?run=torch&event=3"},
      {"trace_search", "/api/trace/search?run=two_hosts&host=b&q=gemm&limit=5"},
      {"diff", "/api/diff?run_a=steps&run_b=torch&max_ops=10"},
      {"diff_hosts", "/api/diff?run_a=two_hosts&host_a=a&run_b=two_hosts&host_b=b"},
  };
  for (const auto& [name, target] : targets) put("server_api", name, target);
}

#ifdef MLPROF_WITH_RPC_SEEDS
void write_profile_request_seeds() {
  tensorflow::ProfileRequest tf_client;  // as TensorFlow's client sends it
  tf_client.set_duration_ms(2);
  tf_client.set_max_events(1000000);
  tf_client.add_tools("trace_viewer");
  tf_client.set_repository_root("logdir/plugins/profile");
  tf_client.set_session_id("2024_01_01_00_00_00");
  tf_client.set_host_name("worker0");
  auto* opts = tf_client.mutable_opts();
  opts->set_version(1);
  opts->set_host_tracer_level(2);
  opts->set_device_tracer_level(1);
  opts->set_duration_ms(2);
  (*tf_client.mutable_tool_options())["trace_viewer"].set_save_to_repo(true);
  put("profile_request", "tensorflow_client", tf_client.SerializeAsString());

  tensorflow::ProfileRequest old_client;  // version 0: no options
  old_client.set_duration_ms(1);
  old_client.set_repository_root("some/other/dir");
  old_client.set_session_id("run");
  put("profile_request", "old_client_other_root", old_client.SerializeAsString());

  tensorflow::ProfileRequest escaping = old_client;
  escaping.set_session_id("../escape");
  put("profile_request", "session_id_with_slash", escaping.SerializeAsString());

  tensorflow::ProfileRequest later;
  later.mutable_opts()->set_version(1);
  later.mutable_opts()->set_start_timestamp_ns(1'700'000'000'000'000'000);
  later.mutable_opts()->set_duration_ms(3);
  later.mutable_opts()->set_repository_path("x/plugins/profile");
  later.mutable_opts()->set_session_id("s");
  later.mutable_opts()->set_override_hostname("host:1234");
  put("profile_request", "start_time_and_options", later.SerializeAsString());

  tensorflow::ProfileRequest too_long;
  too_long.set_duration_ms(uint64_t{365} * 24 * 3600 * 1000);
  too_long.set_repository_root("r/plugins/profile");
  put("profile_request", "longer_than_a_day", too_long.SerializeAsString());
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_seed_corpus CORPUS_DIR\n");
    return 2;
  }
  g_corpus = argv[1];
  write_xspace_seeds();
  write_pytorch_seeds();
  write_annotation_seeds();
  write_server_seeds();
#ifdef MLPROF_WITH_RPC_SEEDS
  write_profile_request_seeds();
#endif
  return 0;
}
