// Small helpers the graph passes share: who reads a value (subgraphs
// included), renaming reads, reading a node's attributes.
#pragma once
#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mx::aten_onnx::passes {

// Values read inside some node's subgraph (If/Loop/Scan bodies), at any depth.
std::set<std::string> subgraph_reads(const onnx::GraphProto& g);

// Names of the graph's outputs.
std::set<std::string> graph_outputs(const onnx::GraphProto& g);

// How often each value is read: once per top-level node input, plus one
// when some subgraph reads it and one when it is a graph output. A count
// of 1 is "read by one top-level node and nowhere else", what a pass that
// rewrites or removes a value's only reader asks.
std::map<std::string, int> read_counts(const onnx::GraphProto& g);

// Rewrites every read of a key of `renames` (top level and subgraphs) to its
// value.
void rename_reads(onnx::GraphProto& g, const std::map<std::string, std::string>& renames);

// Removes the nodes named in `names`.
void remove_nodes(onnx::GraphProto& g, const std::set<std::string>& names);

bool has_subgraph(const onnx::NodeProto& n);

// Drops, in graph order, every single-output node for which `source_of`
// names the value it passes through (nodes writing a graph output stay):
// later readers, subgraphs included, read that value instead. `source_of`
// sees each node once, its reads of earlier dropped nodes already renamed,
// and may rewrite the node it keeps.
using PassedThrough = std::function<std::optional<std::string>(onnx::NodeProto&)>;
void drop_passed_through(onnx::GraphProto& g, PassReport& report, const PassedThrough& source_of);

// A node writing a graph output that passes through a value (`source_of`)
// read by it alone, written by an earlier node and itself no graph output:
// that node writes the graph output instead and the no-op goes (an
// identity Transpose at the end of an unfold). `source_of` must not
// rewrite the node.
void hand_outputs_back(onnx::GraphProto& g, PassReport& report, const PassedThrough& source_of);

// The same dim by the program: the same static size, or the same
// (non-empty) symbol; dim lists of the same rank, dim by dim.
bool same_dim(const SymbolicDim& a, const SymbolicDim& b);
bool same_dims(const std::vector<SymbolicDim>& a, const std::vector<SymbolicDim>& b);

// The stored dims of the float32 and float64 initializers (a weight may be
// stored permuted: fold_weight_transposes), for passes that let a MatMul
// read a weight directly. Only those dtypes: ONNX Runtime 1.32 crashes
// (SIGSEGV in its Nchwc transformer) creating a session for a float16
// MatMul of a Transpose'd activation and a 2-D initializer, which such a
// rewrite could create from a half-precision program (bf16 becomes
// float32 only after these passes, with --upcast-bf16).
using InitializerDims = std::map<std::string, std::vector<SymbolicDim>>;
InitializerDims float_initializer_dims(const onnx::GraphProto& g);

// The dims of `name`: an initializer's as stored, else the program's;
// nullptr when neither says.
const std::vector<SymbolicDim>* stored_dims(const std::string& name, const SymbolicShapes& shapes,
                                            const InitializerDims& initializers);

// Whether weight `w` holds initializer `t`'s elements as they are (its own
// bytes, not permuted or scaled: numel times the element size of them) and
// `t` has at most `max_elements` of them: a weight a pass may read as a
// constant.
bool stored_as_is(const onnx::TensorProto& t, const WeightBytes& w, int64_t max_elements);

// `t` with `w`'s bytes as its raw_data: the weight read as a constant.
onnx::TensorProto with_weight_bytes(const onnx::TensorProto& t, const WeightBytes& w);

// The dims [start, end) a Shape node `shape` of a rank-`rank` value
// returns: ONNX's negative start/end count from the end, then both clamp
// (end >= start).
std::pair<int64_t, int64_t> shape_range(const onnx::NodeProto& shape, int64_t rank);

// Whether `n` is a default-domain node of `op` (false for nullptr).
bool is_op(const onnx::NodeProto* n, const char* op);

// The attribute `name` of `n`, or nullptr; an int attribute's value or
// `fallback`.
const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name);
int64_t int_attr(const onnx::NodeProto& n, const char* name, int64_t fallback);

// An axis in [-rank, rank) made non-negative; false when out of range.
bool normalize_axis(int64_t& axis, int64_t rank);

// The values of an int64 Constant node of at most 64 elements (`rank`: its
// rank), or nothing.
struct Int64Constant {
  std::vector<int64_t> values;
  int rank = 0;
};
std::optional<Int64Constant> int64_constant(const onnx::NodeProto& n);

// Turns `n` into a Constant node (its name and output kept) of `values`,
// 1-D or, with `scalar`, 0-d.
void make_int64_constant(onnx::NodeProto& n, const std::vector<int64_t>& values, bool scalar = false);

}  // namespace mx::aten_onnx::passes
