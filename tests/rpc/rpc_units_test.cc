// The pure parts of sampling mode: worker addresses, where a capture goes, and how a
// ProfileRequest is read.
#include <gtest/gtest.h>

#include "rpc/capture_destination.h"
#include "rpc/profile_request.h"
#include "rpc/service_address.h"

namespace mlprof::rpc {
namespace {

TEST(ServiceAddresses, AcceptsListsWithGrpcPrefixesAndSpaces) {
  std::vector<std::string> addresses;
  std::string error;
  ASSERT_TRUE(parse_service_addresses("grpc://a:1, b:2,[::1]:3,", &addresses, &error)) << error;
  EXPECT_EQ(addresses, (std::vector<std::string>{"a:1", "b:2", "[::1]:3"}));
}

TEST(ServiceAddresses, RefusesWhatIsNotHostAndPort) {
  std::vector<std::string> addresses;
  std::string error;
  for (const char* bad : {"", ",", "host", "host:", ":80", "host:port", "host:99999", "a:1,a:1"}) {
    EXPECT_FALSE(parse_service_addresses(bad, &addresses, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(CaptureDestination, StandardRootIsTheLogdirsProfileFolder) {
  CaptureDestination d;
  std::string error;
  ASSERT_TRUE(plan_destination("/logs/plugins/profile/", "run1", &d, &error)) << error;
  EXPECT_EQ(d.logdir, "/logs");
  EXPECT_EQ(d.run_name, "run1");
  EXPECT_EQ(d.final_dir, "/logs/plugins/profile/run1");
  EXPECT_TRUE(d.staging.empty());
}

TEST(CaptureDestination, OtherRootsAreStaged) {
  CaptureDestination d;
  std::string error;
  ASSERT_TRUE(plan_destination("/data/traces", "run1", &d, &error)) << error;
  EXPECT_EQ(d.final_dir, "/data/traces/run1");
  EXPECT_EQ(d.logdir, d.staging);
  EXPECT_EQ(d.staging.rfind("/data/traces/run1/.mlprof-staging-", 0), 0u) << d.staging;
}

TEST(CaptureDestination, SessionIdMustBeAPlainName) {
  CaptureDestination d;
  std::string error;
  for (const char* bad : {"", ".", "..", "a/b", "../x"}) EXPECT_FALSE(plan_destination("/r", bad, &d, &error)) << bad;
  EXPECT_FALSE(plan_destination("", "run", &d, &error));
}

TEST(ProfileRequest, ReadsOptionsLikeTensorFlowsServer) {
  tensorflow::ProfileRequest request;
  request.set_duration_ms(100);
  request.set_repository_root("/r");
  request.set_session_id("s");
  request.set_host_name("h");
  RemoteCaptureRequest r;
  std::string error;
  // An old client without options: the defaults.
  ASSERT_TRUE(read_profile_request(request, &r, &error)) << error;
  EXPECT_EQ(r.host_tracer_level, 2);
  EXPECT_EQ(r.device_tracer_level, 1);
  EXPECT_EQ(r.duration_ms, 100u);
  EXPECT_EQ(r.host_name, "h");

  auto* opts = request.mutable_opts();
  opts->set_version(1);
  opts->set_host_tracer_level(3);
  opts->set_device_tracer_level(0);
  opts->set_duration_ms(250);
  opts->set_start_timestamp_ns(123);
  opts->set_override_hostname("other");
  RemoteCaptureRequest r2;
  ASSERT_TRUE(read_profile_request(request, &r2, &error)) << error;
  EXPECT_EQ(r2.host_tracer_level, 3);
  EXPECT_EQ(r2.device_tracer_level, 0);
  EXPECT_EQ(r2.duration_ms, 250u);
  EXPECT_EQ(r2.start_timestamp_ns, 123u);
  EXPECT_EQ(r2.host_name, "other");

  tensorflow::ProfileRequest no_duration;
  EXPECT_FALSE(read_profile_request(no_duration, &r, &error));
}

}  // namespace
}  // namespace mlprof::rpc
