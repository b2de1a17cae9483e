// HLO op names, categories, counts and times of hlo_stats and op_profile against XProf's own
// answers for a TPU v5 training profile (../shared/testdata/wild/xprof/golden_tpu_training_no_input/;
// the profile itself is not public). Its ops are rebuilt here from XProf's hlo_stats rows (read
// with this test's JSON reader): a TPU plane whose "XLA Ops" line runs each row's instruction
// `occurrences` times for its total self time, with its `hlo_category`, `program_id`, module
// and framework op as the file would carry them. mlprof's tools must then give back XProf's
// names (hlo_op_name: the instruction's name, ConvertOpStatsToHloStats in
// xprof/convert/op_stats_to_hlo_stats.cc), categories, occurrences, self times, shares and
// ranking, op_profile's program and category nodes (xprof/convert/op_profile_builder.cc), and
// the overview's top ops (framework ops by self time: the top_device_ops of ComputeAnalysisResult,
// xprof/convert/op_stats_to_overview_page.cc, from CreateTfMetricsDbFromDeviceOpMetricsDb).
//
// Where mlprof differs on purpose, the tools say so in their JSON (`notes`):
// - hlo_stats' self time shares are of the time ops ran; XProf's of all the time, idle included;
// - XProf's op profile merges ops of one fingerprint ("fusion.14 and its duplicate(s)");
//   mlprof lists each op, so the op nodes' counts differ while the category nodes agree;
// - XProf's tree leaves the ops that enclose others out of its categories (its program node
//   counts them); mlprof keeps them under their category.
// And the test's own limit:
// - the five rows whose total time exceeds their self time (while loops and fusions that
//   enclose other ops) are rebuilt without what they enclose: only their self time is compared.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/hlo_ops.h"
#include "analysis/hlo_stats.h"
#include "analysis/op_profile.h"
#include "analysis/overview_page.h"
#include "format/xspace_schema.h"
#include "model/xspace/importer.h"
#include "model/xspace_builder.h"
#include "xplane.pb.h"
#include "testdata_files.h"

namespace mlprof::analysis {
namespace {

using mlprof::testing::gunzip;

namespace tp = tensorflow::profiler;

const std::string kDir = std::string(MLPROF_TESTDATA) + "/wild/xprof/golden_tpu_training_no_input/";
const std::string kHloStats = kDir + "xprof__golden_data_tpu-training_hlo_stats_tpu_training.json.gz";
const std::string kOpProfile = kDir + "xprof__golden_data_tpu-training_op_profile_tpu_training.json.gz";

// One row of XProf's hlo_stats table.
struct XprofRow {
  std::string program_id, category, name, expression, framework_op;
  uint64_t occurrences = 0;
  double total_us = 0, self_us = 0, self_pct = 0;
  int rank = 0;
};

std::vector<XprofRow> xprof_hlo_stats() {
  const nlohmann::json table = nlohmann::json::parse(gunzip(kHloStats));
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < table.at("cols").size(); ++i) column[table["cols"][i].at("id")] = i;
  std::vector<XprofRow> rows;
  for (const nlohmann::json& r : table.at("rows")) {
    auto v = [&](const char* id) -> const nlohmann::json& { return r.at("c").at(column.at(id)).at("v"); };
    XprofRow row;
    row.rank = int(v("rank").get<double>());
    row.program_id = v("program_id");
    row.category = v("category");
    row.name = v("hlo_op_name");
    row.expression = v("hlo_op_expression");
    row.framework_op = v("tf_op_name");
    row.occurrences = uint64_t(v("occurrences").get<double>());
    row.total_us = v("total_time");
    row.self_us = v("total_self_time");
    row.self_pct = v("total_self_time_percent");
    rows.push_back(std::move(row));
  }
  return rows;
}

// Program id -> module name, from the op profile's program nodes ("jit_train_step(2041...)").
std::map<std::string, std::string> xprof_modules(const nlohmann::json& op_profile) {
  std::map<std::string, std::string> out;
  for (const nlohmann::json& program : op_profile.at("byProgram").at("children")) {
    const std::string name = program.at("name");
    const size_t open = name.rfind('(');
    if (open != std::string::npos && name.back() == ')') out[name.substr(open + 1, name.size() - open - 2)] = name;
  }
  return out;
}

int64_t self_ps(const XprofRow& r) { return std::llround(r.self_us * 1e6); }

// The rows' ops on one TPU plane, one after another.
model::Profile rebuild(const std::vector<XprofRow>& rows, const std::map<std::string, std::string>& modules,
                       const std::string& dir) {
  tp::XSpace space;
  auto plane = testing::add_plane(&space, 1, "/device:TPU:0");
  plane.plane_stat("device_type_string", std::string("TPU v5"));
  auto* line = plane.line(format::xspace::kDerivedLineIdBase + 5, "XLA Ops", 1000);
  int64_t at = 0;
  for (const XprofRow& r : rows) {
    const int64_t id = plane.event_metadata(r.expression);
    tp::XEventMetadata& m = plane.plane()->mutable_event_metadata()->at(id);
    m.set_display_name(r.name);  // as XProf's TPU files name their XLA ops' metadata
    auto add = [&](const std::string& key, const std::string& value) {
      tp::XStat* s = m.add_stats();
      s->set_metadata_id(plane.stat_metadata(key));
      s->set_str_value(value);
    };
    add("hlo_category", r.category);
    add("tf_op", r.framework_op);
    add("hlo_module", modules.count(r.program_id) ? modules.at(r.program_id) : "program " + r.program_id);
    tp::XStat* program = m.add_stats();
    program->set_metadata_id(plane.stat_metadata("program_id"));
    program->set_uint64_value(std::stoull(r.program_id));
    // Its self time over its runs, the remainder on the last.
    const int64_t total = self_ps(r), each = total / int64_t(r.occurrences);
    for (uint64_t k = 0; k < r.occurrences; ++k) {
      const int64_t duration = k + 1 == r.occurrences ? total - each * int64_t(k) : each;
      tp::XEvent* e = line->add_events();
      e->set_metadata_id(id);
      e->set_offset_ps(at);
      e->set_duration_ps(duration);
      at += duration;
    }
  }
  const std::string path = dir + "/xprof_tpu_training.xplane.pb";
  testing::write_xspace(path, space);
  model::Profile profile;
  std::string error;
  EXPECT_TRUE(model::import_xspace_file(path, "xprof_tpu_training", &profile, &error)) << error;
  return profile;
}

class XprofNames : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kHloStats) || !std::filesystem::exists(kOpProfile))
      GTEST_SKIP() << kDir << " not found (it is in ../shared/testdata)";
    op_profile_ = nlohmann::json::parse(gunzip(kOpProfile));
    rows_ = xprof_hlo_stats();
    profile_ = rebuild(rows_, xprof_modules(op_profile_), dir_.path());
  }
  testing::TempDir dir_;
  nlohmann::json op_profile_;
  std::vector<XprofRow> rows_;
  model::Profile profile_;
};

TEST_F(XprofNames, HloStatsRowsAreXProfs) {
  ASSERT_EQ(rows_.size(), 357u);  // XProf's table
  const HloStats stats = compute_hlo_stats(profile_);
  ASSERT_EQ(stats.rows.size(), rows_.size());
  int64_t busy = 0, idle = 0;
  for (const XprofRow& x : rows_) busy += self_ps(x);
  for (const nlohmann::json& p : op_profile_.at("byProgram").at("children"))
    if (p.at("name") == "IDLE") idle = std::llround(p.at("metrics").at("rawTime").get<double>());
  ASSERT_GT(idle, 0);
  EXPECT_EQ(stats.busy_ps, busy);
  bool says_idle = false;
  for (const std::string& note : stats.notes) says_idle |= note.find("idle time included") != std::string::npos;
  EXPECT_TRUE(says_idle) << "hlo_stats says its shares are of busy time, unlike XProf's";
  // By program id and name: XProf's names are unique within a program.
  auto program_id = [](const std::string& module) { return module.substr(module.rfind('(') + 1); };
  std::map<std::string, const HloStatsRow*> mine;
  for (const HloStatsRow& r : stats.rows) mine[program_id(r.program) + r.name] = &r;
  ASSERT_EQ(mine.size(), rows_.size());
  size_t nested = 0;
  for (const XprofRow& x : rows_) {
    SCOPED_TRACE(x.name);
    const std::string key = x.program_id + ")" + x.name;
    ASSERT_TRUE(mine.count(key)) << "no row named as XProf names it";
    const HloStatsRow& m = *mine.at(key);
    EXPECT_EQ(m.category, x.category);
    EXPECT_EQ(m.expression, x.expression);
    EXPECT_EQ(m.provenance, x.framework_op);
    EXPECT_EQ(m.occurrences, x.occurrences);
    EXPECT_EQ(m.self_ps, self_ps(x));
    // XProf's share is of all the time, its idle time (the op profile's IDLE node) included;
    // mlprof's of the time ops ran.
    EXPECT_NEAR(m.self_pct * double(busy) / double(busy + idle), x.self_pct, 1e-6 * std::max(1.0, x.self_pct));
    if (std::abs(x.total_us - x.self_us) > 1e-6) ++nested;
    else EXPECT_NEAR(double(m.total_ps) / 1e6, x.total_us, 1e-6 * x.total_us + 1e-6);
  }
  EXPECT_EQ(nested, 5u);  // rebuilt without the ops they enclose
  // XProf's ranking by self time, where no two rows tie.
  size_t ranked = 0;
  for (size_t i = 0; i + 1 < rows_.size() && i < 50; ++i) {
    const XprofRow& x = rows_[i];
    ASSERT_EQ(x.rank, int(i + 1));
    if (std::abs(rows_[i + 1].self_us - x.self_us) < 1e-3 || (i > 0 && std::abs(rows_[i - 1].self_us - x.self_us) < 1e-3))
      continue;
    EXPECT_EQ(stats.rows[i].name, x.name) << "rank " << x.rank;
    ++ranked;
  }
  EXPECT_GE(ranked, 40u);
}

// op_profile by program, then category: XProf's program and category nodes, each with its time
// (rawTime, ps) and occurrences; its op nodes merge duplicates, which mlprof does not.
TEST_F(XprofNames, OpProfileProgramsAndCategoriesAreXProfs) {
  const OpProfile mine = compute_op_profile(profile_);
  ASSERT_FALSE(mine.views.empty());
  const OpProfileNode& by_program = mine.views[0].by_program;
  std::map<std::string, const OpProfileNode*> programs;
  for (const OpProfileNode& p : by_program.children) programs[p.name] = &p;
  size_t compared = 0;
  for (const nlohmann::json& xp : op_profile_.at("byProgram").at("children")) {
    const std::string name = xp.at("name");
    if (name == "IDLE") continue;  // XProf's idle time: not an op; mlprof's busy time leaves it out
    SCOPED_TRACE(name);
    ASSERT_TRUE(programs.count(name));
    const OpProfileNode& p = *programs.at(name);
    const double program_raw = xp.at("metrics").at("rawTime").get<double>();
    EXPECT_NEAR(double(p.self_ps), program_raw, 1e-6 * program_raw + 2);
    std::map<std::string, const OpProfileNode*> categories;
    for (const OpProfileNode& c : p.children) categories[c.name] = &c;
    // XProf's tree leaves out the ops that enclose others (this profile's megacore fusions and
    // while loops) while its program node counts their time; mlprof keeps them under their
    // category, so that categories add up to the program.
    std::set<std::string> extra;
    for (const auto& [category, node] : categories) extra.insert(category);
    for (const nlohmann::json& xc : xp.at("children")) extra.erase(xc.at("name").get<std::string>());
    const std::set<std::string> left_out_by_xprof =
        name.starts_with("jit_train_step") ? std::set<std::string>{"megacore fusion", "while"} : std::set<std::string>{};
    EXPECT_EQ(extra, left_out_by_xprof);
    for (const nlohmann::json& xc : xp.at("children")) {
      const std::string category = xc.at("name");
      SCOPED_TRACE(category);
      ASSERT_TRUE(categories.count(category));
      const OpProfileNode& c = *categories.at(category);
      const double raw = xc.at("metrics").at("rawTime").get<double>();
      EXPECT_NEAR(double(c.self_ps), raw, 1e-6 * raw + 2);
      uint64_t occurrences = 0;
      for (const OpProfileNode& op : c.children) occurrences += op.occurrences;
      EXPECT_EQ(occurrences, uint64_t(xc.at("metrics").at("occurrences").get<double>()));
      // XProf's op nodes: one per fingerprint ("... and its duplicate(s)"); mlprof's, one per op.
      EXPECT_GE(c.children.size(), xc.at("children").size());
      ++compared;
    }
  }
  EXPECT_EQ(compared, 16u + 1 + 5);  // jit_train_step's 16 categories, the data generator's 1, fold_in's 5
  // (The note on enclosing ops comes with ops that enclose others, which this rebuild has not.)
  bool says_duplicates = false;
  for (const std::string& note : mine.notes) says_duplicates |= note.find("duplicate(s)") != std::string::npos;
  EXPECT_TRUE(says_duplicates) << "the op profile says it lists duplicates apart, unlike XProf";
}

// The overview's top ops on the device: XProf's are the framework ops (tf_op) the XLA ops ran
// for, by self time, each with its JAX primitive as category; XLA's own ops (an empty tf_op)
// are not among them. mlprof's are the same ten, named as XProf names them (without the ':' of
// JAX's tf_op, "name:type" with no type).
const std::string kOverview = kDir + "xprof__golden_data_tpu-training_overview_page_tpu_training.json.gz";

TEST_F(XprofNames, OverviewTopOpsAreXProfs) {
  if (!std::filesystem::exists(kOverview)) GTEST_SKIP() << kOverview << " not found";
  const nlohmann::json table = nlohmann::json::parse(gunzip(kOverview)).at(0);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < table.at("cols").size(); ++i) column[table["cols"][i].at("id")] = i;
  const OverviewPage page = compute_overview_page(profile_);
  EXPECT_TRUE(page.top_ops_on_device);
  ASSERT_EQ(table.at("rows").size(), 10u);
  ASSERT_EQ(page.top_ops.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    const nlohmann::json& row = table["rows"][i].at("c");
    auto v = [&](const char* id) -> const nlohmann::json& { return row.at(column.at(id)).at("v"); };
    const TopOp& mine = page.top_ops[i];
    SCOPED_TRACE(v("operation").get<std::string>());
    EXPECT_EQ(mine.name, v("operation").get<std::string>());
    EXPECT_EQ(mine.type, v("category").get<std::string>());
    // XProf's shares are fractions of the ops' self time.
    EXPECT_NEAR(mine.self_pct, 100 * v("selfTimePercent").get<double>(), 1e-6);
    EXPECT_NEAR(mine.cumulative_pct, 100 * v("cumulativeTimePercent").get<double>(), 1e-6);
  }
}

}  // namespace
}  // namespace mlprof::analysis
