#include "format/annotation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

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
  EXPECT_EQ(std::get<std::string_view>(p.args[1].value), R"("a,b")");
  EXPECT_EQ(std::get<std::string_view>(p.args[2].value), "'c,d'");
  EXPECT_EQ(std::get<std::string_view>(p.args[3].value), "(x,y)");
  EXPECT_EQ(std::get<std::string_view>(p.args[4].value), "{k:1,j:2}");
  EXPECT_EQ(std::get<int64_t>(p.args[5].value), 9);
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

TEST(AnnotationParse, PartsWithoutKeyAreIgnored) {
  const ParsedAnnotation p = parse_annotation("n#novalue,=3,k=v#");
  ASSERT_EQ(p.args.size(), 1u);
  EXPECT_EQ(p.args[0].key, "k");
}

TEST(AnnotationRoundTrip, ParseRecoversWhatEncodeWrote) {
  const std::string text = encoded("train_step", {{"step_num", 41}, {"_r", 1}, {"lr", 0.001},
                                                  {"id", uint64_t{1} << 63}, {"tag", "a,b"}});
  const ParsedAnnotation p = parse_annotation(text);
  EXPECT_EQ(p.name, "train_step");
  ASSERT_EQ(p.args.size(), 5u);
  EXPECT_EQ(std::get<int64_t>(p.args[0].value), 41);
  EXPECT_EQ(std::get<int64_t>(p.args[1].value), 1);
  EXPECT_EQ(std::get<double>(p.args[2].value), 0.001);
  EXPECT_EQ(std::get<uint64_t>(p.args[3].value), uint64_t{1} << 63);
  // A comma in an unquoted value splits, as TraceMe's own parser does.
  EXPECT_EQ(std::get<std::string_view>(p.args[4].value), "a");
}

}  // namespace
}  // namespace mlprof::format
