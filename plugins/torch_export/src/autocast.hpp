// Autocast regions of the TRAINING dialect (torch.autocast blocks, kept by
// torch.export as higher_order.wrap_with_autocast): the body's ops run as
// eager autocast runs them. Ops on autocast's lower-precision list
// (linear, matmul, conv, bmm, addmm, baddbmm, ...) read their float
// inputs cast to the region's dtype (bf16 / fp16) and compute in it; ops
// on its float32 list read lower-precision inputs cast to float32. The
// CORE dialect has these casts as explicit _to_copy nodes already.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "lower_ctx.hpp"

namespace mx::torch_export {

// The dtype (ONNX element type) a wrap_with_autocast node's body runs
// its lower-precision ops in: 0 when the region is disabled, else its
// dtype argument. `outer` is the enclosing region's.
int32_t autocast_region_dtype(const json& node, int32_t outer);

// While one node of an autocast region is lowered, its float tensor
// inputs are rebound to their casts (emitted in the node's module); the
// bindings are restored when it goes out of scope. Nothing happens
// outside a region, for ops on neither list, or when torch's record of
// the node's output dtype says autocast did not retarget it.
class AutocastInputs {
 public:
  AutocastInputs(LowerCtx& cx, const json& node);
  ~AutocastInputs();
  AutocastInputs(const AutocastInputs&) = delete;
  AutocastInputs& operator=(const AutocastInputs&) = delete;

 private:
  LowerCtx& cx_;
  std::vector<std::pair<std::string, Value>> saved_;  // value name -> its binding before the cast
  std::vector<std::string> casts_;                    // the cast's ONNX name, per saved_ entry
};

}  // namespace mx::torch_export
