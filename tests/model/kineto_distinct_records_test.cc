// The table that keeps each distinct record of a trace once (model/pytorch/distinct_records.h),
// against a linear search over the records kept so far: the same indices, in the same order of
// first appearance, through the table's growth.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "model/pytorch/distinct_records.h"
#include "model/pytorch/trace_parser.h"

namespace mlprof::model::kineto {
namespace {

uint32_t by_search(std::vector<MemoryRecord>* records, const MemoryRecord& r) {
  for (size_t i = 0; i < records->size(); ++i)
    if ((*records)[i] == r) return uint32_t(i);
  records->push_back(r);
  return uint32_t(records->size() - 1);
}

TEST(KinetoDistinctRecords, AgreesWithALinearSearch) {
  std::mt19937_64 rng(36);
  DistinctRecords<MemoryRecord> table;
  std::vector<MemoryRecord> kept, expected;
  for (int i = 0; i < 20000; ++i) {
    MemoryRecord r;
    r.addr = int64_t(rng() % 3000) * 512;  // about 3000 distinct blocks, each seen several times
    r.bytes = r.addr % 7 == 0 ? -512 : 512;
    r.device_id = 0;
    const uint32_t got = table.index_of(r, &kept), want = by_search(&expected, r);
    ASSERT_EQ(got, want) << i;
  }
  EXPECT_EQ(kept.size(), expected.size());
  EXPECT_GT(kept.size(), 1024u);  // the table grew past its first size
}

TEST(KinetoDistinctRecords, KeepsRecordsThatDifferInOneField) {
  DistinctRecords<KernelLaunch> table;
  std::vector<KernelLaunch> kept;
  KernelLaunch a, b;
  b.grid[2] = 1;
  EXPECT_EQ(table.index_of(a, &kept), 0u);
  EXPECT_EQ(table.index_of(b, &kept), 1u);
  EXPECT_EQ(table.index_of(a, &kept), 0u);
  // A launch whose occupancy is not a number equals none, itself included, as == says.
  KernelLaunch nan;
  nan.occupancy_pct = std::nan("");
  EXPECT_EQ(table.index_of(nan, &kept), 2u);
  EXPECT_EQ(table.index_of(nan, &kept), 3u);
  EXPECT_EQ(kept.size(), 4u);
}

}  // namespace
}  // namespace mlprof::model::kineto
