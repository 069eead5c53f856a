// Which ONNX op types an op of a module's forward outline (a TorchScript op
// kind such as "aten::rsqrt") can become in an exported file. Propagation
// uses it to ask "could this module's own code have produced a node of this
// op type?" (docs/tagging.md §3, outlines).
//
// Hand-written because no library maps TorchScript ops to ONNX: the table
// follows what both torch.onnx.export (1.13) and our exporter emit, and it
// is deliberately narrow for compound ops (`addmm` is `Gemm`, not also the
// `Add` of a residual connection that follows it). Ops it does not know
// answer "unknown", and callers then assume nothing.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mx::common {

// ONNX op types `op_kind` may lower to; nullopt when the table does not know
// the op (any non-aten op, or an aten op not listed).
std::optional<std::vector<std::string>> onnx_ops_of(std::string_view op_kind);

}  // namespace mx::common
