// Small helpers for decoding the protobuf wire format by hand with CodedInputStream.
#pragma once

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mlprof::model::wire {

using google::protobuf::io::CodedInputStream;

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

inline uint32_t field_of(uint32_t tag) { return tag >> 3; }
inline uint32_t type_of(uint32_t tag) { return tag & 7; }

// Skips one field's value; false on groups (not in proto3) or truncation.
inline bool skip_field(CodedInputStream& in, uint32_t tag) {
  switch (type_of(tag)) {
    case kVarint: {
      uint64_t v;
      return in.ReadVarint64(&v);
    }
    case kFixed64: return in.Skip(8);
    case kFixed32: return in.Skip(4);
    case kLengthDelimited: {
      uint32_t len;
      return in.ReadVarint32(&len) && len <= INT32_MAX && in.Skip(int(len));
    }
    default: return false;
  }
}

// Reads a length-delimited value as a view: straight from the stream's buffer when it holds
// the whole value, else copied into `scratch`.
inline bool read_bytes(CodedInputStream& in, std::string* scratch, std::string_view* out) {
  uint32_t len;
  if (!in.ReadVarint32(&len) || len > INT32_MAX) return false;
  if (len == 0) {
    *out = std::string_view();
    return true;
  }
  const void* data;
  int available;
  if (in.GetDirectBufferPointer(&data, &available) && available >= int(len)) {
    *out = std::string_view(static_cast<const char*>(data), len);
    return in.Skip(int(len));
  }
  if (!in.ReadString(scratch, int(len))) return false;
  *out = *scratch;
  return true;
}

// Enters a length-delimited sub-message; pair with leave().
inline bool enter(CodedInputStream& in, CodedInputStream::Limit* old_limit) {
  uint32_t len;
  if (!in.ReadVarint32(&len) || len > INT32_MAX) return false;
  *old_limit = in.PushLimit(int(len));
  return true;
}

// Leaves a sub-message; false when it ended early (truncated input).
inline bool leave(CodedInputStream& in, CodedInputStream::Limit old_limit) {
  const bool complete = in.BytesUntilLimit() == 0;
  in.PopLimit(old_limit);
  return complete;
}

}  // namespace mlprof::model::wire
