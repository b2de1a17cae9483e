// The inputs of an op as recorded at host_tracer_level 3: a compact binary form written on
// the hot path (by the framework integration) and turned into TensorFlow's verbose "shape"
// text at export: "(float[64,1,28,28],float[512,1,3,3],[1,1],1,false)".
//
// Entries follow each other: a tag byte, then
//   kTensor:    a DType byte, a rank byte, rank dims
//   kIntList:   a count byte, count values
//   kInt:       a value;  kDouble: 8 bytes;  kBool: one byte;  kDType: a DType byte
//   kNone, kUndefinedTensor, kOther: nothing
// where a dim or value is an int64 as a zigzag varint (7 bits a byte, low first): most dims
// take one or two bytes, and every byte costs capture memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace mlprof::capture {

enum InputTag : uint8_t {
  kInputTensor = 1,
  kInputUndefinedTensor = 2,
  kInputIntList = 3,
  kInputInt = 4,
  kInputDouble = 5,
  kInputBool = 6,
  kInputNone = 7,
  kInputOther = 8,
  kInputDType = 9,  // an element-type argument (a factory op's dtype=)
};

// Element types, named as TensorFlow names them.
enum class DType : uint8_t {
  kUnknown, kFloat, kDouble, kHalf, kBFloat16, kInt8, kUInt8, kInt16, kInt32, kInt64, kBool,
  kComplex64, kComplex128,
};

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::kFloat: return "float";
    case DType::kDouble: return "double";
    case DType::kHalf: return "half";
    case DType::kBFloat16: return "bfloat16";
    case DType::kInt8: return "int8";
    case DType::kUInt8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kBool: return "bool";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
    case DType::kUnknown: break;
  }
  return "unknown";
}

// Writes entries into a fixed buffer; entries that do not fit are left out and counted.
class InputWriter {
 public:
  InputWriter(char* buffer, size_t capacity) : begin_(buffer), pos_(buffer), end_(buffer + capacity) {}

  void tensor(DType type, const int64_t* dims, size_t rank) {
    if (rank > 255 || !fits_varints(3, dims, rank)) return;
    char* p = pos_;
    p[0] = char(kInputTensor);
    p[1] = char(type);
    p[2] = char(rank);
    p += 3;
    for (size_t i = 0; i < rank; ++i) p = put_varint(p, dims[i]);
    pos_ = p;
  }
  // The entries most inputs are, written at `p` (before `end`) with one test of room each: a
  // tensor of at most kSmallRank dims, each below 64, and an int in [-64, 64), whose varints
  // take one byte. They return where the next entry goes, or null, with nothing written, for
  // any other input (then the writer's tensor() or integer()). Static, on a bare cursor, so
  // that a caller's loop keeps it in a register.
  static constexpr size_t kSmallRank = 15;
  static char* small_tensor(char* p, const char* end, DType type, const int64_t* dims, size_t rank) {
    if (rank > kSmallRank || size_t(end - p) < 3 + kSmallRank) return nullptr;
    uint64_t all_dims = 0;
    for (size_t i = 0; i < rank; ++i) {
      all_dims |= uint64_t(dims[i]);
      p[3 + i] = char(zigzag(dims[i]));
    }
    if (all_dims >= 64) return nullptr;
    p[0] = char(kInputTensor);
    p[1] = char(type);
    p[2] = char(rank);
    return p + 3 + rank;
  }
  static char* small_integer(char* p, const char* end, int64_t v) {
    if (v < -64 || v >= 64 || end - p < 2) return nullptr;
    p[0] = char(kInputInt);
    p[1] = char(zigzag(v));
    return p + 2;
  }
  void int_list(const int64_t* values, size_t count) {
    if (count > 255 || !fits_varints(2, values, count)) return;
    pos_[0] = char(kInputIntList);
    pos_[1] = char(count);
    pos_ += 2;
    char* p = pos_;
    for (size_t i = 0; i < count; ++i) p = put_varint(p, values[i]);
    pos_ = p;
  }
  void integer(int64_t v) {
    if (!fits_varints(1, &v, 1)) return;
    *pos_++ = char(kInputInt);
    pos_ = put_varint(pos_, v);
  }
  void real(double v) {
    if (!fits(9)) return;
    *pos_++ = char(kInputDouble);
    std::memcpy(pos_, &v, 8);
    pos_ += 8;
  }
  void boolean(bool v) {
    if (!fits(2)) return;
    pos_[0] = char(kInputBool);
    pos_[1] = char(v);
    pos_ += 2;
  }
  void dtype(DType type) {
    if (!fits(2)) return;
    pos_[0] = char(kInputDType);
    pos_[1] = char(type);
    pos_ += 2;
  }
  void tag(InputTag t) {
    if (fits(1)) *pos_++ = char(t);
  }

  size_t size() const { return size_t(pos_ - begin_); }
  bool truncated() const { return truncated_; }

 private:
  bool fits(size_t n) {
    if (size_t(end_ - pos_) >= n) return true;
    truncated_ = true;
    return false;
  }
  // Room for `fixed` bytes and the varints of v[0, n): sized exactly only near the end.
  bool fits_varints(size_t fixed, const int64_t* v, size_t n) {
    if (__builtin_expect(size_t(end_ - pos_) >= fixed + 10 * n, 1)) return true;
    return fits(fixed + varints_size(v, n));
  }
  static uint64_t zigzag(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
  static size_t varint_size(int64_t v) { return size_t(64 - __builtin_clzll(zigzag(v) | 1) + 6) / 7; }
  static size_t varints_size(const int64_t* v, size_t n) {
    size_t bytes = 0;
    for (size_t i = 0; i < n; ++i) bytes += varint_size(v[i]);
    return bytes;
  }
  // Most dims and values take one byte: that case first.
  static char* put_varint(char* p, int64_t v) {
    uint64_t u = zigzag(v);
    if (__builtin_expect(u < 0x80, 1)) {
      *p = char(u);
      return p + 1;
    }
    for (; u >= 0x80; u >>= 7) *p++ = char(u | 0x80);
    *p++ = char(u);
    return p;
  }

  char* begin_;
  char* pos_;
  char* end_;
  bool truncated_ = false;
};

// Visits the entries of a description; stops at the first malformed one.
template <typename Visitor>
void for_each_input(std::string_view bytes, Visitor&& visit) {
  size_t i = 0;
  auto read_int = [&](int64_t* v) {
    uint64_t u = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= bytes.size()) return false;
      const uint8_t b = uint8_t(bytes[i++]);
      u |= uint64_t(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = int64_t(u >> 1) ^ -int64_t(u & 1);
        return true;
      }
    }
    return false;  // more than 10 bytes: not ours
  };
  int64_t values[255];
  while (i < bytes.size()) {
    const auto tag = InputTag(uint8_t(bytes[i++]));
    switch (tag) {
      case kInputTensor: {
        if (i + 2 > bytes.size()) return;
        const auto type = DType(uint8_t(bytes[i]));
        const size_t rank = uint8_t(bytes[i + 1]);
        i += 2;
        for (size_t d = 0; d < rank; ++d)
          if (!read_int(&values[d])) return;
        visit.tensor(type, values, rank);
        break;
      }
      case kInputIntList: {
        if (i + 1 > bytes.size()) return;
        const size_t count = uint8_t(bytes[i++]);
        for (size_t k = 0; k < count; ++k)
          if (!read_int(&values[k])) return;
        visit.int_list(values, count);
        break;
      }
      case kInputInt: {
        int64_t v;
        if (!read_int(&v)) return;
        visit.integer(v);
        break;
      }
      case kInputDouble: {
        if (i + 8 > bytes.size()) return;
        double v;
        std::memcpy(&v, bytes.data() + i, 8);
        i += 8;
        visit.real(v);
        break;
      }
      case kInputBool:
        if (i + 1 > bytes.size()) return;
        visit.boolean(bytes[i++] != 0);
        break;
      case kInputDType:
        if (i + 1 > bytes.size()) return;
        visit.dtype(DType(uint8_t(bytes[i++])));
        break;
      case kInputUndefinedTensor:
      case kInputNone:
      case kInputOther:
        visit.tag(tag);
        break;
      default:
        return;
    }
  }
}

// "(float[64,1,28,28],[1,1],1,false)"; undefined tensors and None as "", others as "?".
std::string format_inputs(std::string_view bytes, bool truncated);

// What a factory op (aten::empty and the like, flagged kOpFactory) allocates: the element
// type and shape its arguments give ("float", "[64,512,28,28]"); false when they do not say.
bool factory_result(std::string_view bytes, std::string* data_type, std::string* shape);

}  // namespace mlprof::capture
