#include "format/run_reservation.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "format/logdir.h"

namespace mlprof::format {
namespace {

// The process id a reservation file holds, or 0 when it cannot be read (being written).
pid_t read_owner(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[32] = {};
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return 0;
  return pid_t(std::strtol(text, nullptr, 10));
}

// An empty reservation is one being made; still empty after a few seconds, its maker died.
bool abandoned_while_made(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && st.st_size == 0 && std::time(nullptr) - st.st_mtime > 5;
}

bool alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// O_EXCL: exactly one process makes the file. Returns 0, or errno.
int create_reservation(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  const std::string pid = std::to_string(getpid()) + "\n";
  const bool written = ::write(fd, pid.data(), pid.size()) == ssize_t(pid.size());
  const int saved = written ? 0 : errno;
  ::close(fd);
  if (!written) {
    ::unlink(path.c_str());
    return saved != 0 ? saved : EIO;
  }
  return 0;
}

}  // namespace

std::string run_reservation_path(const std::string& logdir, const std::string& run_name, const std::string& host) {
  return logdir + "/plugins/profile/." + run_name + "." + host_for_file_name(host) + ".lock";
}

Reservation reserve_run(const std::string& logdir, const std::string& run_name, const std::string& host,
                        std::string* error) {
  if (!make_directories(logdir + "/plugins/profile", error)) return Reservation::kFailed;
  const std::string path = run_reservation_path(logdir, run_name, host);
  // Twice at most: a reservation left by a process that is gone is removed, then made anew.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int failure = create_reservation(path);
    if (failure != 0 && failure != EEXIST) {
      *error = "cannot reserve run '" + run_name + "': " + path + ": " + std::strerror(failure);
      return Reservation::kFailed;
    }
    // Ours: made now, or before exec by `mlprof run`.
    if (failure == 0 || read_owner(path) == getpid()) {
      if (const std::string taken = taken_run_file(logdir, run_name, host); !taken.empty()) {
        ::unlink(path.c_str());
        *error = taken + " already holds this host's profile";
        return Reservation::kTaken;
      }
      return Reservation::kReserved;
    }
    const pid_t owner = read_owner(path);
    if (alive(owner) || (owner == 0 && !abandoned_while_made(path))) {
      *error = (owner > 0 ? "process " + std::to_string(owner) : std::string("another process")) +
               " is capturing this host's profile into it";
      return Reservation::kTaken;
    }
    ::unlink(path.c_str());  // its owner was killed before it could let go
  }
  *error = "another process reserved it at the same moment";
  return Reservation::kTaken;
}

std::string reserve_new_run(const std::string& logdir, const std::string& host, std::time_t now, std::string* error) {
  for (std::time_t t = now;; ++t) {
    const std::string name = run_name_at(t);
    struct stat st {};
    if (::stat((logdir + "/plugins/profile/" + name).c_str(), &st) == 0) continue;
    switch (reserve_run(logdir, name, host, error)) {
      case Reservation::kReserved: return name;
      case Reservation::kTaken: continue;
      case Reservation::kFailed: return "";
    }
  }
}

void release_run(const std::string& logdir, const std::string& run_name, const std::string& host, pid_t owner) {
  const std::string path = run_reservation_path(logdir, run_name, host);
  if (read_owner(path) == owner) ::unlink(path.c_str());
}

}  // namespace mlprof::format
