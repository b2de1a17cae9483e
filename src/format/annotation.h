// The annotation metadata encoding of TraceMe: "name#k1=v1,k2=v2#" (docs/ARCHITECTURE.md §3.3).
// Commas inside "" '' [] {} () do not split. A key or value that would not read back as
// itself is written in double quotes with '%', '#', quotes and brackets as %XX.
#pragma once

#include <cstdint>
#include <forward_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mlprof/trace_arg.h"

namespace mlprof::format {

// A parsed value, typed as TraceMe's consumers type it: int64, else uint64, else double,
// else string.
using AnnotationValue = std::variant<int64_t, uint64_t, double, std::string_view>;

struct AnnotationArg {
  std::string_view key;
  AnnotationValue value;
};

struct ParsedAnnotation {
  std::string_view name;             // the part before the first '#'
  std::vector<AnnotationArg> args;   // in the order written
  // The text of quoted keys and values that held %XX, decoded; their views point here.
  std::forward_list<std::string> decoded;

  ParsedAnnotation() = default;
  ParsedAnnotation(ParsedAnnotation&&) = default;
  ParsedAnnotation& operator=(ParsedAnnotation&&) = default;
  ParsedAnnotation(const ParsedAnnotation&) = delete;  // a copy's views would point into this one
};

// Only text that ends with '#' is encoded: "Optimizer.step#SGD.step" is a name, whole.
// Views point into `encoded` (which must outlive the result) or into the result's `decoded`.
// A key or value in double quotes is the text inside them, %XX decoded; such a value is text.
ParsedAnnotation parse_annotation(std::string_view encoded);

// Types one value string the way parse_annotation does.
AnnotationValue parse_annotation_value(std::string_view text);

// Appends "name#k=v,...#" to out (just "name" when there are no args).
void append_encoded(std::string& out, std::string_view name, const TraceArg* args, size_t num_args);

// Writes the encoding into [buf, buf+cap) without allocating; returns the length it needed
// (the output is truncated, never overrun, when that exceeds cap).
size_t encode_into(char* buf, size_t cap, std::string_view name, const TraceArg* args,
                   size_t num_args) noexcept;

}  // namespace mlprof::format
