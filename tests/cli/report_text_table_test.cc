// Shortening names for text tables: what each kind of name keeps, and rows kept apart.
#include "cli/report_text_table.h"

#include <gtest/gtest.h>

#include <set>

namespace mlprof::cli {
namespace {

TEST(ShortenName, ShortNamesStayWhole) { EXPECT_EQ(shorten_name("aten::mm", 20), "aten::mm"); }

TEST(ShortenName, ScopePathKeepsItsFirstAndLastComponents) {
  EXPECT_EQ(shorten_name("replica_3/model/encoder/layer_2/dense/MatMul:MatMul", 40),
            "replica_3/…/layer_2/dense/MatMul:MatMul");
}

TEST(ShortenName, CppFunctionKeepsItsQualifiedName) {
  const std::string kernel =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
      ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
  EXPECT_EQ(shorten_name(kernel, 60), "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(shorten_name(kernel, 35), "…::vectorized_elementwise_kernel");
  EXPECT_EQ(shorten_name("void ns::(anonymous namespace)::kernel<int>(int*)", 40), "ns::(anonymous namespace)::kernel");
}

TEST(ShortenName, NeverWiderThanAsked) {
  for (size_t width : {1, 5, 12, 30})
    EXPECT_LE(display_width(shorten_name("a_very_long_name_without_any_structure_at_all", width)), width);
}

TEST(ShortenNames, ScopePathsKeepTheComponentsThatDiffer) {
  const std::vector<std::string> names = {
      "replica_6/bert/encoder/transformer/layer_17/self_attention/dropout/random_uniform/RandomUniform:RandomUniform",
      "replica_6/bert/encoder/transformer/layer_22/self_attention/dropout/random_uniform/RandomUniform:RandomUniform",
      "replica_6/bert/encoder/transformer/layer_22/self_attention/dropout/random_uniform/RandomUniform:RandomUniform"};
  const auto shown = shorten_names(names, 70);
  EXPECT_EQ(shown[0], "replica_6/…/layer_17/…/random_uniform/RandomUniform:RandomUniform");
  EXPECT_EQ(shown[1], "replica_6/…/layer_22/…/random_uniform/RandomUniform:RandomUniform");
  EXPECT_EQ(shown[2], shown[1]);  // the same name reads the same
}

TEST(ShortenNames, CppFunctionsKeepTheTemplateArgumentsThatDiffer) {
  const auto shown = shorten_names({"void at::native::kernel<4, at::native::FillFunctor<float> >(int)",
                                    "void at::native::kernel<4, at::native::AddFunctor<float> >(int)"},
                                   41);
  EXPECT_EQ(shown[0], "at::native::kernel<…, FillFunctor<float>>");
  EXPECT_EQ(shown[1], "at::native::kernel<…, AddFunctor<float>>");
}

TEST(ShortenNames, DistinctNamesStayDistinctWhenNarrow) {
  std::vector<std::string> names;
  for (int i = 0; i < 12; ++i)
    names.push_back("void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<T" +
                    std::to_string(i) + ", Eigen::GpuDevice>, long>(long)");
  const auto shown = shorten_names(names, 30);
  EXPECT_EQ(std::set<std::string>(shown.begin(), shown.end()).size(), names.size());
  for (const auto& s : shown) EXPECT_LE(display_width(s), 30u) << s;
}

TEST(WrapText, HangingIndentAndLongWords) {
  EXPECT_EQ(wrap_text("one two three four", 12, "  - ", "    "), "  - one two\n    three\n    four\n");
  EXPECT_EQ(wrap_text("unbreakable_word_here x", 10, "  ", "  "), "  unbreakable_word_here\n  x\n");
}

TEST(TextTable, ShortensItsTextColumnsToFitTheLine) {
  TextTable table({"total", "op"}, {true, false});
  table.add_row({"1.000 ms", std::string(200, 'x')});
  const std::string out = table.render("  ", 50);
  for (size_t begin = 0, end; (end = out.find('\n', begin)) != std::string::npos; begin = end + 1)
    EXPECT_LE(display_width(out.substr(begin, end - begin)), 50u);
}

}  // namespace
}  // namespace mlprof::cli
