// The model as a stream of tracks, events and flows for the Chrome and Perfetto writers
// (format/trace_writer.h): one process per plane, one thread track per line, and extra
// tracks ("<line> (overlap N)") for events that partly overlap others on their line.
#pragma once

#include "format/trace_writer.h"
#include "model/profile.h"

namespace mlprof::analysis {

// Event starts are given relative to profile.origin_ns. Returns the writer's finish().
bool write_trace(const model::Profile& profile, format::TraceWriter& writer, std::string* error);

}  // namespace mlprof::analysis
