// Op names by a 16-bit id, so that an op record holds two bytes of its name instead of an
// eight-byte pointer: every byte of capture memory costs page commits on the hot path's
// account. An integration registers each name once, when it interns it; the exporter reads
// the names back. Past 65,535 names (labels with a step number in them, in a long run), ops
// carry their name's pointer in an extension instead (typed_records.h).
#pragma once

#include <cstdint>

#include "mlprof/mlprof.h"

namespace mlprof::capture {

constexpr uint32_t kMaxOpNameIds = 1u << 16;

// The id of `name` (which must live for the process), new at each call; 0 once every id is
// given.
MLPROF_API uint16_t register_op_name(const char* name) noexcept;

// The name of an id register_op_name() gave; null for 0 or an id not given.
const char* op_name_of_id(uint16_t id) noexcept;

}  // namespace mlprof::capture
