// Reads XSpace files (ours, TensorFlow's, JAX's) into the Profile model. It decodes the
// protobuf wire format as a stream, straight into the columns, because the generated message
// classes would cost several times the model's memory (docs/ARCHITECTURE.md §6).
#pragma once

#include <string>
#include <string_view>

#include "model/load_progress.h"
#include "model/profile.h"

namespace mlprof::model {

// Appends the file as one more host of `profile`. On failure returns false, sets `error` to a
// one-line reason (without the path) and leaves `profile` without that host. `progress`, when
// set, is told the fraction of the work done after each line of events. With `jobs` > 1 the
// lines are decoded on that many threads at once, each straight into its place in the event
// columns (the first pass counts every line's events), and joined in the file's order: the
// model is the same.
bool import_xspace_file(const std::string& path, std::string_view host, Profile* profile,
                        std::string* error, const LoadProgress& progress = {}, unsigned jobs = 1);

// The same for bytes already in memory (tests, network captures).
bool import_xspace_bytes(const void* data, size_t size, std::string_view host, Profile* profile,
                         std::string* error, unsigned jobs = 1);

}  // namespace mlprof::model
