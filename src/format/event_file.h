// The empty TensorBoard event file that makes TensorBoard list a logdir's profiles
// (docs/ARCHITECTURE.md §3.4): events.out.tfevents.<seconds>.<host>.profile-empty.
#pragma once

#include <cstdint>
#include <string>

namespace mlprof::format {

// The 40 bytes of the file: one TFRecord holding an Event{wall_time, file_version}.
std::string empty_event_file_bytes(double wall_time_seconds);

// "events.out.tfevents.<10-digit seconds>.<host>.profile-empty".
std::string empty_event_file_name(int64_t unix_seconds, const std::string& host);

// Writes the file into `logdir` unless a *.profile-empty file is already there.
// Returns false with a one-line reason when it cannot.
bool ensure_empty_event_file(const std::string& logdir, const std::string& host,
                             int64_t unix_seconds, std::string* error);

}  // namespace mlprof::format
