// libFuzzer target: the streaming XSpace importer (model/xspace/importer.h), the path every
// .xplane.pb takes into the tools. Bytes are imported as one host; the result is either a
// one-line error with no host added, or a Profile every tool can walk, whose text is all
// UTF-8 and whose times all fit. Under libFuzzer, half the mutations are structured ones
// (xspace_mutations.h): names with invalid UTF-8, extreme durations, huge strings.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include "format/utf8_text.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/profile_invariants.h"
#include "fuzz/xspace_mutations.h"
#include "model/event_time_limits.h"
#include "model/xspace/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using mlprof::fuzz::check;
  mlprof::model::Profile profile;
  std::string error;
  if (!mlprof::model::import_xspace_bytes(data, size, "fuzz", &profile, &error)) {
    mlprof::fuzz::check_one_line_error(error);
    check(profile.hosts.empty(), "a rejected file adds no host");
    return 0;
  }
  check(profile.hosts.size() == 1, "an imported file is one host");
  mlprof::fuzz::check_profile(profile);
  for (size_t id = 0; id < profile.strings.size(); ++id)
    check(mlprof::format::is_valid_utf8(profile.strings.view(mlprof::model::StringId(id))), "every string is UTF-8");
  for (size_t e = 0; e < profile.num_events(); ++e) {
    int64_t end;
    check(profile.events.duration_ps[e] <= mlprof::model::kMaxEventDurationPs, "no event lasts past the bound");
    check(!__builtin_add_overflow(profile.events.start_ps[e], profile.events.duration_ps[e], &end),
          "every event's end fits in 64 bits");
  }
  return 0;
}

#ifdef MLPROF_LIBFUZZER
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (rng() % 2 == 0) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (mlprof::fuzz::mutate_xspace(bytes, rng, max_size)) {
      std::copy(bytes.begin(), bytes.end(), data);
      return bytes.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
#endif
