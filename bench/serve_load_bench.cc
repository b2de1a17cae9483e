// mlprof serve under load, in-process over real sockets on 127.0.0.1: the time 50 clients
// connecting at once wait for /api/runs (5 rounds); requests a second from one kept-alive
// client (target >= 500); the time a normal client waits while 500 connections send their
// requests a byte a second (target <= 1 s); and the server's peak memory while one client
// sends a 256 MB request line (the server stops reading at its 64 KB head limit).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "process_stats.h"
#include "server/profile_server.h"

namespace {

using Clock = std::chrono::steady_clock;

void burst(int port, int clients) {
  std::vector<double> ms(size_t(clients), 0);
  int failed = 0;
  std::latch go(clients + 1);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client client("127.0.0.1", port);
      go.arrive_and_wait();
      const auto start = Clock::now();
      auto res = client.Get("/api/runs");
      ms[size_t(i)] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (!res || res->status != 200) ++failed;
    });
  }
  go.arrive_and_wait();
  for (auto& t : threads) t.join();
  std::sort(ms.begin(), ms.end());
  std::printf("serve burst: %d clients at once, GET /api/runs: median %.1f ms, slowest %.1f ms, failed %d\n", clients,
              ms[ms.size() / 2], ms.back(), failed);
}

void keep_alive_rate(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_keep_alive(true);
  int requests = 0, failed = 0;
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(3)) {
    auto res = client.Get("/api/runs");
    ++requests;
    if (!res || res->status != 200) ++failed;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("serve keep-alive: one client, GET /api/runs on one connection: %.0f requests/s (target >= 500: %s), "
              "failed %d\n", requests / seconds, requests / seconds >= 500 ? "met" : "NOT met", failed);
}

int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void slowloris(int port, size_t connections) {
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = std::max<rlim_t>(files.rlim_cur, std::min<rlim_t>(files.rlim_max, 2 * connections + 200));
  ::setrlimit(RLIMIT_NOFILE, &files);
  std::vector<int> slow;
  for (size_t i = 0; i < connections; ++i)
    if (const int fd = connect_loopback(port); fd >= 0) slow.push_back(fd);
  std::atomic<bool> done{false};
  std::thread dripper([&] {
    const std::string head = "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    for (size_t k = 0; k < head.size() && !done; ++k) {
      for (int fd : slow) ::send(fd, head.data() + k, 1, MSG_NOSIGNAL);
      for (int t = 0; t < 10 && !done; ++t) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  std::this_thread::sleep_for(std::chrono::seconds(3));
  double worst = 0;
  int failed = 0;
  for (int i = 0; i < 10; ++i) {
    httplib::Client client("127.0.0.1", port);
    const auto start = Clock::now();
    auto res = client.Get("/api/runs");
    worst = std::max(worst, std::chrono::duration<double>(Clock::now() - start).count());
    if (!res || res->status != 200) ++failed;
  }
  done = true;
  dripper.join();
  for (int fd : slow) ::close(fd);
  std::printf("serve slow clients: %zu connections sending a byte a second: a normal GET /api/runs answered in "
              "%.3f s at most of 10 (target <= 1 s: %s), failed %d\n",
              slow.size(), worst, worst <= 1.0 && failed == 0 ? "met" : "NOT met", failed);
}

void endless_request_line(int port, size_t megabytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return;
  const size_t rss_before = mlprof::bench::proc_status_kib("VmRSS");
  mlprof::bench::reset_peak_rss();
  const std::string chunk(1 << 20, 'a');
  std::string request = "GET /api/runs?x=";
  size_t sent = 0;
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  for (; sent < megabytes; ++sent)
    if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) != ssize_t(chunk.size())) break;
  char answer[16] = {};
  ::recv(fd, answer, sizeof answer - 1, 0);
  ::close(fd);
  const size_t peak = mlprof::bench::proc_status_kib("VmHWM");
  std::printf("serve head bound: a %zu MB request line (%zu MB sent): answer '%.12s', peak RSS %.1f MB over %.1f MB before\n",
              megabytes, sent, answer, double(peak > rss_before ? peak - rss_before : 0) / 1024, double(rss_before) / 1024);
}

}  // namespace

int main() {
  const auto logdir = std::filesystem::temp_directory_path() / ("mlprof_serve_load_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(logdir);
  mlprof::server::ProfileServer server({logdir.string(), "127.0.0.1", 0}, mlprof::server::make_analysis_backend());
  std::string error;
  if (!server.bind(&error)) {
    std::fprintf(stderr, "serve_load_bench: %s\n", error.c_str());
    return 1;
  }
  std::thread serving([&] { server.serve(); });
  for (int round = 0; round < 5; ++round) burst(server.port(), 50);
  keep_alive_rate(server.port());
  slowloris(server.port(), 500);
  endless_request_line(server.port(), 256);
  server.stop();
  serving.join();
  std::filesystem::remove_all(logdir);
  return 0;
}
