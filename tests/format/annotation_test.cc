#include "format/annotation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace mlprof::format {
namespace {

std::string encoded(std::string_view name, std::initializer_list<TraceArg> args) {
  std::string out;
  append_encoded(out, name, args.begin(), args.size());
  return out;
}

TEST(AnnotationEncode, NameWithoutArgsIsJustTheName) {
  EXPECT_EQ(encoded("matmul", {}), "matmul");
}

TEST(AnnotationEncode, WritesEveryValueKind) {
  EXPECT_EQ(encoded("op", {{"i", -7}, {"u", uint64_t{18446744073709551615ull}}, {"d", 0.25},
                           {"b", true}, {"s", "conv"}}),
            "op#i=-7,u=18446744073709551615,d=0.25,b=1,s=conv#");
}

TEST(AnnotationEncode, EncodeIntoNeverOverrunsAndReportsTheLengthNeeded) {
  const TraceArg args[] = {{"step", 12345}, {"name", "long_value"}};
  char buf[16];
  std::memset(buf, '~', sizeof buf);
  const size_t need = encode_into(buf, 8, "annotation", args, 2);
  EXPECT_EQ(need, std::string("annotation#step=12345,name=long_value#").size());
  EXPECT_EQ(std::string(buf, 8), "annotati");
  EXPECT_EQ(buf[8], '~');
  EXPECT_EQ(encode_into(nullptr, 0, "annotation", args, 2), need);
}

TEST(AnnotationParse, NameOnly) {
  const ParsedAnnotation p = parse_annotation("Iterator::Batch::Map");
  EXPECT_EQ(p.name, "Iterator::Batch::Map");
  EXPECT_TRUE(p.args.empty());
}

TEST(AnnotationParse, CommasInsideBracketsAndQuotesDoNotSplit) {
  const ParsedAnnotation p = parse_annotation(
      R"(op#shape=[1,2,3],q="a,b",r='c,d',t=(x,y),m={k:1,j:2},last=9#)");
  EXPECT_EQ(p.name, "op");
  ASSERT_EQ(p.args.size(), 6u);
  EXPECT_EQ(p.args[0].key, "shape");
  EXPECT_EQ(std::get<std::string_view>(p.args[0].value), "[1,2,3]");
  EXPECT_EQ(std::get<std::string_view>(p.args[1].value), "a,b");  // double quotes are taken off
  EXPECT_EQ(std::get<std::string_view>(p.args[2].value), "'c,d'");
  EXPECT_EQ(std::get<std::string_view>(p.args[3].value), "(x,y)");
  EXPECT_EQ(std::get<std::string_view>(p.args[4].value), "{k:1,j:2}");
  EXPECT_EQ(std::get<int64_t>(p.args[5].value), 9);
}

// As TensorFlow's splitter (tsl/profiler/utils/parse_annotation.cc, SplitPairs): one stack of
// what is open, where a quote or bracket inside quotes opens too, and a closer that does not
// match the top is ignored.
TEST(AnnotationParse, SplitsWhereTraceMesSplitterDoes) {
  const ParsedAnnotation p = parse_annotation(R"(op#a="x[y",b=2,c=3#)");
  ASSERT_EQ(p.args.size(), 1u);  // '[' stays open inside the quotes: the rest is a's value
  EXPECT_EQ(std::get<std::string_view>(p.args[0].value), R"("x[y",b=2,c=3)");
  const ParsedAnnotation q = parse_annotation("op#a=x],b=(1,2)),c=3#");
  ASSERT_EQ(q.args.size(), 3u);
  EXPECT_EQ(std::get<std::string_view>(q.args[0].value), "x]");
  EXPECT_EQ(std::get<std::string_view>(q.args[1].value), "(1,2))");
}

TEST(AnnotationParse, QuotedTextIsDecodedAndStaysText) {
  const ParsedAnnotation p = parse_annotation(R"(op#"k%3Dy"=1,n="42",s="50%",h="%23%2"#)");
  ASSERT_EQ(p.args.size(), 4u);
  EXPECT_EQ(p.args[0].key, "k=y");
  EXPECT_EQ(std::get<int64_t>(p.args[0].value), 1);
  EXPECT_EQ(std::get<std::string_view>(p.args[1].value), "42");
  EXPECT_EQ(std::get<std::string_view>(p.args[2].value), "50%");  // not %XX: kept
  EXPECT_EQ(std::get<std::string_view>(p.args[3].value), "#%2");
}

TEST(AnnotationParse, ValuesAreTypedInt64ThenUint64ThenDoubleThenString) {
  const ParsedAnnotation p = parse_annotation(
      "n#i=-5,u=18446744073709551615,d=2.5,e=1e3,s=abc,h=0x10,empty=#");
  ASSERT_EQ(p.args.size(), 7u);
  EXPECT_EQ(std::get<int64_t>(p.args[0].value), -5);
  EXPECT_EQ(std::get<uint64_t>(p.args[1].value), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(std::get<double>(p.args[2].value), 2.5);
  EXPECT_EQ(std::get<double>(p.args[3].value), 1000.0);
  EXPECT_EQ(std::get<std::string_view>(p.args[4].value), "abc");
  EXPECT_EQ(std::get<std::string_view>(p.args[5].value), "0x10");
  EXPECT_EQ(std::get<std::string_view>(p.args[6].value), "");
}

// PyTorch names scopes "<kind>#<class>.<method>"; only TraceMe's encoding ends with '#'.
TEST(AnnotationParse, NamesWithAHashThatAreNotEncodedStayWhole) {
  for (const char* name : {"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "Optimizer.step#SGD.step",
                           "a#b#c", "x#k=v"}) {
    const ParsedAnnotation p = parse_annotation(name);
    EXPECT_EQ(p.name, name);
    EXPECT_TRUE(p.args.empty()) << name;
  }
  const ParsedAnnotation p = parse_annotation("n#");
  EXPECT_EQ(p.name, "n");
  EXPECT_TRUE(p.args.empty());
}

TEST(AnnotationParse, PartsWithoutKeyAreIgnored) {
  const ParsedAnnotation p = parse_annotation("n#novalue,=3,k=v#");
  ASSERT_EQ(p.args.size(), 1u);
  EXPECT_EQ(p.args[0].key, "k");
}

TEST(AnnotationRoundTrip, ParseRecoversWhatEncodeWrote) {
  const std::string text = encoded("train_step", {{"step_num", 41}, {"_r", 1}, {"lr", 0.001},
                                                  {"id", uint64_t{1} << 63}, {"tag", "conv"}});
  const ParsedAnnotation p = parse_annotation(text);
  EXPECT_EQ(p.name, "train_step");
  ASSERT_EQ(p.args.size(), 5u);
  EXPECT_EQ(std::get<int64_t>(p.args[0].value), 41);
  EXPECT_EQ(std::get<int64_t>(p.args[1].value), 1);
  EXPECT_EQ(std::get<double>(p.args[2].value), 0.001);
  EXPECT_EQ(std::get<uint64_t>(p.args[3].value), uint64_t{1} << 63);
  EXPECT_EQ(std::get<std::string_view>(p.args[4].value), "conv");
}

// TensorFlow's SplitPairs (tsl/profiler/utils/parse_annotation.cc) written out: the parts
// TraceMe's own importer makes of the metadata, to check that it keeps each pair whole.
std::vector<std::string_view> tensorflow_pairs(std::string_view metadata) {
  std::vector<std::string_view> pairs;
  std::string open;
  size_t start = 0, end = 0;
  for (; end < metadata.size(); ++end) {
    const char ch = metadata[end];
    if (ch == '"' || ch == '\'') {
      if (open.empty() || open.back() != ch) open.push_back(ch);
      else open.pop_back();
    } else if (ch == '{' || ch == '(' || ch == '[') {
      open.push_back(ch);
    } else if ((ch == '}' || ch == ')' || ch == ']') && !open.empty() &&
               open.back() == (ch == '}' ? '{' : ch == ')' ? '(' : '[')) {
      open.pop_back();
    } else if (ch == ',' && open.empty()) {
      if (end - start > 1) pairs.push_back(metadata.substr(start, end - start));
      start = end + 1;
    }
  }
  if (end - start > 1) pairs.push_back(metadata.substr(start, end - start));
  return pairs;
}

TEST(AnnotationRoundTrip, TextWithCommasHashesQuotesAndBracketsReadsBackIntact) {
  const std::string_view values[] = {
      "a,b", "x#y", "k=v", R"(say "hi", 'you')", "[1,2", "(a]", "{x}", "[1, 2]", "50%", "%41",
      " padded ", "", R"(")", "'", "#", ",,,", "][", "'[\"#%=,", "plain"};
  std::vector<TraceArg> args;
  for (const std::string_view v : values) args.emplace_back("tag", v);
  args.emplace_back("odd key,=#[\"", 7);
  args.emplace_back("after", 8);
  std::string text;
  append_encoded(text, "op", args.data(), args.size());
  SCOPED_TRACE(text);

  const ParsedAnnotation p = parse_annotation(text);
  EXPECT_EQ(p.name, "op");
  ASSERT_EQ(p.args.size(), args.size());
  for (size_t i = 0; i < std::size(values); ++i) {
    EXPECT_EQ(p.args[i].key, "tag");
    EXPECT_EQ(std::get<std::string_view>(p.args[i].value), values[i]) << i;
  }
  EXPECT_EQ(p.args[std::size(values)].key, "odd key,=#[\"");
  EXPECT_EQ(std::get<int64_t>(p.args[std::size(values)].value), 7);
  EXPECT_EQ(std::get<int64_t>(p.args.back().value), 8);

  // TensorFlow's importer: the metadata ends at the second '#' and every pair stays whole.
  const size_t first = text.find('#');
  ASSERT_EQ(text.find('#', first + 1), text.size() - 1);
  const std::vector<std::string_view> pairs = tensorflow_pairs(std::string_view(text).substr(first + 1, text.size() - first - 2));
  ASSERT_EQ(pairs.size(), args.size());
  EXPECT_EQ(pairs[0], R"(tag="a,b")");
  EXPECT_EQ(pairs[1], R"(tag="x%23y")");
  EXPECT_EQ(pairs[2], "tag=k=v");
  EXPECT_EQ(pairs[7], "tag=[1, 2]");
  EXPECT_EQ(pairs.back(), "after=8");
}

TEST(AnnotationRoundTrip, EncodeIntoWritesTheSameEscapedText) {
  const TraceArg args[] = {{"tag", "a,b#c"}};
  std::string grown;
  append_encoded(grown, "op", args, 1);
  char buf[64];
  const size_t need = encode_into(buf, sizeof buf, "op", args, 1);
  EXPECT_EQ(std::string(buf, need), grown);
  EXPECT_EQ(grown, R"(op#tag="a,b%23c"#)");
}

}  // namespace
}  // namespace mlprof::format
