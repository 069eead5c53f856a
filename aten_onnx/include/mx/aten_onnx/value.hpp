// A value of an ATen program as a lowering sees it, whichever frontend
// read the program: a tensor (its ONNX name, dtype and symbolic shape) or a
// SymInt (static, or a 0-d int64 ONNX tensor). Knows nothing of ONNX
// beyond the dtype code, so a frontend's program reader can use Dim too.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mx::aten_onnx {

// One dimension: a number, or a symbolic expression (`s77`, `2*s77`) with
// the hint the frontend knows for it (the example size).
struct Dim {
  bool is_static = true;
  int64_t value = 0;   // the size, or the hint of a symbolic one
  std::string symbol;  // "s77" when the dim is exactly one symbol
  std::string expr;    // its text otherwise
};

// The same dim whatever the inputs: the same size, or exactly the same
// symbol (an expression is not compared); shapes of the same rank, dim by dim.
inline bool same_dim(const Dim& a, const Dim& b) {
  if (a.is_static != b.is_static) return false;
  return a.is_static ? a.value == b.value : !a.symbol.empty() && a.symbol == b.symbol;
}
inline bool same_shape(const std::vector<Dim>& a, const std::vector<Dim>& b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d)
    if (!same_dim(a[d], b[d])) return false;
  return true;
}

struct Value {
  enum Kind { tensor, sym_int } kind = tensor;
  std::string onnx;                  // tensor; or a dynamic SymInt as 0-d int64
  int32_t dtype = 0;                 // onnx::TensorProto_DataType of a tensor
  std::vector<Dim> shape;            // tensor
  std::optional<int64_t> int_value;  // a SymInt known statically
};

}  // namespace mx::aten_onnx
