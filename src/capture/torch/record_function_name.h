// The interned name of the op a RecordFunction runs. LibTorch names an op it dispatches by
// the operator's FunctionSchema, which lives as long as the operator, and every other
// RecordFunction (backward nodes, user scopes, autograd entries) by a string of its own that
// dies with it. Only the first kind can be known by its address alone, which spares the op
// tracing hot path reading the name's text. LibTorch keeps the difference in a private
// member and its name() hides it, so the member is reached through the one door C++ leaves
// open to it: naming it in an explicit instantiation (ISO C++ [temp.spec]/6). That
// instantiation may appear once in a program: include this file from op_callbacks.cc only.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/record_function.h>

#include <string>

#include "capture/torch/op_names.h"

namespace mlprof::libtorch {
namespace registered_operator_detail {

using FnName = c10::variant<std::string, at::RecordFunction::schema_ref_t>;

struct FnNameTag {
  using type = FnName at::RecordFunction::*;
  friend type member_of(FnNameTag);
};

template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member_of(Tag) { return Member; }
};

template struct Expose<FnNameTag, &at::RecordFunction::fn_>;

}  // namespace registered_operator_detail

// The schema of the operator `fn` is named by, or null when its name is a string of its own.
inline const c10::FunctionSchema* registered_operator(const at::RecordFunction& fn) noexcept {
  using namespace registered_operator_detail;
  const auto* schema = c10::get_if<at::RecordFunction::schema_ref_t>(&(fn.*member_of(FnNameTag{})));
  return schema != nullptr ? &schema->get() : nullptr;
}

// The interned name of `fn`'s op: by its registered operator, or by its own string (without
// the call that name() is). Inline: it runs for every op.
inline const OpName* op_name_of(const at::RecordFunction& fn) noexcept {
  using namespace registered_operator_detail;
  const FnName& name = fn.*member_of(FnNameTag{});
  if (const auto* schema = c10::get_if<at::RecordFunction::schema_ref_t>(&name))
    return operator_op_name(&schema->get(), schema->get().name());
  if (const auto* own = c10::get_if<std::string>(&name)) return intern_op_name(*own);
  return intern_op_name(fn.name());
}

}  // namespace mlprof::libtorch
