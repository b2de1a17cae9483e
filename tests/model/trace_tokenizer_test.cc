// The PyTorch trace tokenizer on its own: it cuts traceEvents into batches of whole events and
// hands over the top-level values asked for. Checked on text written here: the batches, put
// together, are the events as written, each once and in order, however large the trace (past
// the 256 KiB window, so it is cut several times), wherever the wanted values stand; text
// that is not a trace is refused with a reason.
#include "model/pytorch/trace_tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace mlprof::model::kineto {
namespace {

class Collect : public TraceJsonVisitor {
 public:
  bool wants(std::string_view key) const override { return key == "deviceProperties" || key == "schemaVersion"; }
  bool top_level_value(std::string_view key, const PaddedJson& value, std::string*) override {
    values[std::string(key)] = std::string(value.data, value.size);
    return true;
  }
  bool event_batch(const PaddedJson& batch, std::string* error) override {
    const std::string text(batch.data, batch.size);
    if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
      *error = "a batch is not an array: " + text.substr(0, 40);
      return false;
    }
    ++batches;
    if (batch.end_guessed) {
      ++guessed;
      if (batch.offset >= guessed_from) ++guessed_after;
      if (!batch_ends_between_elements(batch)) ++guessed_wrong;
    }
    if (!events.empty()) events += ", ";
    std::string inside = text.substr(1, text.size() - 2);  // a batch after a ',' may begin with space
    inside.erase(0, inside.find_first_not_of(" \n"));
    events += inside;
    return true;
  }
  std::map<std::string, std::string> values;
  std::string events;
  int batches = 0;
  int guessed = 0;        // batches whose end was guessed
  int guessed_wrong = 0;  // of those, how many do not end between two elements
  uint64_t guessed_from = UINT64_MAX;
  int guessed_after = 0;  // of those, how many start at guessed_from or later in the text
};

// n events whose names hold what a cut must not be fooled by.
std::string event_list(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += R"({"ph": "X", "name": "op]}, \"q\" #)" + std::to_string(i) + R"(", "ts": )" + std::to_string(i) +
           R"(, "args": {"Input Dims": [[1, 2], []]}})";
  }
  return out;
}

bool walk(const std::string& text, Collect* out, std::string* error, bool guess_cuts = false) {
  JsonSource source;
  source.open_bytes(text.data(), text.size());
  return walk_trace_json(source, *out, {}, error, guess_cuts);
}

// Events laid out as Kineto writes them: "  {" and "  }" on lines of their own, fields between.
// `inner(i)` is written into the i-th event's args.
template <typename Inner>
std::string kineto_layout(int n, Inner inner) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += i == 0 ? "\n  {\n" : ",\n  {\n";
    out += R"(    "ph": "X", "name": "op)" + std::to_string(i) + R"(", "ts": )" + std::to_string(i) +
           ",\n    \"args\": {" + inner(i) + "}\n  }";
  }
  return out;
}

TEST(TraceTokenizer, EveryEventOnceInOrderAcrossWindows) {
  for (int n : {0, 1, 7, 4000}) {  // 4000 events: about 400 KB, more than one window
    const std::string events = event_list(n);
    const std::string text = R"({"schemaVersion": 1, "traceEvents": [)" + events + R"(], "deviceProperties": [{"id": 0}]})";
    Collect got;
    std::string error;
    ASSERT_TRUE(walk(text, &got, &error)) << error;
    EXPECT_EQ(got.events.size(), events.size()) << n << " events";
    EXPECT_TRUE(got.events == events) << n << " events: first difference at byte "
                                      << std::mismatch(events.begin(), events.end(), got.events.begin(), got.events.end()).first - events.begin();
    if (n == 4000) {
      EXPECT_GT(got.batches, 1);
    }
    EXPECT_EQ(got.values["schemaVersion"], "1");
    EXPECT_EQ(got.values["deviceProperties"], R"([{"id": 0}])");
    EXPECT_EQ(got.values.count("traceEvents"), 0u);
  }
}

TEST(TraceTokenizer, WantedValuesBeforeOrAfterTheEvents) {
  const std::string events = event_list(3);
  const std::string text = R"({"deviceProperties": [{"name": "a}]"}], "other": {"big": [1, 2, 3]},
                             "traceEvents": [)" + events + R"(] ,"schemaVersion" : "1.0.2" })";
  Collect got;
  std::string error;
  ASSERT_TRUE(walk(text, &got, &error)) << error;
  EXPECT_EQ(got.events, events);
  EXPECT_EQ(got.values["deviceProperties"], R"([{"name": "a}]"}])");
  EXPECT_EQ(got.values["schemaVersion"], R"("1.0.2")");
  EXPECT_EQ(got.values.count("other"), 0u);
}

// Cut where the separator learnt from the first batch stands, the batches still hold every
// event once, in order; the text in strings that looks like structure is no separator.
TEST(TraceTokenizer, GuessedCutsGiveEveryEventOnceInOrder) {
  const std::string events = kineto_layout(10000, [](int i) { return R"("note": "}, {], \"q\" #)" + std::to_string(i) + "\""; });
  const std::string text = R"({"schemaVersion": 1, "traceEvents": [)" + events + R"(], "deviceProperties": [{"id": 0}]})";
  ASSERT_GT(text.size(), size_t(3) << 18);  // several windows
  Collect got;
  std::string error;
  ASSERT_TRUE(walk(text, &got, &error, true)) << error;
  // The batches come together with ", " between them, where the text has a line break.
  auto joined = [](std::string s) {
    s.erase(0, s.find_first_not_of(" \n"));
    for (size_t at = 0; (at = s.find(",\n  {", at)) != std::string::npos;) s.replace(at, 5, ", {");
    return s;
  };
  const std::string expected = joined(events);
  got.events = joined(got.events);
  EXPECT_TRUE(got.events == expected) << "first difference at byte "
      << std::mismatch(expected.begin(), expected.end(), got.events.begin(), got.events.end()).first - expected.begin();
  EXPECT_GE(got.guessed, 2);
  EXPECT_EQ(got.guessed_wrong, 0);
  EXPECT_EQ(got.values["deviceProperties"], R"([{"id": 0}])");
}

// Where the text changes its layout, the separator is learnt again.
TEST(TraceTokenizer, GuessesGoOnWhereTheLayoutChanges) {
  const std::string indented = kineto_layout(4000, [](int) { return std::string(R"("k": 1)"); });
  std::string flat;
  for (int i = 0; i < 20000; ++i) flat += R"(,
{"ph": "X", "name": "flat)" + std::to_string(i) + R"(", "ts": 1, "args": {"k": 1}})";
  const std::string head = R"({"traceEvents": [)" + indented;
  const std::string text = head + flat + "]}";
  Collect got;
  got.guessed_from = head.size();
  std::string error;
  ASSERT_TRUE(walk(text, &got, &error, true)) << error;
  const std::string last = flat.substr(flat.rfind("{\"ph\""));
  EXPECT_EQ(got.events.substr(got.events.size() - last.size()), last);
  EXPECT_EQ(std::count(got.events.begin(), got.events.end(), 'X'), 24000);
  EXPECT_GE(got.guessed_after, 2);  // the flat part is several windows
  EXPECT_EQ(got.guessed_wrong, 0);
}

// Without a line break between two events there is nothing to learn: every batch is scanned.
TEST(TraceTokenizer, NoGuessWithoutLineBreaks) {
  const std::string events = event_list(4000);
  const std::string text = R"({"traceEvents": [)" + events + "]}";
  Collect got;
  std::string error;
  ASSERT_TRUE(walk(text, &got, &error, true)) << error;
  EXPECT_EQ(got.events, events);
  EXPECT_GT(got.batches, 1);
  EXPECT_EQ(got.guessed, 0);
}

// The separator inside a string or in a nested array of objects laid out like the events: a
// guess there ends a batch that is not whole, which batch_ends_between_elements tells.
TEST(TraceTokenizer, AGuessInsideAStringOrANestedValueIsToldFromARightOne) {
  const std::string separator = "\n  },\n  {";
  for (const std::string& inner : {R"("text": "a)" + separator + R"(b")", R"("list": [{"k": 1)" + separator + R"("k": 2}])"}) {
    SCOPED_TRACE(inner);
    // Every event holds the separator, so that some window's last one is inside an event.
    const std::string events = kineto_layout(6000, [&](int) { return inner; });
    const std::string text = R"({"traceEvents": [)" + events + "]}";
    Collect got;
    std::string error;
    walk(text, &got, &error, true);  // it may go on past a wrong cut: the parse is what refuses it
    EXPECT_GT(got.guessed_wrong, 0);
  }
}

TEST(TraceTokenizer, BatchEndsBetweenElements) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {R"([{}])", true},
      {R"([{"a": "}, {"}, {"b": [1, {}]}])", true},
      {R"([{"a": "\"}, {"}])", true},
      {R"([{"a": "}, {])", false},          // ends inside a string
      {R"([{"a": "\"}, {])", false},       // the same, after an escaped quote
      {R"([{"a": [{"b": 1}])", false},      // ends inside the object
      {R"([{"a": 1}}, {"b": 2}])", false},  // closes what it did not open
      {"[]", true},
      {"[", false},
  };
  for (const auto& [text, between] : cases) {
    std::string padded = text;
    padded.append(64, '\0');
    EXPECT_EQ(batch_ends_between_elements({padded.data(), text.size(), padded.size(), 0, true}), between) << text;
  }
}

TEST(TraceTokenizer, RefusesWhatIsNotATrace) {
  const std::vector<std::string> bad = {
      R"({"traceEvents": [{"name": "a"}, {"name": "b"})",   // cut short inside traceEvents
      R"({"traceEvents": [{"name": "a"}} ]})",              // mismatched brackets
      R"({"traceEvents": {"name": "a"}})",                  // traceEvents not an array
      R"("just a string")",
      "",
  };
  for (const std::string& text : bad) {
    Collect got;
    std::string error;
    EXPECT_FALSE(walk(text, &got, &error)) << text;
    EXPECT_FALSE(error.empty()) << text;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace mlprof::model::kineto
