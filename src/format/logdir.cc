#include "format/logdir.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "format/event_file.h"
#include "format/run_reservation.h"

namespace mlprof::format {

std::string run_name_at(std::time_t unix_seconds) {
  std::tm local{};
  localtime_r(&unix_seconds, &local);
  char name[32];
  std::strftime(name, sizeof name, "%Y_%m_%d_%H_%M_%S", &local);
  return name;
}

std::string host_for_file_name(std::string_view host) {
  std::string out(host);
  for (char& c : out) {
    if (c == ':' || c == '/') c = '_';
  }
  return out;
}

std::string local_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

bool make_directories(const std::string& path, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path, ec)) {
    *error = "cannot create directory " + path + ": " +
             (ec ? ec.message() : std::string("a file is in the way"));
    return false;
  }
  return true;
}

bool probe_writable_directory(const std::string& logdir, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) {
    *error = ec.message();
    return false;
  }
  if (!std::filesystem::is_directory(logdir, ec)) {
    *error = "not a directory";
    return false;
  }
  // A name no other process or session uses; O_EXCL so that nothing already there is touched.
  static std::atomic<uint32_t> probes{0};
  const std::string probe = logdir + "/.mlprof-write-probe-" + std::to_string(getpid()) + "-" +
                            std::to_string(probes.fetch_add(1, std::memory_order_relaxed));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error) {
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write " + path + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      return false;
    }
    done += size_t(n);
  }
  if (::close(fd) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

std::string taken_run_file(const std::string& logdir, const std::string& run_name, const std::string& host) {
  const std::string file = logdir + "/plugins/profile/" + run_name + "/" + host_for_file_name(host) + ".xplane.pb";
  std::error_code ec;
  return std::filesystem::exists(file, ec) ? file : "";
}

bool prepare_run(const std::string& logdir, const std::string& run_name, const std::string& host,
                 std::time_t now, RunLocation* location, std::string* error) {
  if (logdir.empty()) {
    *error = "no logdir given";
    return false;
  }
  if (!make_directories(logdir, error)) return false;
  if (!ensure_empty_event_file(logdir, host_for_file_name(host), int64_t(now), error)) return false;

  const std::string profile_dir = logdir + "/plugins/profile";
  const std::string file_name = host_for_file_name(host) + ".xplane.pb";
  std::string run = run_name;
  for (std::time_t t = now;; ++t) {
    if (run_name.empty()) run = run_name_at(t);
    const Reservation reserved = reserve_run(logdir, run, host, error);
    if (reserved == Reservation::kReserved) break;
    if (reserved == Reservation::kFailed) return false;
    if (!run_name.empty()) {
      *error = "run '" + run + "' is taken: " + *error;
      return false;
    }
  }
  location->run_name = run;
  location->run_dir = profile_dir + "/" + run;
  location->xspace_path = location->run_dir + "/" + file_name;
  if (make_directories(location->run_dir, error)) return true;
  release_run(logdir, run, host);
  return false;
}

}  // namespace mlprof::format
