// Sampling mode end to end, with real worker processes on loopback: the capture client sends
// one Profile per worker, and each worker's profiler server writes its own file into the run.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "analysis/pod_viewer.h"
#include "format/logdir.h"
#include "format/scratch_dir.h"
#include "model/load_profile.h"
#include "rpc/capture_client.h"
#include "rpc/profiler_service.grpc.pb.h"
#include "rpc/worker_process.h"

namespace mlprof {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::WorkerProcess;

std::vector<std::string> xspace_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().string().ends_with(".xplane.pb")) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

rpc::CaptureRequest capture_of(const std::vector<const WorkerProcess*>& workers, const std::string& logdir,
                               uint64_t duration_ms) {
  rpc::CaptureRequest r;
  for (const auto* w : workers) r.addresses.push_back(w->address());
  r.logdir = logdir;
  r.duration_ms = duration_ms;
  r.retries = 1;
  return r;
}

std::unique_ptr<tensorflow::ProfilerService::Stub> stub_for(const WorkerProcess& worker) {
  return tensorflow::ProfilerService::NewStub(
      grpc::CreateChannel(worker.address(), grpc::InsecureChannelCredentials()));
}

// Polls Monitor until the worker says it is capturing (the readiness check for tests that
// need a capture in progress).
void wait_until_capturing(const WorkerProcess& worker) {
  auto stub = stub_for(worker);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < give_up) {
    grpc::ClientContext context;
    tensorflow::MonitorRequest request;
    tensorflow::MonitorResponse response;
    if (stub->Monitor(&context, request, &response).ok() && response.data().find("capturing") != std::string::npos)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "the worker never said it was capturing";
}

TEST(SamplingCapture, ThreeWorkersRecordOneWindowIntoOneRun) {
  ScratchDir dir;
  WorkerProcess a({}), b({"--input-ms", "20"}), c({});
  const rpc::CaptureResult result = rpc::capture_profiles(capture_of({&a, &b, &c}, dir.path(), 500));
  ASSERT_TRUE(result.error.empty()) << result.error;
  ASSERT_EQ(result.workers.size(), 3u);
  for (const auto& w : result.workers) {
    EXPECT_TRUE(w.ok) << w.address << ": " << w.error;
    EXPECT_FALSE(w.empty_trace) << w.address;
    EXPECT_GT(w.events, 0u) << w.address;
    EXPECT_GT(w.bytes, 0u) << w.address;
    EXPECT_EQ(fs::path(w.xspace_path).parent_path(), fs::path(result.run_dir)) << w.address;
  }
  EXPECT_EQ(result.run_dir, dir.path() + "/plugins/profile/" + result.session_id);
  EXPECT_EQ(xspace_files(result.run_dir).size(), 3u);

  // All three recorded the same window: their spans overlap.
  model::Profile profile;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({result.run_dir, "", ""}, &profile, &error)) << error.path << ": " << error.problem;
  ASSERT_EQ(profile.hosts.size(), 3u);
  std::vector<int64_t> begin(3, INT64_MAX), end(3, INT64_MIN);
  for (model::EventIndex e = 0; e < profile.num_events(); ++e) {
    const uint32_t host = profile.plane_of(e).host;
    begin[host] = std::min(begin[host], profile.start_ps(e));
    end[host] = std::max(end[host], profile.end_ps(e));
  }
  EXPECT_LT(*std::max_element(begin.begin(), begin.end()), *std::min_element(end.begin(), end.end()));

  // The pod viewer lists the three workers and picks the one that waits longest for input.
  const analysis::PodViewer pod = analysis::compute_pod_viewer(profile);
  ASSERT_EQ(pod.workers.size(), 3u);
  for (const auto& w : pod.workers) EXPECT_GT(w.steps.size(), 0u) << w.host;
  ASSERT_GE(pod.slowest_worker, 0);
  const auto& slowest = pod.workers[size_t(pod.slowest_worker)];
  EXPECT_EQ(slowest.host, format::host_for_file_name(b.address()));
  EXPECT_EQ(slowest.bottleneck, analysis::Category::kInput);
}

TEST(SamplingCapture, DeadWorkerDoesNotStopTheOthers) {
  ScratchDir dir;
  WorkerProcess a({}), dead({}), c({});
  dead.kill();
  const rpc::CaptureResult result = rpc::capture_profiles(capture_of({&a, &dead, &c}, dir.path(), 300));
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_FALSE(result.all_ok());
  EXPECT_TRUE(result.workers[0].ok) << result.workers[0].error;
  EXPECT_TRUE(result.workers[2].ok) << result.workers[2].error;
  const auto& failed = result.workers[1];
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.address, dead.address());
  EXPECT_NE(failed.error.find("unavailable"), std::string::npos) << failed.error;
  EXPECT_EQ(failed.attempts, 2);  // retries = 1
  std::vector<std::string> expected = {format::host_for_file_name(a.address()) + ".xplane.pb",
                                       format::host_for_file_name(c.address()) + ".xplane.pb"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(xspace_files(result.run_dir), expected);
}

TEST(SamplingCapture, SecondCaptureOnABusyWorkerIsRefusedAndTheFirstIsUnharmed) {
  ScratchDir first_dir, second_dir;
  WorkerProcess worker({});
  auto first = std::async(std::launch::async, [&] {
    return rpc::capture_profiles(capture_of({&worker}, first_dir.path(), 2500));
  });
  wait_until_capturing(worker);
  const rpc::CaptureResult second = rpc::capture_profiles(capture_of({&worker}, second_dir.path(), 200));
  ASSERT_EQ(second.workers.size(), 1u);
  EXPECT_FALSE(second.workers[0].ok);
  EXPECT_NE(second.workers[0].error.find("a capture is already running"), std::string::npos) << second.workers[0].error;
  EXPECT_EQ(second.workers[0].attempts, 1);  // not worth retrying

  const rpc::CaptureResult result = first.get();
  ASSERT_TRUE(result.all_ok()) << result.workers[0].error;
  EXPECT_FALSE(result.workers[0].empty_trace);
  EXPECT_EQ(xspace_files(result.run_dir).size(), 1u);
}

TEST(SamplingCapture, IdleWorkerAnswersEmptyTrace) {
  ScratchDir dir;
  WorkerProcess idle({"--idle"});
  const rpc::CaptureResult result = rpc::capture_profiles(capture_of({&idle}, dir.path(), 200));
  ASSERT_TRUE(result.all_ok()) << result.error << result.workers[0].error;
  EXPECT_TRUE(result.workers[0].empty_trace);
  EXPECT_EQ(result.workers[0].events, 0u);
}

TEST(SamplingCapture, TerminateEndsACaptureEarlyAndItIsStillWritten) {
  ScratchDir dir;
  WorkerProcess worker({});
  tensorflow::ProfileRequest request;
  request.set_duration_ms(60'000);
  request.set_repository_root(dir.path() + "/plugins/profile");
  request.set_session_id("ended_early");
  request.set_host_name("worker");
  const auto started = std::chrono::steady_clock::now();
  auto profile = std::async(std::launch::async, [&] {
    grpc::ClientContext context;
    tensorflow::ProfileResponse response;
    return stub_for(worker)->Profile(&context, request, &response);
  });
  wait_until_capturing(worker);

  grpc::ClientContext context;
  tensorflow::TerminateRequest terminate;
  tensorflow::TerminateResponse terminated;
  terminate.set_session_id("no_such_session");
  EXPECT_EQ(stub_for(worker)->Terminate(&context, terminate, &terminated).error_code(), grpc::StatusCode::NOT_FOUND);
  grpc::ClientContext context2;
  terminate.set_session_id("ended_early");
  EXPECT_TRUE(stub_for(worker)->Terminate(&context2, terminate, &terminated).ok());

  const grpc::Status status = profile.get();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_TRUE(fs::exists(dir.path() + "/plugins/profile/ended_early/worker.xplane.pb"));
}

TEST(SamplingCapture, AnyRepositoryRootGetsTheFileUnderTheSessionId) {
  ScratchDir dir;
  WorkerProcess worker({});
  tensorflow::ProfileRequest request;
  request.set_duration_ms(100);
  request.set_repository_root(dir.path() + "/elsewhere");
  request.set_session_id("s1");
  request.set_host_name("w:1");
  grpc::ClientContext context;
  tensorflow::ProfileResponse response;
  const grpc::Status status = stub_for(worker)->Profile(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(xspace_files(dir.path() + "/elsewhere/s1"), std::vector<std::string>{"w_1.xplane.pb"});
  // Nothing else is left there: the staging logdir is gone.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() + "/elsewhere/s1"), fs::directory_iterator()), 1);
}

TEST(SamplingCapture, BadRequestsAreRefusedClearly) {
  ScratchDir dir;
  WorkerProcess worker({"--idle"});
  tensorflow::ProfileRequest request;
  request.set_duration_ms(100);
  request.set_repository_root(dir.path());
  request.set_session_id("../escape");
  grpc::ClientContext context;
  tensorflow::ProfileResponse response;
  const grpc::Status status = stub_for(worker)->Profile(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("session_id"), std::string::npos) << status.error_message();
}

// A capture whose logdir cannot be written is refused as such, not as a busy server: the
// client should not wait and retry.
TEST(SamplingCapture, AnUnwritableDestinationIsNotABusyServer) {
  ScratchDir dir;
  WorkerProcess worker({"--idle"});
  const std::string file = dir.path() + "/a_file";
  std::ofstream(file) << "not a directory";
  tensorflow::ProfileRequest request;
  request.set_duration_ms(100);
  request.set_repository_root(file + "/plugins/profile");
  request.set_session_id("s1");
  grpc::ClientContext context;
  tensorflow::ProfileResponse response;
  const grpc::Status status = stub_for(worker)->Profile(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_NE(status.error_message().find("cannot write to the logdir"), std::string::npos) << status.error_message();
}

TEST(SamplingCapture, EnvironmentVariableStartsTheServer) {
  ScratchDir dir;
  WorkerProcess worker({"--env"}, {"MLPROF_SERVER_PORT=0"});
  EXPECT_GT(worker.port(), 0);
  const rpc::CaptureResult result = rpc::capture_profiles(capture_of({&worker}, dir.path(), 400));
  ASSERT_TRUE(result.all_ok()) << result.error << result.workers[0].error;
  EXPECT_FALSE(result.workers[0].empty_trace);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// Under `mlprof run` (MLPROF_LOGDIR) the environment's session records the whole process: a
// remote capture is refused, as for any session already running, and does not end it.
TEST(SamplingCapture, ACaptureDoesNotTakeOverTheEnvironmentsSession) {
  ScratchDir dir, env_logdir;
  {
    WorkerProcess worker({"--env"}, {"MLPROF_SERVER_PORT=0", "MLPROF_LOGDIR=" + env_logdir.path()});
    const rpc::CaptureResult result = rpc::capture_profiles(capture_of({&worker}, dir.path(), 200));
    ASSERT_EQ(result.workers.size(), 1u);
    EXPECT_FALSE(result.workers[0].ok);
    EXPECT_NE(result.workers[0].error.find("a profiling session is already running"), std::string::npos)
        << result.workers[0].error;
  }
  // The worker has exited: the environment's session was written then.
  size_t runs = 0;
  std::error_code ec;
  for (const auto& run : fs::directory_iterator(env_logdir.path() + "/plugins/profile", ec))
    runs += xspace_files(run.path().string()).size();
  EXPECT_EQ(runs, 1u);
}

}  // namespace
}  // namespace mlprof
