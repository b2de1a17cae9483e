// Reads a batch of PyTorch trace events straight from simdjson's structural index (its stage 1,
// with the kernels this processor has, chosen at run time), walking the tokens once without
// On-Demand's iterators: a fraction of the CPU an event. It takes only batches whose objects,
// arrays, keys and separators are well-formed throughout (On-Demand checks no more of what it
// passes over, and no scalar it is not asked to parse) and whose strings it keeps have no
// escapes; for any other batch it says so, and the On-Demand parser reads that batch, with its
// own errors. Both fill RawEvents from the same key tables (pytorch/raw_event.h).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "model/pytorch/raw_event.h"
#include "model/pytorch/trace_tokenizer.h"

namespace simdjson::internal {
class dom_parser_implementation;
}

namespace mlprof::model::kineto {

class EventScan {
 public:
  EventScan();
  ~EventScan();
  EventScan(const EventScan&) = delete;
  EventScan& operator=(const EventScan&) = delete;

  // Appends the batch's events ("[{...}, ...]"), their parts to `parts`, and returns true; or
  // returns false, `raws` as it was (and `parts` holding some that no event names), when the
  // batch is not one this reads.
  bool read(const PaddedJson& batch, std::vector<RawEvent>* raws, RawParts* parts);

 private:
  std::unique_ptr<simdjson::internal::dom_parser_implementation> stage1_;
  size_t capacity_ = 0;
};

}  // namespace mlprof::model::kineto
