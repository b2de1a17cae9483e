// `mlprof report` as text on real profiles: long names shortened so that rows stay apart,
// lines within the width, no type column that repeats the op names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/cli_runner.h"

namespace {

const std::string kTestData = MLPROF_TESTDATA;
const std::string kTensorFlowFile = kTestData + "/tensorflow/gpu_multi_worker.xplane.pb";
const std::string kPyTorchFile = kTestData + "/pytorch/df_index_resolver__df_index_resolver.json.gz";
const std::string kRocmFile = kTestData + "/pytorch/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz";

#define SKIP_WITHOUT(file)                                                                  \
  if (!std::filesystem::exists(file))                                                       \
  GTEST_SKIP() << "shared test data not found at " << (file) << " (only CI has it)"

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Code points of UTF-8 text, one string each, so that columns can be cut by display position.
std::vector<std::string> code_points(const std::string& s) {
  std::vector<std::string> out;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80 || out.empty()) out.emplace_back(1, char(c));
    else out.back() += char(c);
  return out;
}

// The cells of column `column` (counted from the left; negative: from the right) of the first
// table whose header line starts with `header_start`, as the rule under the header places them.
std::vector<std::string> table_column(const std::string& text, const std::string& header_start, int column) {
  const auto lines = lines_of(text);
  size_t at = 0;
  while (at < lines.size() && lines[at].find(header_start) == std::string::npos) ++at;
  if (at + 1 >= lines.size()) return {};
  // The rule: runs of '-' that mark each column's place.
  std::vector<std::pair<size_t, size_t>> places;
  const std::string& rule = lines[at + 1];
  for (size_t i = 0; i < rule.size(); ++i)
    if (rule[i] == '-' && (i == 0 || rule[i - 1] != '-')) places.push_back({i, rule.find(' ', i)});
  if (places.empty()) return {};
  const auto [begin, end] = places[column >= 0 ? size_t(column) : places.size() - size_t(-column)];
  std::vector<std::string> cells;
  for (size_t row = at + 2; row < lines.size() && !lines[row].empty() && lines[row][0] == ' ' &&
                            lines[row].rfind("  ...", 0) != 0;
       ++row) {
    const auto points = code_points(lines[row]);
    std::string cell;
    for (size_t i = begin; i < std::min(end, points.size()); ++i) cell += points[i];
    while (!cell.empty() && cell.back() == ' ') cell.pop_back();
    cells.push_back(cell);
  }
  return cells;
}

std::string report(const std::string& file, const std::string& tool, const std::string& format = "text") {
  const auto r = mlprof::testing::run_mlprof("report " + file + " --tool " + tool + " --format " + format);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// Each full name and the text shown for it, row by row: distinct names must read differently.
void expect_distinct(const std::vector<std::string>& full, const std::vector<std::string>& shown) {
  ASSERT_FALSE(shown.empty());
  ASSERT_LE(shown.size(), full.size());
  std::map<std::string, std::string> full_by_shown;
  for (size_t i = 0; i < shown.size(); ++i) {
    const auto [it, added] = full_by_shown.emplace(shown[i], full[i]);
    EXPECT_TRUE(added || it->second == full[i]) << "\"" << shown[i] << "\" shows both\n  " << it->second << "\n  "
                                                << full[i];
  }
}

std::vector<std::string> json_names(const nlohmann::json& rows, const char* key) {
  std::vector<std::string> names;
  for (const auto& row : rows) names.push_back(row.value(key, ""));
  return names;
}

TEST(CliReportText, KernelStatsRowsOfTensorFlowReadApart) {
  SKIP_WITHOUT(kTensorFlowFile);
  const auto json = nlohmann::json::parse(report(kTensorFlowFile, "kernel_stats", "json"));
  const std::string text = report(kTensorFlowFile, "kernel_stats");
  expect_distinct(json_names(json["kernels"], "kernel_name"), table_column(text, "rank", -2));
  expect_distinct(json_names(json["kernels"], "op_name"), table_column(text, "rank", -1));
  // The function's name stays, its template arguments and parameters go first.
  EXPECT_NE(text.find("EigenMetaKernel"), std::string::npos) << text;
  EXPECT_NE(text.find("replica_6/"), std::string::npos) << text;
}

TEST(CliReportText, FrameworkOpStatsRowsOfTensorFlowReadApart) {
  SKIP_WITHOUT(kTensorFlowFile);
  const auto json = nlohmann::json::parse(report(kTensorFlowFile, "framework_op_stats", "json"));
  std::vector<std::string> device_ops;
  for (const auto& op : json["ops"])
    if (op.value("host_or_device", "") == "Device") device_ops.push_back(op.value("name", ""));
  expect_distinct(device_ops, table_column(report(kTensorFlowFile, "framework_op_stats"), "rank", -1));
}

TEST(CliReportText, OverviewTopOpsOfTensorFlowReadApart) {
  SKIP_WITHOUT(kTensorFlowFile);
  const auto json = nlohmann::json::parse(report(kTensorFlowFile, "overview_page", "json"));
  const std::string text = report(kTensorFlowFile, "overview_page");
  const auto shown = table_column(text, "  self time  self %", -1);
  expect_distinct(json_names(json["top_ops"], "name"), shown);
  // The replica and the layer tell these ops apart.
  ASSERT_GE(shown.size(), 3u);
  EXPECT_EQ(shown[2].rfind("replica_6/", 0), 0u) << shown[2];
  EXPECT_NE(shown[2].find("layer_17"), std::string::npos) << shown[2];
}

TEST(CliReportText, FullNamesStayInJsonAndCsv) {
  SKIP_WITHOUT(kTensorFlowFile);
  const std::string op =
      "replica_6/bert_span_labeler/bert_encoder_1/transformer/layer_17/self_attention/dropout_3/dropout/"
      "random_uniform/RandomUniform:RandomUniform";
  const std::string kernel = "void tensorflow::functor::FillPhiloxRandomKernelLaunch<tensorflow::random::";
  for (const std::string format : {"json", "csv"}) {
    const std::string kernels = report(kTensorFlowFile, "kernel_stats", format);
    EXPECT_NE(kernels.find(op), std::string::npos) << format;
    EXPECT_NE(kernels.find(kernel), std::string::npos) << format;
    EXPECT_EQ(kernels.find("…"), std::string::npos) << format;
    EXPECT_NE(report(kTensorFlowFile, "framework_op_stats", format).find(op), std::string::npos) << format;
  }
}

// A line may pass the width only where it is one word that cannot be broken.
void expect_within(const std::string& text, size_t width, const std::string& what) {
  for (const auto& line : lines_of(text)) {
    if (code_points(line).size() <= width) continue;
    const size_t first = line.find_first_not_of(" -");
    EXPECT_EQ(line.find(' ', first), std::string::npos) << what << ": a line of " << code_points(line).size()
                                                        << " columns:\n" << line;
  }
}

TEST(CliReportText, LinesFitTheWidth) {
  SKIP_WITHOUT(kTensorFlowFile);
  SKIP_WITHOUT(kPyTorchFile);
  const std::string nccl = kTestData + "/pytorch/nccl_parser_config__nccl_data.json.gz";
  const std::string small = kTestData + "/pytorch/trace_compare__base__base.json.gz";
  for (size_t width : {100, 140}) {
    // Not a terminal: 100 columns unless $COLUMNS says otherwise.
    if (width == 100) unsetenv("COLUMNS");
    else setenv("COLUMNS", std::to_string(width).c_str(), 1);
    for (const std::string& file : {kTensorFlowFile, kPyTorchFile, nccl, small})
      for (const std::string tool : {"overview_page", "kernel_stats", "framework_op_stats"})
        expect_within(report(file, tool), width, file + " " + tool + " at " + std::to_string(width));
  }
  unsetenv("COLUMNS");
}

TEST(CliReportText, NoTypeColumnWhereNamesAreTheirTypes) {
  SKIP_WITHOUT(kPyTorchFile);
  const std::string text = report(kPyTorchFile, "framework_op_stats");
  const auto lines = lines_of(text);
  size_t tables = 0;
  for (const auto& line : lines)
    if (line.rfind("  rank", 0) == 0) {
      ++tables;
      EXPECT_EQ(line.find(" type "), std::string::npos) << line;
    }
  EXPECT_EQ(tables, 2u) << text;
  EXPECT_EQ(table_column(text, "rank", -1).front(), "nccl:all_reduce") << text;
  // Overview's top ops too.
  EXPECT_EQ(report(kPyTorchFile, "overview_page").find("  type "), std::string::npos);
}

// The per-step table's columns add up to each step's total: on this trace a third of each step
// is device collectives and device-to-device copies, which the table used to leave out.
TEST(CliReportText, StepColumnsAddUpToTheStepTotal) {
  SKIP_WITHOUT(kPyTorchFile);
  const std::string text = report(kPyTorchFile, "overview_page");
  const auto lines = lines_of(text);
  size_t at = 0;
  while (at < lines.size() && lines[at] != "Steps (ms)") ++at;
  ASSERT_LT(at + 3, lines.size()) << text;
  ASSERT_EQ(lines[at + 1].find("step    total"), 2u) << lines[at + 1];  // one host: no host column
  size_t rows = 0;
  for (size_t row = at + 3; row < lines.size() && !lines[row].empty(); ++row, ++rows) {
    std::istringstream cells(lines[row]);
    double step = 0, total = 0, sum = 0, cell = 0;
    size_t columns = 0;
    cells >> step >> total;
    while (cells >> cell) sum += cell, ++columns;
    EXPECT_GE(columns, 6u) << lines[row];
    EXPECT_NEAR(sum, total, 0.0005 * double(columns)) << lines[row];
  }
  EXPECT_EQ(rows, 5u) << text;
}

// Work kinds that overlap on concurrent streams each count that time, as HTA counts them: where
// the shares of busy time add up to more than 100 %, the text says so and gives the sum.
TEST(CliReportText, OverlappingGpuWorkKindsSayTheyOverlap) {
  const std::string file = kTestData + "/pytorch/nccl_parser_config__nccl_data.json.gz";
  SKIP_WITHOUT(file);
  const auto j = nlohmann::json::parse(report(file, "gpu_time_breakdown", "json"));
  double sum = 0;
  for (const auto& [kind, pct] : j["hosts"][0]["gpu_time_breakdown"]["kernel_type_pct"].items()) sum += pct.get<double>();
  ASSERT_GT(sum, 100.05);
  std::string text = report(file, "gpu_time_breakdown");
  std::replace(text.begin(), text.end(), '\n', ' ');
  for (size_t at; (at = text.find("  ")) != std::string::npos;) text.erase(at, 1);
  char expected[96];
  std::snprintf(expected, sizeof expected, "kinds overlap where streams run at once: together %.1f%%", sum);
  EXPECT_NE(text.find(expected), std::string::npos) << text;
}

// A tool option the profile cannot answer is a usage error before any output, naming the flag
// as typed; an option the tool does not take is refused too.
TEST(CliReportToolOptions, ErrorsComeFirstAndNameTheFlag) {
  const std::string file = kRocmFile;
  SKIP_WITHOUT(file);
  for (const char* tool : {"memory_profile", "kernel_stats"}) {
    const auto r = mlprof::testing::run_mlprof("report " + file + " --tool " + tool + " --memory-id nosuch");
    EXPECT_EQ(r.exit_code, 1) << tool;
    EXPECT_EQ(r.out, "") << tool;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("--memory-id"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("memory_id"), std::string::npos) << r.err;
  }
}

// The MI250 trace is ROCm's: HIP runtime calls (hipLaunchKernel), devices named "AMD Radeon
// Graphics" with 104 compute units (numSms) and GFX version 9.0 (computeMajor/Minor; gfx90a).
TEST(CliReportRocm, OverviewSpeaksOfAmdGpus) {
  const std::string file = kRocmFile;
  SKIP_WITHOUT(file);
  const std::string text = report(file, "overview_page");
  EXPECT_NE(text.find("104 per device (compute units), GFX version 9.0"), std::string::npos) << text;
  EXPECT_NE(text.find("HIP graphs"), std::string::npos) << text;
  EXPECT_NE(text.find("matrix cores"), std::string::npos) << text;
  for (const char* nvidia : {"streaming multiprocessors", "compute capability", "Tensor Cores", "CUDA"})
    EXPECT_EQ(text.find(nvidia), std::string::npos) << nvidia << " in:\n" << text;
  EXPECT_EQ(nlohmann::json::parse(report(file, "overview_page", "json"))["run_environment"]["gpu_vendor"], "AMD");

  // An NVIDIA A100 trace keeps CUDA's words.
  const std::string a100 = kTestData + "/pytorch/nccl_parser_config__nccl_data.json.gz";
  const std::string nvidia = report(a100, "overview_page");
  EXPECT_NE(nvidia.find("108 per device (streaming multiprocessors), compute capability 8.0"), std::string::npos)
      << nvidia;
}

// The two ranks of testdata/pytorch both have steps (ProfilerStep#551; #101 to #105) but none
// in common: the report says so instead of asking for ranks with steps.
TEST(CliReportStragglers, RanksWithoutCommonStepsSaySo) {
  const std::string dir = kTestData + "/pytorch";
  SKIP_WITHOUT(dir + "/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  const std::string text = report(dir, "stragglers");
  EXPECT_NE(text.find("no step number in common"), std::string::npos) << text;
  EXPECT_EQ(text.find("need two or more ranks"), std::string::npos) << text;
}

// The breakdown's span is the steps' time with --scope steps (this trace's one step lasts
// 413 ms around 45 us of GPU work), the first to the last GPU work otherwise.
TEST(CliReportGpuTime, SpanSaysWhatItIsInEachScope) {
  const std::string file = kTestData + "/pytorch/call_stack__backward_thread.json";
  SKIP_WITHOUT(file);
  const std::string steps = report(file, "gpu_time_breakdown --scope steps");
  EXPECT_NE(steps.find("in the analysed steps"), std::string::npos) << steps;
  EXPECT_EQ(steps.find("from the first to the last GPU work"), std::string::npos) << steps;
  for (const char* scope : {"hta", "profile"}) {
    const std::string text = report(file, std::string("gpu_time_breakdown --scope ") + scope);
    EXPECT_NE(text.find("from the first to the last GPU work"), std::string::npos) << scope << ":\n" << text;
  }
}

}  // namespace
