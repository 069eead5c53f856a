// Constant tensors of any element type held as their bytes, and the
// data-movement ops evaluated on them (Identity, Shape, Expand, Slice,
// Concat, Gather, Transpose, Reshape, Flatten, Unsqueeze, Squeeze, Where). These ops
// copy or select elements and never compute on them, so a folded result is, bit for bit,
// what a runtime would produce: fold_constants uses them to fold data built
// from constants (a mask written slice by slice) of any dtype.
#pragma once
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mx::aten_onnx::passes {

struct ConstantData {
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  std::string bytes;  // row-major, element_size(dtype) bytes per element
  int64_t numel() const;
};

// The tensor's value (raw_data or its typed field), when it is stored in
// the tensor and has at most `max_elements` elements.
// Strings and sub-byte types (element_size 0) are not held.
std::optional<ConstantData> constant_data(const onnx::TensorProto& t, int64_t max_elements);

// A Constant node's value (`value`, `value_float(s)`, `value_int(s)`).
std::optional<ConstantData> constant_node_data(const onnx::NodeProto& n, int64_t max_elements);

// Every constant of at most `max_elements` elements by value name: the
// Constant nodes' values and the initializers stored inline (a pass that
// reads a bound, pads or a scalar operand looks it up here).
std::map<std::string, ConstantData> small_constants(const onnx::GraphProto& g, int64_t max_elements);

// The tensor of `c`, its bytes as raw_data.
onnx::TensorProto to_tensor(const ConstantData& c);

// The value of `n`'s single output when `n` is a default-domain
// data-movement op and `in` holds its inputs (nullptr: an omitted optional
// input); nothing when the op, its attributes or its inputs are outside
// what is evaluated, or the result has more than `max_elements` elements.
std::optional<ConstantData> eval_data_movement(const onnx::NodeProto& n,
                                               const std::vector<const ConstantData*>& in,
                                               int64_t max_elements);

// The values of a signed integer constant (starts, axes, a shape, a perm),
// as int64; nothing for nullptr or another dtype.
std::optional<std::vector<int64_t>> ints_of(const ConstantData* c);

// `x` broadcast with `shape` as ONNX Expand does (both ways, numpy rules);
// nothing when they do not broadcast or the result has more than `max`
// elements.
std::optional<ConstantData> expand(const ConstantData& x, const std::vector<int64_t>& shape, int64_t max);

// The dims of `a` and `b` broadcast together (numpy rules, as ONNX's
// element-wise ops broadcast); nothing when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_shape(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b);

// The dims ONNX Reshape (allowzero = 0) gives a tensor of dims `from`
// holding `numel` elements for the target `shape`: a 0 copies the input's
// dim, one -1 is inferred. Nothing for a target Reshape refuses.
std::optional<std::vector<int64_t>> reshape_dims(const std::vector<int64_t>& from, int64_t numel,
                                                 const std::vector<int64_t>& shape);

}  // namespace mx::aten_onnx::passes
