#include "format/chrome_trace_writer.h"

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace mlprof::format {
namespace {

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

void append_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// Picoseconds as microseconds with nanosecond digits, exactly (a double would lose them).
void append_us(std::string& out, int64_t ps) {
  const int64_t ns = ps >= 0 ? ps / 1000 : -((-ps + 999) / 1000);
  if (ns < 0) out += '-';
  const uint64_t a = ns < 0 ? uint64_t(-ns) : uint64_t(ns);
  append_uint(out, a / 1000);
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03u", unsigned(a % 1000));
  out += frac;
}

void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) return out.append("null"), void();
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void append_arg_value(std::string& out, const TraceArg& a) {
  switch (a.type) {
    case TraceArg::Type::kInt: return append_int(out, a.int_value);
    case TraceArg::Type::kUint: return append_uint(out, a.uint_value);
    case TraceArg::Type::kDouble: return append_double(out, a.double_value);
    case TraceArg::Type::kString: return append_json_string(out, a.string_value);
  }
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(TraceOutputFile& out) : out_(out) {
  out_.write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
}

void ChromeTraceWriter::begin_record() {
  out_.write(record_);
  record_.clear();
  record_ += first_record_ ? "\n" : ",\n";
  first_record_ = false;
}

void ChromeTraceWriter::begin_track(const TraceTrack& track) {
  pid_ = track.pid;
  tid_ = track.tid;
  if (track.pid != last_named_pid_) {
    last_named_pid_ = track.pid;
    begin_record();
    record_ += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
    append_uint(record_, pid_);
    record_ += ",\"args\":{\"name\":";
    append_json_string(record_, track.process_name);
    record_ += "}}";
  }
  begin_record();
  record_ += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
  append_uint(record_, pid_);
  record_ += ",\"tid\":";
  append_uint(record_, tid_);
  record_ += ",\"args\":{\"name\":";
  append_json_string(record_, track.thread_name);
  record_ += "}}";
  begin_record();
  record_ += "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":";
  append_uint(record_, pid_);
  record_ += ",\"tid\":";
  append_uint(record_, tid_);
  record_ += ",\"args\":{\"sort_index\":";
  append_int(record_, track.sort_index);
  record_ += "}}";
}

void ChromeTraceWriter::event(const TraceEvent& e) {
  auto where = [&] {
    record_ += ",\"pid\":";
    append_uint(record_, pid_);
    record_ += ",\"tid\":";
    append_uint(record_, tid_);
    record_ += ",\"ts\":";
    append_us(record_, e.start_ps);
  };
  begin_record();
  record_ += "{\"ph\":\"X\",\"name\":";
  append_json_string(record_, e.name);
  where();
  record_ += ",\"dur\":";
  append_us(record_, e.duration_ps);
  if (!e.args.empty()) {
    record_ += ",\"args\":{";
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (i) record_ += ',';
      append_json_string(record_, e.args[i].key);
      record_ += ':';
      append_arg_value(record_, e.args[i]);
    }
    record_ += '}';
  }
  record_ += '}';
  // Flow records bind to the enclosing slice at their time: the event's start.
  for (uint64_t id : e.flows_out) {
    begin_record();
    record_ += "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"flow\",\"id\":";
    append_uint(record_, id);
    where();
    record_ += '}';
  }
  for (uint64_t id : e.flows_in) {
    begin_record();
    record_ += "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"flow\",\"id\":";
    append_uint(record_, id);
    where();
    record_ += '}';
  }
}

bool ChromeTraceWriter::finish(std::string* error) {
  out_.write(record_);
  record_.clear();
  out_.write("\n]}\n");
  if (!out_.close()) {
    *error = out_.error();
    return false;
  }
  return true;
}

}  // namespace mlprof::format
