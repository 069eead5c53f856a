// A value clamped below then above (or above then below) by scalar
// constants is one Clip.
//
// run_decompositions() writes hardswish and hardsigmoid as two one-sided
// clamps, `clamp(x, 0)` then `clamp(., None, 6)`, each lowered to one Max
// or Min (patterns/clip.cpp: a one-sided Clip would turn +inf into the
// type's largest finite value). Min(Max(x, lo), hi) with 0-d constant
// bounds lo <= hi is Clip(x, lo, hi), and so is Max(Min(x, hi), lo): both
// clamp every finite and infinite value alike, and ONNX Runtime's Clip keeps
// a NaN as Max and Min do (the clamp_nan sample). The outer node becomes
// the Clip (its name and record kept); the inner one dies with the
// dead-node pass when nothing else reads it.
#include <cstring>
#include <map>
#include <set>

#include "constant_data.hpp"
#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using passes::ConstantData;
using passes::is_op;

// A 0-d constant's value as a double, for the dtypes Clip takes; nothing
// for another dtype (float16 is left as Max and Min: comparing its bounds
// would need a half-precision decoder for one rare case).
std::optional<double> scalar_value(const ConstantData& c) {
  if (!c.dims.empty() || c.numel() != 1) return std::nullopt;
  auto read = [&](auto v) {
    std::memcpy(&v, c.bytes.data(), sizeof(v));
    return static_cast<double>(v);
  };
  switch (c.dtype) {
    case onnx::TensorProto::FLOAT:
      return read(float{});
    case onnx::TensorProto::DOUBLE:
      return read(double{});
    case onnx::TensorProto::INT32:
      return read(int32_t{});
    case onnx::TensorProto::INT64:
      return read(int64_t{});
    case onnx::TensorProto::INT8:
      return read(int8_t{});
    case onnx::TensorProto::UINT8:
      return read(uint8_t{});
    default:
      return std::nullopt;
  }
}

// 0-d constants (Constant nodes and inline initializers) by value name.
struct Scalars {
  std::map<std::string, ConstantData> data;
  const ConstantData* find(const std::string& name) const {
    auto it = data.find(name);
    return it == data.end() || !it->second.dims.empty() ? nullptr : &it->second;
  }
};

// Which operand of binary `n` is a 0-d constant: its index, or -1.
int scalar_operand(const onnx::NodeProto& n, const Scalars& s) {
  if (n.input_size() != 2) return -1;
  for (int k = 0; k < 2; ++k)
    if (s.find(n.input(k))) return k;
  return -1;
}

}  // namespace

void merge_clamps(onnx::GraphProto& g, PassReport&) {
  const Scalars scalars{passes::small_constants(g, 1)};
  std::map<std::string, onnx::NodeProto*> producer;
  auto readers = passes::read_counts(g);
  for (auto& n : *g.mutable_node())
    for (const auto& o : n.output()) producer[o] = &n;
  for (auto& outer : *g.mutable_node()) {
    const bool min_outside = is_op(&outer, "Min");
    if (!min_outside && !is_op(&outer, "Max")) continue;
    const int k = scalar_operand(outer, scalars);
    if (k < 0) continue;
    auto p = producer.find(outer.input(1 - k));
    if (p == producer.end() || readers[p->first] != 1) continue;
    const onnx::NodeProto& inner = *p->second;
    if (!is_op(&inner, min_outside ? "Max" : "Min")) continue;
    const int j = scalar_operand(inner, scalars);
    if (j < 0) continue;
    const std::string& lo = min_outside ? inner.input(j) : outer.input(k);
    const std::string& hi = min_outside ? outer.input(k) : inner.input(j);
    const ConstantData &low = *scalars.find(lo), &high = *scalars.find(hi);
    if (low.dtype != high.dtype || !clip_takes(low.dtype)) continue;
    const auto a = scalar_value(low), b = scalar_value(high);
    if (!a || !b || !(*a <= *b)) continue;
    const std::string x = inner.input(1 - j), lo_name = lo, hi_name = hi;
    outer.set_op_type("Clip");
    outer.clear_input();
    outer.add_input(x);
    outer.add_input(lo_name);
    outer.add_input(hi_name);
  }
}

}  // namespace mx::aten_onnx
