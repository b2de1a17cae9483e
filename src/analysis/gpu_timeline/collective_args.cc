#include "analysis/gpu_timeline/collective_args.h"

#include "model/op_arg_names.h"

namespace mlprof::analysis {

CollectiveArgReader::CollectiveArgReader(const model::Profile& p)
    : p_(p),
      collective_(p.strings.find(model::kArgCollectiveName)),
      in_(p.strings.find(model::kArgInMsgNelems)),
      out_(p.strings.find(model::kArgOutMsgNelems)),
      dtype_(p.strings.find(model::kArgDtype)),
      group_(p.strings.find(model::kArgProcessGroupName)),
      ranks_(p.strings.find(model::kArgProcessGroupRanks)),
      size_(p.strings.find(model::kArgGroupSize)),
      by_name_(p.names.size(), -1) {}

bool CollectiveArgReader::named(model::EventIndex e) {
  if (collective_ == model::kNoString) return false;
  int8_t& known = by_name_[p_.events.name[e]];
  if (known < 0) {
    const model::StatRange r = p_.names[p_.events.name[e]].stats;
    known = 0;
    for (uint32_t i = r.first; i < r.first + r.count; ++i) known |= p_.metadata_stats.key(i) == collective_;
  }
  return known == 1;
}

CollectiveArgs CollectiveArgReader::of(model::EventIndex e) const {
  CollectiveArgs a;
  if (collective_ == model::kNoString) return a;
  auto text = [&](model::StringId key) {
    if (key == model::kNoString) return std::string_view();
    auto v = p_.stat(e, key);
    return v ? p_.string_of(*v) : std::string_view();
  };
  auto integer = [&](model::StringId key) -> int64_t {
    if (key == model::kNoString) return -1;
    auto v = p_.stat(e, key);
    return v && v->is_number() ? v->as_int() : -1;
  };
  a.collective = text(collective_);
  if (a.collective.empty()) return a;
  a.present = true;
  a.dtype = text(dtype_);
  a.group = text(group_);
  a.ranks = text(ranks_);
  a.in_nelems = integer(in_);
  a.out_nelems = integer(out_);
  a.group_size = integer(size_);
  return a;
}

CollectiveArgs CollectiveArgReader::of_or_around(model::EventIndex e) {
  for (model::EventIndex a = e; a != model::kNone; a = p_.events.parent[a])
    if (named(a)) {
      CollectiveArgs args = of(a);
      if (args.present) return args;
    }
  return {};
}

}  // namespace mlprof::analysis
