// What a capture recorded, sent by the server in the Profile call's trailing metadata so that
// `mlprof capture` can print a per-worker summary. TensorFlow's client ignores these, and
// the response itself stays exactly TensorFlow's.
#pragma once

namespace mlprof::rpc {

inline constexpr const char* kEventsMetadataKey = "mlprof-events";
inline constexpr const char* kDroppedMetadataKey = "mlprof-dropped";
inline constexpr const char* kBytesMetadataKey = "mlprof-bytes";
inline constexpr const char* kPathMetadataKey = "mlprof-xspace-path";

}  // namespace mlprof::rpc
