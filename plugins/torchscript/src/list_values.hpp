// The elements of a list or tuple value, for lowerings that take lists
// (cat, split, index, einsum, rnn parameters, ...).
#pragma once
#include <vector>

#include "ctx.hpp"

namespace mx::torchscript {
// Known elements, or the items of a folded (static) list; an
// unsupported-op error otherwise.
std::vector<VP> elems_of(Ctx& cx, const VP& list);
}  // namespace mx::torchscript
