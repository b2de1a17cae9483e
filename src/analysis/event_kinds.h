// What an event is, from its name: the naming conventions of TensorFlow, tf.data, CUDA and
// LibTorch that the analysis relies on (docs/ARCHITECTURE.md §3.2, §5).
#pragma once

#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// TensorFlow's "op_name:OpType" (e.g. "model/dense/MatMul:MatMul").
bool is_tf_op_name(std::string_view name);
// JAX's framework op of an XLA op (its tf_op): "jit(train_step)/jit(main)/.../dot_general[...]:".
bool is_jax_op_name(std::string_view name);
// Its primitive, the path's last component without its parameters: "dot_general" (XProf's
// category for the op in its overview's top ops).
std::string_view jax_op_type(std::string_view jax_op_name);
// The op's type: after ':' for TensorFlow ops, the primitive for JAX ops, the iterator's own
// type for tf.data iterators, else the name itself (LibTorch's "aten::conv2d" and user
// annotations).
std::string_view op_type_of(std::string_view name);

// tf.data iterators: "Iterator::Batch::Map::TFRecord" (consumers first, own type last).
bool is_iterator_name(std::string_view name);
std::string_view iterator_type(std::string_view long_name);   // "TFRecord"
std::string_view iterator_parent(std::string_view long_name); // "Iterator::Batch::Map", or empty
bool is_root_iterator(std::string_view long_name);             // "Iterator::Batch"
// The pipeline's root iterator a long name lies under: "Iterator::Prefetch" for
// "Iterator::Prefetch::Map::FileRead" (traced or not), itself for a root; empty for other names.
std::string_view root_iterator_of(std::string_view long_name);
bool is_async_iterator_type(std::string_view type);            // Prefetch, ParallelMap, ...
bool is_source_iterator_type(std::string_view type);           // TFRecord, TextLine, FileRead, Generator, ...
bool is_file_source_iterator_type(std::string_view type);      // the sources that read files

// The training loop asking for its next batch: a root iterator, TensorFlow's IteratorGetNext*
// or PyTorch's "enumerate(DataLoader)#...".
bool is_input_request_name(std::string_view name);

// The step roots TensorFlow and PyTorch mark by name rather than with _r (§5.1), in the order
// of preference: an outer kind wins when several are present. Returns -1 when not a root.
int implicit_root_rank(std::string_view name);

// A copy's direction as the step breakdown counts it (peer-to-peer is device-to-device), from
// the names format::xspace::copy_direction knows; kNone for other events.
enum class MemcpyKind { kNone, kHostToDevice, kDeviceToHost, kDeviceToDevice, kHostToHost };
MemcpyKind memcpy_kind(std::string_view name);
// memcpy_kind of each of the profile's event names (by NameIndex): per-event loops read it
// rather than search every event's name.
std::vector<MemcpyKind> memcpy_kinds_by_name(const model::Profile& p);

bool is_compile_name(std::string_view name);
bool is_launch_name(std::string_view name);       // cudaLaunchKernel, cuLaunchKernel, ...
bool is_runtime_api_name(std::string_view name);  // other CUDA/HIP runtime and driver calls
// MTIA's runtime calls that reach the device (Kineto's mtia_runtime): runFunction, recordEvent,
// enqueueCommand <command>, synchronize(Stream).
bool is_mtia_runtime_name(std::string_view name);
bool is_mtia_launch_name(std::string_view name);  // runFunction, enqueueCommand: submit device work
bool is_mtia_sync_name(std::string_view name);    // synchronize, synchronizeStream: wait for it
bool is_memory_event_name(std::string_view name); // allocator records, not work

}  // namespace mlprof::analysis
