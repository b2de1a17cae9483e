// What a collective call recorded about itself: PyTorch's `Collective name`, message sizes,
// dtype and process group (model/op_arg_names.h), on the kernel, on record_param_comms, or on
// the op that launched the kernel. Read by the collectives tool and by the matching of calls
// across ranks (collective_calls.h), so that both see one process group per call.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct CollectiveArgs {
  bool present = false;
  std::string_view collective, dtype, group, ranks;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
};

class CollectiveArgReader {
 public:
  explicit CollectiveArgReader(const model::Profile& p);

  // Whether e's name carries a collective's arguments (PyTorch's reader puts them there).
  bool named(model::EventIndex e);
  CollectiveArgs of(model::EventIndex e) const;
  // The arguments of e, else of the nearest event around it on its line that has them (a host
  // op inside record_param_comms, a launch inside the collective's op); absent when none has.
  CollectiveArgs of_or_around(model::EventIndex e);

 private:
  const model::Profile& p_;
  const model::StringId collective_, in_, out_, dtype_, group_, ranks_, size_;
  std::vector<int8_t> by_name_;
};

}  // namespace mlprof::analysis
