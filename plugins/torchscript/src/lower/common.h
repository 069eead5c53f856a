// Building blocks shared by several TorchScript lowerings. The ONNX
// patterns (linear, layer norm, GELU, attention, ...) are in the shared
// layer, aten_onnx/include/mx/aten_onnx/patterns.hpp.
#pragma once
#include "ctx.h"

namespace mxts {
// Elements of a list/tuple value: known elements, or the items of a folded
// (static) list; an unsupported-op error otherwise.
std::vector<VP> elems_of(Ctx& cx, const VP& list);
// Symbols whose output aliases their first input (views).
bool is_view_op(const std::string& kind);
// After an in-place op replaced `old_val` (a view) by `new_val`, rebuild the
// base tensor(s) the view was taken from and rebind them in the frame.
void write_back_view(Ctx& cx, const VP& old_val, const VP& new_val);
}  // namespace mxts
