// PyTorch traces through the commands a user runs: the XSpace round trip (convert, load the
// .xplane.pb back, same events per category), mlprof report / diff / info / convert on the
// real traces, a folder of per-rank traces as one run, and one-line errors.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"
#include "format/scratch_dir.h"
#include "model/pytorch/importer.h"
#include "model/pytorch_test_support.h"
#include "model/xspace/export.h"
#include "model/xspace/importer.h"

namespace mlprof::model {
namespace {

using namespace mlprof::testing;

const std::string kDir = std::string(MLPROF_TESTDATA) + "/pytorch/";
#define REQUIRE_TESTDATA()                        \
  if (!std::filesystem::is_directory(kDir)) \
  GTEST_SKIP() << "PyTorch test data not found at " << kDir << " (needs ../shared/testdata)"

Profile load_trace(const std::string& path) {
  Profile p;
  std::string error;
  EXPECT_TRUE(import_pytorch_trace_file(path, "host", &p, &error)) << path << ": " << error;
  return p;
}

// What must survive the trip to XSpace and back, event by event.
void expect_same_profile(const Profile& a, const Profile& b) {
  EXPECT_EQ(count_categories(a), count_categories(b));
  EXPECT_EQ(a.origin_ns, b.origin_ns);
  ASSERT_EQ(a.num_events(), b.num_events());
  ASSERT_EQ(a.planes.size(), b.planes.size());
  for (size_t i = 0; i < a.planes.size(); ++i) {
    EXPECT_EQ(a.strings.view(a.planes[i].name), b.strings.view(b.planes[i].name));
    EXPECT_EQ(a.planes[i].kind, b.planes[i].kind);
    EXPECT_EQ(a.planes[i].stats.count, b.planes[i].stats.count);
  }
  ASSERT_EQ(a.lines.size(), b.lines.size());
  for (size_t l = 0; l < a.lines.size(); ++l) {
    EXPECT_EQ(a.strings.view(a.lines[l].name), b.strings.view(b.lines[l].name));
    EXPECT_EQ(a.lines[l].id, b.lines[l].id);
    EXPECT_EQ(a.lines[l].kind, b.lines[l].kind);
    EXPECT_EQ(a.lines[l].num_events, b.lines[l].num_events);
  }
  const StringId keys[] = {kCorrelationId, kStepNum, kIsRoot, kProducerId, kConsumerId, kKernelDetails,
                           kMemcpyDetails, kTfOp};
  for (EventIndex e = 0; e < a.num_events(); ++e) {
    ASSERT_EQ(a.name(e), b.name(e)) << e;
    ASSERT_EQ(a.start_ps(e), b.start_ps(e)) << a.name(e);
    ASSERT_EQ(a.duration_ps(e), b.duration_ps(e)) << a.name(e);
    ASSERT_EQ(a.events.parent[e], b.events.parent[e]) << a.name(e);
    for (StringId key : keys) {
      const auto va = a.stat(e, key), vb = b.stat(e, key);
      ASSERT_EQ(va.has_value(), vb.has_value()) << a.name(e) << " " << a.strings.view(key);
      if (va) {
        ASSERT_EQ(va->as_uint(), vb->as_uint()) << a.name(e) << " " << a.strings.view(key);
      }
      if (va && va->type == StatType::kString) {
        ASSERT_EQ(a.string_of(*va), b.string_of(*vb));
      }
    }
  }
}

TEST(PyTorchConvert, XSpaceRoundTripKeepsEveryEvent) {
  REQUIRE_TESTDATA();
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    SCOPED_TRACE(entry.path().filename().string());
    const Profile trace = load_trace(entry.path().string());
    const std::string bytes = encode_host_xspace(trace, 0);
    Profile back;
    std::string error;
    ASSERT_TRUE(import_xspace_bytes(bytes.data(), bytes.size(), "host", &back, &error)) << error;
    const Host& host = trace.hosts[0];
    EXPECT_EQ(back.strings.view(back.hosts[0].hostname),
              trace.strings.view(host.hostname != kEmptyString ? host.hostname : host.name));
    expect_same_profile(trace, back);
  }
}

TEST(PyTorchConvert, ConvertCommandWritesAFileOrALogdir) {
  REQUIRE_TESTDATA();
  ScratchDir dir;
  const std::string trace = kDir + "nccl_parser_config__nccl_data.json.gz";
  const std::string file = dir / "out/rank0.xplane.pb";
  CliResult r = run_mlprof("convert " + trace + " --to xplane -o " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Profile back;
  std::string error;
  ASSERT_TRUE(import_xspace_file(file, "rank0", &back, &error)) << error;
  expect_same_profile(load_trace(trace), back);

  // A logdir as TensorBoard lists it: the run, the host file and the event file.
  const std::string logdir = dir / "logdir";
  r = run_mlprof("convert " + trace + " --to xplane -o " + logdir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(logdir + "/plugins/profile/nccl_parser_config__nccl_data/"
                                      "nccl_parser_config__nccl_data.xplane.pb"))
      << r.out;
  bool event_file = false;
  for (const auto& entry : std::filesystem::directory_iterator(logdir))
    event_file |= entry.path().filename().string().ends_with(".profile-empty");
  EXPECT_TRUE(event_file);
  r = run_mlprof("report " + logdir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("marked by torch.profiler's step()"), std::string::npos) << r.out;  // _r set on ProfilerStep#N

  // An unknown format is a usage error that lists the known ones.
  r = run_mlprof("convert " + trace + " --to csv -o " + (dir / "x.csv"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("xplane"), std::string::npos) << r.err;
}

TEST(PyTorchConvert, ReportWorksOnEveryTrace) {
  REQUIRE_TESTDATA();
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    SCOPED_TRACE(entry.path().filename().string());
    for (const char* tool : {"overview_page", "framework_op_stats", "input_pipeline_analyzer"}) {
      const CliResult r = run_mlprof("report " + entry.path().string() + " --tool " + tool + " --format json");
      EXPECT_EQ(r.exit_code, 0) << tool << ": " << r.err;
      EXPECT_EQ(r.out.front(), '{') << tool;
      EXPECT_TRUE(r.err.empty()) << r.err;
    }
  }
  const CliResult info = run_mlprof("info " + kDir + "df_index_resolver__df_index_resolver.json.gz");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("machine: rank1"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("\"Stream #7(Compute,MemcpyD2D,Memset)\": 20270 events over"), std::string::npos) << info.out;
}

TEST(PyTorchConvert, DiffOfTheTraceComparePair) {
  REQUIRE_TESTDATA();
  const CliResult r = run_mlprof("diff " + kDir + "trace_compare__base__base.json.gz " + kDir +
                                 "trace_compare__test__test.json.gz --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"steps\": 2"), std::string::npos) << r.out;  // ProfilerStep#1009 and #1010
  EXPECT_NE(r.out.find("\"breakdown_ms\""), std::string::npos) << r.out;
  // B analysed step 1009 only (its 1010 launched no kernel), so step 1009 alone is compared, in
  // which only the test trace runs All2All_Pooled_Req (AddmmBackward0 runs in 1010).
  EXPECT_NE(r.out.find("\"steps_in_common\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"All2All_Pooled_Req\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"AddmmBackward0\""), std::string::npos) << r.out;
}

// One trace per rank in a folder is one run with one host per rank: a pod.
TEST(PyTorchConvert, AFolderOfRanksIsOneRun) {
  REQUIRE_TESTDATA();
  ScratchDir dir;
  std::filesystem::copy_file(kDir + "trace_compare__base__base.json.gz", dir / "rank0.pt.trace.json.gz");
  std::filesystem::copy_file(kDir + "trace_compare__test__test.json.gz", dir / "rank1.pt.trace.json.gz");
  CliResult r = run_mlprof("report " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 host(s)"), std::string::npos) << r.out;
  r = run_mlprof("convert " + dir.path() + " --to xplane -o " + (dir / "logdir"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string run = dir / ("logdir/plugins/profile/" + std::filesystem::path(dir.path()).filename().string());
  EXPECT_TRUE(std::filesystem::exists(run + "/rank0.xplane.pb")) << r.out;
  EXPECT_TRUE(std::filesystem::exists(run + "/rank1.xplane.pb")) << r.out;
  // A single file cannot hold two hosts.
  r = run_mlprof("convert " + dir.path() + " --to xplane -o " + (dir / "both.xplane.pb"));
  EXPECT_EQ(r.exit_code, 1);
}

// `mlprof serve PATH --port 0` in the background; the URL it prints, or empty.
class Server {
 public:
  explicit Server(const std::string& path) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      close(fds[0]);
      const std::string bin = mlprof_binary();
      execl(bin.c_str(), bin.c_str(), "serve", path.c_str(), "--port", "0", (char*)nullptr);
      _exit(127);
    }
    close(fds[1]);
    const std::regex url(R"(http://127\.0\.0\.1:(\d+)/)");
    std::smatch m;
    char buf[512];
    for (ssize_t n; !std::regex_search(output_, m, url) && (n = read(fds[0], buf, sizeof buf)) > 0;)
      output_.append(buf, size_t(n));
    close(fds[0]);
    if (!m.empty()) port_ = std::stoi(m[1].str());
  }
  ~Server() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  // The body of GET `target`, or the output of the server when it does not answer.
  std::string get(const std::string& target) {
    if (port_ == 0) return "no server: " + output_;
    httplib::Client client("127.0.0.1", port_);
    auto r = client.Get(target);
    return r ? r->body : "no answer";
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string output_;
};

TEST(PyTorchConvert, ServeTakesOneTraceOrAFolderOfRanks) {
  REQUIRE_TESTDATA();
  {
    Server server(kDir + "cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
    const std::string runs = server.get("/api/runs");
    EXPECT_NE(runs.find(R"("name":"cpu_only__rank-34.Jul_15_10_52_41.1074")"), std::string::npos) << runs;
    const std::string overview =
        server.get("/api/data?run=cpu_only__rank-34.Jul_15_10_52_41.1074&tool=overview_page");
    EXPECT_NE(overview.find("\"verdict\""), std::string::npos) << overview;
    EXPECT_NE(overview.find("rank34"), std::string::npos) << overview;
  }
  ScratchDir dir;
  std::filesystem::copy_file(kDir + "trace_compare__base__base.json.gz", dir / "rank0.pt.trace.json.gz");
  std::filesystem::copy_file(kDir + "trace_compare__test__test.json.gz", dir / "rank1.pt.trace.json.gz");
  Server server(dir.path());
  const std::string run = std::filesystem::path(dir.path()).filename().string();
  const std::string runs = server.get("/api/runs");
  EXPECT_NE(runs.find(R"("hosts":["rank0","rank1"])"), std::string::npos) << runs;
  const std::string ops = server.get("/api/data?run=" + run + "&tool=framework_op_stats&host=rank1");
  EXPECT_NE(ops.find("AddmmBackward0"), std::string::npos) << ops;
}

TEST(PyTorchConvert, BadTracesGiveOneLineNamingTheFile) {
  ScratchDir dir;
  const std::string empty = dir / "empty.pt.trace.json", array = dir / "array.json", truncated = dir / "cut.json.gz";
  std::ofstream(empty).flush();
  std::ofstream(array) << "[1, 2, 3]";
  std::ofstream(truncated, std::ios::binary) << gzip(R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})").substr(0, 20);
  for (const std::string& path : {empty, array, truncated}) {
    for (const char* command : {"report ", "info ", "convert "}) {
      SCOPED_TRACE(std::string(command) + path);
      const std::string extra = std::string(command) == "convert " ? " --to xplane -o " + (dir / "o.xplane.pb") : "";
      const CliResult r = run_mlprof(command + path + extra);
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.err.find("mlprof: " + path + ": "), 0u) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
}

}  // namespace
}  // namespace mlprof::model
