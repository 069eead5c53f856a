// Progress of the graph walk, for the host's progress bar: how many ops the
// walk will lower (counted on the graphs before it starts) and how many it
// has lowered. Only ops that reach a lowering count — constants, attribute
// reads and calls are bookkeeping, not work.
#pragma once
#include <cstdint>
#include <functional>

#include <torch/script.h>

namespace mx::torchscript {

class WalkProgress {
 public:
  // `report` as in ExportOptions::progress; empty: every call is a no-op
  // and nothing is counted.
  WalkProgress(const torch::jit::Graph& forward, std::function<bool(uint64_t done, uint64_t total)> report);
  // One more op lowered. Throws Error(MX_ERR_CANCELLED) when the caller
  // asked to stop.
  void op_done();
  // The walk is over: the last report says done == total.
  void finish();

 private:
  std::function<bool(uint64_t, uint64_t)> report_;
  uint64_t done_ = 0;
  uint64_t total_ = 0;
};

// The ops a walk of `graph` lowers: called methods and functions counted
// through their graphs, the larger branch of an If, a Loop's body times a
// constant trip count (once when the count is not a constant). An estimate
// where control flow depends on values; the walk clamps to it.
uint64_t count_walk_ops(const torch::jit::Graph& graph);

}  // namespace mx::torchscript
