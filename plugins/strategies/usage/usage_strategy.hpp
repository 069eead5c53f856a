// The usage strategy: a node belongs to the module whose parameters it
// consumes, directly or through a chain of pass-through nodes
// (static_chains.hpp); chain nodes belong to the same module. Node names are
// never read, so files whose names carry no scope are handled alike.
#pragma once
#include <string>
#include <vector>

#include "request_graph.hpp"
#include "module_outlines.hpp"

namespace mx::usage {

struct UsageOptions {
  // A parameter consumed by more than one compute node is either shared on
  // purpose (GPT-2's tied `wte.weight` used by the lm_head) or the product
  // of the exporter merging equal-valued initializers (every LayerNorm's
  // ones/zeros). Either way its name names only one of the consumers'
  // modules, so by default such a parameter is not used as evidence.
  bool use_shared_parameters = false;
  // With forward outlines (a supplied hierarchy), a shared parameter stays
  // evidence for the consumers whose op its owner's own code produces, as
  // long as there are no more of them than the owner runs: GPT-2's and T5's
  // tied embedding keep their Gather (the head's MatMul is not an
  // Embedding's op), a module called twice keeps both Convs, while merged
  // LayerNorm weights (one owner called once, many LayerNormalization
  // readers) stay no evidence. And a parameter of a module no outline calls
  // goes to the one called module that is the same object under another
  // path (ModuleOutlines::running_alias: T5's `shared` -> `encoder.embed_tokens`),
  // or, if it never runs at all, to the ancestor whose own code reads it
  // (ModuleOutlines::reading_ancestor: MultiheadAttention's `out_proj`).
  ModuleOutlines outlines;
};

struct UsageAssignment {
  size_t node;
  std::string module;
  bool by_size = false;  // an anonymous weight matched by size and order (anonymous_weights.hpp)
};

std::vector<UsageAssignment> assign_by_usage(const GraphView& graph, const UsageOptions& options);

}  // namespace mx::usage
