// The outline of a module's forward: in program order, the ops it runs
// itself and the submodules it calls, read from the TorchScript graph
// without running it. Written as the "forward" member of each module in the
// hierarchy document (docs/hierarchy-schema.md) so that `modelexport tag
// --hierarchy H.json` can tell, for a file exported elsewhere, which modules
// compute anything themselves and what runs after a child returns
// (docs/tagging.md §3).
#pragma once
#include <torch/script.h>

#include <nlohmann/json.hpp>
#include <string>

namespace mx::torchscript {

// [{"call": "encoder.layer.0"}, {"op": "aten::add"}, ...] for the module at
// `path`; call targets are full module paths (resolved through GetAttr
// chains, so a ModuleList item is "encoder.layer.0"). Ops that build or take
// apart Python values (constants, tuples, lists, attribute reads) and ops
// that lower to no ONNX node (eval-mode dropout, contiguous, detach, Int) are
// left out. Control-flow blocks and called functions are read in place.
// Null when the module has no forward (ModuleList, ModuleDict).
nlohmann::json forward_outline(const torch::jit::Module& module, const std::string& path);

}  // namespace mx::torchscript
