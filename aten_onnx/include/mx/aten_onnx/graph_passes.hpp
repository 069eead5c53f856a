// Graph passes run on a lowered graph before it is assembled: they make the
// file smaller and quicker to load without changing what it computes.
//
//   fuse_rms_norms          RMSNorm arithmetic -> RMSNormalization (23+)
//   fold_batch_norms        an eval BatchNormalization folded into its Conv
//   fold_weight_transposes  a weight read only through Transpose is written
//                           permuted instead (same initializer name)
//   fold_weight_data        data movement on weights (gate reorders)
//   fold_channel_affines    a per-channel Mul / Add after a Conv folded in
//   fold_static_dims        Shape reads of dims the program states static
//                           (Shape, its Slice or Gather) -> constants
//   fold_constants          shape arithmetic, data movement and float
//                           arithmetic on constants becomes a constant
//   merge_slices_to_split   Slices that tile an axis become one Split
//   collapse_unsqueezes     the Unsqueezes of sym_size glue
//   drop_noops              x + 0, x * 1, whole Slices, Transpose pairs, ...
//   merge_clamps            Min(Max(x, lo), hi) of scalar constants -> Clip
//   fuse_pads_into_convs    a zero Pad read by one Conv -> the Conv's pads
//   merge_duplicate_nodes   CSE: identical constants, Shape reads, ...
//   infer_reshape_dim       a view's one dynamic dim left to Reshape (-1)
//   share_dim_reads         a dim read whole and sliced: read sliced only
//   constants_to_initializers  Constant nodes become initializers
//
// Every pass keeps the names of the nodes it leaves; the nodes it removes
// are reported so the hierarchy document can count them per module.
#pragma once
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mx/aten_onnx/onnx_emitter.hpp"
#include "mx/aten_onnx/weights.hpp"

namespace mx::aten_onnx {

struct ExportRequest;  // frontend_plugin.hpp

struct PassReport {
  std::set<std::string> removed;  // names of the nodes the passes removed
  // initializer name -> the permutation its stored bytes went through
  // (Transpose's perm: stored dim i is source dim perm[i]).
  std::map<std::string, std::vector<int64_t>> stored_permuted;
  // A permuted copy of a weight that is also read as it is: the copy's
  // initializer name -> the weight it copies and the perm.
  struct PermutedCopy {
    std::string of;
    std::vector<int64_t> perm;
  };
  std::map<std::string, PermutedCopy> permuted_copies;
  // A BatchNormalization folded into the Conv before it: the Conv weight's
  // initializer name -> the BN node, its [scale, B, mean, var] inputs, the
  // initializer holding the folded bias, and epsilon.
  struct FoldedBatchNorm {
    std::string node;
    std::vector<std::string> parameters;
    std::string bias;
    double epsilon = 0;
  };
  std::map<std::string, FoldedBatchNorm> folded_batch_norms;
  // A per-channel `* s + t` after a Conv folded into it (a batch norm
  // written as arithmetic on its buffers): the Conv weight's initializer
  // name -> the last node folded (the Add, or the Mul), the weights s and t
  // were computed from, and the initializer holding the folded bias ("":
  // none).
  struct FoldedChannelAffine {
    std::string node;
    std::vector<std::string> scale_from, shift_from;
    std::string bias;
  };
  std::map<std::string, FoldedChannelAffine> folded_channel_affines;
  // A constant computed at export by data movement on weights (a recurrent
  // layer's gates reordered): its name -> the weights it was computed from.
  std::map<std::string, std::vector<std::string>> weight_constants;
};

// A value's dim as the frontend's program states it: a size, or a symbol
// (or expression) text; equal texts are equal sizes. Empty text: unknown.
struct SymbolicDim {
  std::optional<int64_t> size;
  std::string symbol;
};
// ONNX value name -> its dims, for the values the frontend knows.
using SymbolicShapes = std::unordered_map<std::string, std::vector<SymbolicDim>>;

// Every pass below, then dead-node elimination; returns what they removed
// (dead nodes left behind by a fold included). `shapes` (optional) lets
// infer_reshape_dim use what the program knows about a Reshape's dims, and
// fuse_rms_norms the rank of a norm's input; fused_ops: fuse_rms_norms at
// opset 23+ first; fold_bns: fold_batch_norms and fold_channel_affines.
PassReport lean_graph(onnx::GraphProto& g, WeightMap& weights, int opset, const SymbolicShapes& shapes = {},
                      bool fused_ops = true, bool fold_bns = true);

// What the export passes did: every node they removed, and the hierarchy
// document's "graph_passes" object (pass_summary).
struct ExportPasses {
  std::set<std::string> removed;
  nlohmann::json summary;
};

// The passes every frontend runs on the graph it lowered, once, so that
// both frontends write the same lean files: dead-node elimination (what
// the lowering left unread; not counted as folded), lean_graph with the
// request's opset, fused_ops and fold_batch_norms, then, when the request
// asks, upcast_bf16, whose Casts get the record of the node they stand
// for (appended to `records`).
ExportPasses run_export_passes(onnx::GraphProto& g, WeightMap& weights, const ExportRequest& request,
                               const SymbolicShapes& shapes, std::vector<NodeRecord>& records);

// RMSNorm arithmetic (LLaMA's) as one RMSNormalization node (opset 23+);
// the chain it replaces is left dead.
void fuse_rms_norms(onnx::GraphProto& g, const SymbolicShapes& shapes);

// A node a pass added, and the node whose module record it takes.
struct InsertedNode {
  std::string name, like;
};

// bf16 arithmetic as float32 between Casts (passes/upcast_bf16.cpp), for
// runtimes without bf16 kernels; returns the Casts it added. Nodes inside
// If/Loop/Scan bodies are rewritten too.
std::vector<InsertedNode> upcast_bf16(onnx::GraphProto& g, int opset);

// The hierarchy document's "graph_passes" object (docs/hierarchy-schema.md):
// {"folded_nodes": {module: count of its nodes the passes removed},
//  "stored_permuted": {initializer: perm},
//  "permuted_copies": {initializer: {"of": weight, "perm": perm}},
//  "folded_batch_norms": {conv weight: {"module", "parameters", "bias", "epsilon"}},
//  "weight_constants": {constant: [weights it was computed from]}}; nodes without a record are
// counted under "" (the root).
nlohmann::json pass_summary(const std::vector<NodeRecord>& records, const PassReport& report);

// A weight whose every reader is a Transpose with the same perm (and that is
// not read in a subgraph nor a graph output) is written permuted
// (WeightBytes::permuted, its initializer's dims permuted) and the
// Transposes go. A weight read through such Transposes and also as it is
// gets a permuted copy (a new initializer named as the first Transpose's
// output, PassReport::permuted_copies) that the Transposes' readers read.
void fold_weight_transposes(onnx::GraphProto& g, WeightMap& weights, PassReport& report);

// Data movement (Split, Concat, Unsqueeze, Slice, Gather, Reshape, ...) on
// weights stored as they are (at most 2^20 elements) and constants becomes
// a Constant under the name of the chain's last node, when every weight it
// reads is read only by such chains (no weight written twice) and the
// result is no larger than the weights (PassReport::weight_constants).
void fold_weight_data(onnx::GraphProto& g, const WeightMap& weights, PassReport& report);

// An eval-mode BatchNormalization whose input is a Conv's output read by it
// alone (float32; the Conv weight, its bias and the BN's parameters read
// nowhere else) is folded into the Conv: the weight keeps its name and is
// written scaled per output channel (WeightBytes::scaled), the folded bias
// replaces the Conv's bias (or, without one, the BN's shift under its
// name), the BN goes (PassReport::folded_batch_norms).
void fold_batch_norms(onnx::GraphProto& g, WeightMap& weights, PassReport& report);

// A Conv (float32 weight read by it alone) whose output is read only by a
// Mul of a per-channel float32 constant, itself read only by an Add of one
// (optional), is that Conv with its weight written scaled per output
// channel (WeightBytes::scaled) and its bias b * s + t (the Conv's bias, or
// the shift constant reshaped to [C]); the Mul and the Add go
// (PassReport::folded_channel_affines).
void fold_channel_affines(onnx::GraphProto& g, WeightMap& weights, PassReport& report);

// Nodes of a small set of integer shape ops (Shape of a static input,
// Gather, Unsqueeze, Squeeze, Concat, Cast, Add/Sub/Mul/Div, comparisons,
// Reshape, Identity, Range) whose inputs are all constants, and
// data-movement ops (Identity, Shape, Expand, Slice, Concat, Gather,
// Transpose, Reshape, Unsqueeze, Squeeze) on constants of any dtype, and
// element-wise float arithmetic (Add, Sub, Mul, Div, Neg, Abs, Sqrt,
// Reciprocal, Pow by 2 or 3, Cast; Max, Min, Clip, Floor, Ceil, which
// never round, integers too) on float32/float64/float16/bfloat16
// constants, computed bit for bit as ONNX Runtime computes it, become a
// Constant node under their own name (results of at most 1024 elements).
// With `weights`, the program's integer tensor constants of at most 16
// elements (WeightBytes::program_constant: a loop counter lifted from
// `torch.tensor(0)`) are constants too; what is computed from them is
// named in PassReport::weight_constants.
void fold_constants(onnx::GraphProto& g, PassReport& report, const WeightMap* weights = nullptr);


// Two or more Slices of one value along one axis (constant starts and ends,
// step 1) that tile the axis, static in `shapes`, are one Split: the first
// Slice in graph order becomes it (name kept), the others are removed.
void merge_slices_to_split(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes);

// Shape(x) (with start/end), Slice(Shape(x), [a], [b]) and Gather(Shape(x),
// i) that read only dims `shapes` states as numbers -> Constant nodes of
// them (names kept); a read touching a dynamic dim stays.
void fold_static_dims(onnx::GraphProto& g, const SymbolicShapes& shapes);

// Unsqueeze(Gather(Shape(x), i), [0]) -> Shape(x, start=i, end=i+1) at
// opset >= 15; Unsqueeze(Unsqueeze(x, A), B) with the inner one read once ->
// one Unsqueeze (the inner node becomes the merged axes' constant).
void collapse_unsqueezes(onnx::GraphProto& g, int opset, PassReport& report);

// A Reshape whose computed shape is known well enough reads one constant
// shape instead (an initializer named after the Reshape); the glue that
// computed it is left dead. Known from `shapes` (the input's and output's
// dims): static dims as they are, a dynamic output dim equal to the input's
// at the same position as 0 (copy), one other dynamic dim as -1. Or, from
// the graph alone, a Concat of positive constants and one single-element
// dynamic part (a Shape slice, an Unsqueeze'd scalar): that part as -1.
// Reshape(Reshape(x)) reshapes x when `shapes` give x's and the result's dims.
void infer_reshape_dim(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes = {});

// Gather(Shape(x), i) -> Squeeze(Shape(x, start=i, end=i+1)) when such a
// sliced read of x exists for every dim the whole Shape(x)'s readers (all
// such Gathers) take: the whole read goes.
void share_dim_reads(onnx::GraphProto& g);

// Every top-level Constant node (value attribute) becomes an initializer
// named by its output, with its bytes (raw_data): what torch.onnx writes.
void constants_to_initializers(onnx::GraphProto& g, PassReport& report);

// Nodes that pass their input through (Add/Sub of a 0-d zero, Mul/Div of a
// 0-d one, a Slice keeping every element, an Expand to [], Identity, a
// Transpose by the identity perm, the negative-index fix-up
// Where(i < 0, i + n, i) of indices never negative) are dropped, their
// readers reading the input; Transpose(Transpose(x)) reads x with the
// composed perm (dropped when that is the identity). Nodes producing graph
// outputs stay.
void drop_noops(onnx::GraphProto& g, PassReport& report);

// Min(Max(x, lo), hi) or Max(Min(x, hi), lo) with 0-d constant bounds
// lo <= hi of a dtype Clip takes, the inner node read only there, is
// Clip(x, lo, hi): the outer node becomes it (two one-sided clamps, as
// run_decompositions() writes hardswish).
void merge_clamps(onnx::GraphProto& g, PassReport& report);

// A constant-mode Pad by 0 of the spatial dims only (non-negative amounts),
// read by one Conv alone (explicit pads), is folded into that Conv's pads.
void fuse_pads_into_convs(onnx::GraphProto& g, PassReport& report);

// An Expand or Reshape whose input and output have the same dims by
// `shapes` is dropped (its readers read its input); a broadcasting
// element-wise op reading Expand(c, Shape(y)), y another of its operands,
// reads c. Nodes producing graph outputs stay.
void drop_shape_noops(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes);

// Reshape(MatMul(Reshape(a), Reshape(b))) that flattens and restores the
// same batch dims of a, b and the result (by `shapes`) is MatMul(a, b),
// writing the result's name (the MatMul node is kept).
void unflatten_batched_matmuls(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes);

// Nodes of the same op, inputs and attributes are one node (the first);
// skipped: nodes with subgraphs, random ops, nodes producing graph outputs.
void merge_duplicate_nodes(onnx::GraphProto& g, PassReport& report);

}  // namespace mx::aten_onnx
