// In-place writes through views (view_write_back.cpp): which ops make
// views, and rebuilding the base a mutated view was taken from. Used by the
// walker after an in-place op; not a lowering.
#pragma once
#include <string>

#include "ctx.hpp"

namespace mx::torchscript {
// Symbols whose output aliases their first input (views).
bool is_view_op(const std::string& kind);
// After an in-place op replaced `old_val` (a view) by `new_val`, rebuild the
// base tensor(s) the view was taken from and rebind them in the frame.
void write_back_view(Ctx& cx, const VP& old_val, const VP& new_val);
}  // namespace mx::torchscript
