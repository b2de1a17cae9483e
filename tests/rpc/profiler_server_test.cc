// mlprof::start_server in this process: one server at a time, a clear one-line error for a
// port in use (and nothing printed by gRPC), and a clean stop.
#include <gtest/gtest.h>
#include <mlprof/server.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mlprof {
namespace {

TEST(ProfilerServer, StartsOnAFreePortAndStops) {
  ASSERT_TRUE(start_server(0).ok());
  EXPECT_GT(server_port(), 0);
  const Status again = start_server(0);
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.message().find("already listens on port " + std::to_string(server_port())), std::string::npos)
      << again.message();
  stop_server();
  EXPECT_EQ(server_port(), 0);
  stop_server();  // a second stop does nothing
}

TEST(ProfilerServer, PortInUseIsAClearError) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);

  ::testing::internal::CaptureStderr();  // fd 2: where gRPC's core would print its own log
  const Status status = start_server(port);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message().find('\n'), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("127.0.0.1:" + std::to_string(port)), std::string::npos) << status.message();
  EXPECT_EQ(server_port(), 0);
  close(fd);
}

TEST(ProfilerServer, BadPortIsRefused) {
  EXPECT_FALSE(start_server(70000).ok());
  EXPECT_FALSE(start_server(-1).ok());
}

}  // namespace
}  // namespace mlprof
