// The schema header against xplane.proto: every field the header names has the .proto's number
// and wire type, and every field of the .proto is in the header, so the encoder, the importer
// and libprotobuf (TensorBoard's side) cannot drift apart.
#include "format/xspace_schema.h"

#include <gtest/gtest.h>

#include <string>

#include "xplane.pb.h"

namespace mlprof::format::xspace {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

wire::WireType wire_type_of(const FieldDescriptor& f) {
  if (f.is_packed()) return wire::kLengthDelimited;
  switch (f.type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64: return wire::kFixed64;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE: return wire::kLengthDelimited;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32: return wire::kFixed32;
    default: return wire::kVarint;
  }
}

const Field* schema_field(std::string_view message, std::string_view name) {
  for (const Field& f : kAllFields)
    if (f.message == message && f.name == name) return &f;
  return nullptr;
}

const Descriptor* message(const std::string& name) {
  return tensorflow::profiler::XSpace::descriptor()->file()->FindMessageTypeByName(name);
}

TEST(XSpaceSchema, EveryProtoFieldIsInTheHeaderWithItsNumberAndWireType) {
  size_t proto_fields = 0;
  for (const char* name : {"XSpace", "XPlane", "XLine", "XEvent", "XStat", "XEventMetadata", "XStatMetadata"}) {
    const Descriptor* d = message(name);
    ASSERT_NE(d, nullptr) << name;
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor& f = *d->field(i);
      ++proto_fields;
      const Field* s = schema_field(name, f.name());
      ASSERT_NE(s, nullptr) << name << "." << f.name() << " is not in xspace_schema.h";
      EXPECT_EQ(s->number, uint32_t(f.number())) << name << "." << f.name();
      EXPECT_EQ(s->wire_type, wire_type_of(f)) << name << "." << f.name();
    }
  }
  size_t header_fields = 0;
  for (const Field& f : kAllFields) header_fields += f.message.empty() ? 0 : 1;
  EXPECT_EQ(header_fields, proto_fields) << "the header names a field xplane.proto does not have";
}

TEST(XSpaceSchema, MapEntriesMatchTheProto) {
  for (const char* map : {"event_metadata", "stat_metadata"}) {
    const FieldDescriptor* f = message("XPlane")->FindFieldByName(map);
    ASSERT_TRUE(f != nullptr && f->is_map()) << map;
    const Descriptor* entry = f->message_type();
    EXPECT_EQ(kMapKey.number, uint32_t(entry->map_key()->number()));
    EXPECT_EQ(kMapKey.wire_type, wire_type_of(*entry->map_key()));
    EXPECT_EQ(kMapValue.number, uint32_t(entry->map_value()->number()));
    EXPECT_EQ(kMapValue.wire_type, wire_type_of(*entry->map_value()));
  }
}

// The ids TensorFlow gives derived lines (tensorflow/tsl/profiler/utils/xplane_schema.h:
// kThreadIdOverhead = 0xdeadbeef, then steps, kernel launch, name scope, ops, modules, XLA ops),
// as its files store them: sign-extended from 32 bits. The testdata's GPU planes carry -559038737.
TEST(XSpaceSchema, DerivedLineIds) {
  EXPECT_EQ(derived_line_id(DerivedLine::kSteps), -559038737);
  EXPECT_EQ(derived_line_id(DerivedLine::kFrameworkOps), -559038737 + 3);
  EXPECT_EQ(kSyncLineId, -559038737 + 0x100);
}

// TensorFlow's plane and GPU stream names, as in the testdata's gpu_multi_worker.xplane.pb.
TEST(XSpaceSchema, PlaneAndStreamLineNames) {
  EXPECT_EQ(device_plane_name("GPU", 7), "/device:GPU:7");
  EXPECT_EQ(stream_line_name(134, kStreamCompute), "Stream #134(Compute)");
  EXPECT_EQ(stream_line_name(7, kStreamMemcpyH2D | kStreamCompute | kStreamMemset),
            "Stream #7(Compute,MemcpyH2D,Memset)");
  EXPECT_EQ(stream_activity_name(kStreamMemcpyD2H), "MemcpyD2H");
  EXPECT_EQ(stream_activity_name(kStreamMemcpyOther), "Memcpy");
}

// Copy names as TensorFlow ("MemcpyH2D"), Kineto ("Memcpy HtoD (Pageable -> Device)") and
// runtimes in capitals write them.
TEST(XSpaceSchema, CopyDirections) {
  EXPECT_EQ(copy_direction("MemcpyH2D"), CopyDirection::kHostToDevice);
  EXPECT_EQ(copy_direction("Memcpy HtoD (Pageable -> Device)"), CopyDirection::kHostToDevice);
  EXPECT_EQ(copy_direction("Memcpy DtoH (Device -> Pinned)"), CopyDirection::kDeviceToHost);
  EXPECT_EQ(copy_direction("Memcpy DtoD (Device -> Device)"), CopyDirection::kDeviceToDevice);
  EXPECT_EQ(copy_direction("Memcpy PtoP (Device -> Device)"), CopyDirection::kPeerToPeer);
  EXPECT_EQ(copy_direction("MEMCPY_HtoH"), CopyDirection::kHostToHost);
  EXPECT_EQ(copy_direction("Memcpy"), CopyDirection::kUnknown);
  EXPECT_EQ(copy_direction("volta_sgemm_128x64_nn"), CopyDirection::kNotACopy);
  EXPECT_EQ(stream_activity_of(CopyDirection::kPeerToPeer), kStreamMemcpyP2P);
  EXPECT_EQ(stream_activity_of(CopyDirection::kUnknown), kStreamMemcpyOther);
}

TEST(XSpaceSchema, ProfilerStepNumbers) {
  int64_t n = -1;
  EXPECT_TRUE(profiler_step_number("ProfilerStep#552", &n));
  EXPECT_EQ(n, 552);
  EXPECT_FALSE(profiler_step_number("ProfilerStep#", &n));
  EXPECT_FALSE(profiler_step_number("ProfilerStep#12a", &n));
  EXPECT_FALSE(profiler_step_number("ProfilerStep#99999999999999999999", &n));
  EXPECT_FALSE(profiler_step_number("Optimizer.step#SGD.step", &n));
}

}  // namespace
}  // namespace mlprof::format::xspace
