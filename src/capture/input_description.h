// The inputs of an op as recorded at host_tracer_level 3: a compact binary form written on
// the hot path (by the framework integration) and turned into TensorFlow's verbose "shape"
// text at export: "(float[64,1,28,28],float[512,1,3,3],[1,1],1,false)".
//
// Entries follow each other: a tag byte, then
//   kTensor:    a DType byte, a rank byte, rank int64 dims
//   kIntList:   a count byte, count int64 values
//   kInt:       int64;  kDouble: double;  kBool: one byte;  kDType: a DType byte
//   kNone, kUndefinedTensor, kOther: nothing
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

inline bool is_16bit_float(DType t) { return t == DType::kHalf || t == DType::kBFloat16; }

// Writes entries into a fixed buffer; entries that do not fit are left out and counted.
class InputWriter {
 public:
  InputWriter(char* buffer, size_t capacity) : out_(buffer), capacity_(capacity) {}

  void tensor(DType type, const int64_t* dims, size_t rank) {
    if (rank > 255 || !fits(3 + 8 * rank)) return;
    put(kInputTensor);
    put(uint8_t(type));
    put(uint8_t(rank));
    for (size_t i = 0; i < rank; ++i) put_int(dims[i]);
  }
  void int_list(const int64_t* values, size_t count) {
    if (count > 255 || !fits(2 + 8 * count)) return;
    put(kInputIntList);
    put(uint8_t(count));
    for (size_t i = 0; i < count; ++i) put_int(values[i]);
  }
  void integer(int64_t v) {
    if (!fits(9)) return;
    put(kInputInt);
    put_int(v);
  }
  void real(double v) {
    if (!fits(9)) return;
    put(kInputDouble);
    std::memcpy(out_ + size_, &v, 8);
    size_ += 8;
  }
  void boolean(bool v) {
    if (!fits(2)) return;
    put(kInputBool);
    put(uint8_t(v));
  }
  void dtype(DType type) {
    if (!fits(2)) return;
    put(kInputDType);
    put(uint8_t(type));
  }
  void tag(InputTag t) {
    if (fits(1)) put(t);
  }

  size_t size() const { return size_; }
  bool truncated() const { return truncated_; }

 private:
  bool fits(size_t n) {
    if (size_ + n <= capacity_) return true;
    truncated_ = true;
    return false;
  }
  void put(uint8_t b) { out_[size_++] = char(b); }
  void put_int(int64_t v) {
    std::memcpy(out_ + size_, &v, 8);
    size_ += 8;
  }

  char* out_;
  size_t capacity_;
  size_t size_ = 0;
  bool truncated_ = false;
};

// Visits the entries of a description; stops at the first malformed one.
template <typename Visitor>
void for_each_input(std::string_view bytes, Visitor&& visit) {
  size_t i = 0;
  auto read_int = [&](int64_t* v) {
    if (i + 8 > bytes.size()) return false;
    std::memcpy(v, bytes.data() + i, 8);
    i += 8;
    return true;
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
        int64_t bits;
        if (!read_int(&bits)) return;
        double v;
        std::memcpy(&v, &bits, 8);
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
