#include "walk_progress.hpp"

#include <algorithm>
#include <unordered_map>

#include <torch/csrc/jit/api/function_impl.h>

#include "exporter.hpp"
#include "modelexport/modelexport.h"

namespace mx::torchscript {
namespace {

namespace tj = torch::jit;

// Graphs of one module type are shared by every call: each is counted once.
class OpCounter {
 public:
  uint64_t graph(const tj::Graph& g) {
    auto it = memo_.find(&g);
    if (it != memo_.end()) return it->second;
    memo_[&g] = 0;  // a recursive call counts as nothing, not forever
    const uint64_t n = block(*g.block());
    memo_[&g] = n;
    return n;
  }

 private:
  uint64_t block(const tj::Block& b) {
    uint64_t n = 0;
    for (const tj::Node* node : b.nodes()) n += this->node(*node);
    return n;
  }

  uint64_t node(const tj::Node& n) {
    const auto kind = n.kind();
    if (kind == c10::prim::Constant || kind == c10::prim::GetAttr || kind == c10::prim::RaiseException ||
        kind == c10::prim::Uninitialized || kind == c10::prim::Print)
      return 0;
    if (kind == c10::prim::CallMethod) {
      auto cls = n.input(0)->type()->cast<c10::ClassType>();
      auto* fn = cls ? cls->findMethod(n.s(c10::attr::name)) : nullptr;
      return fn ? graph(*tj::toGraphFunction(*fn).graph()) : 0;
    }
    if (kind == c10::prim::CallFunction) {
      auto ft = n.input(0)->type()->cast<c10::FunctionType>();
      return ft ? graph(*tj::toGraphFunction(*ft->function()).graph()) : 0;
    }
    if (kind == c10::prim::If) {
      uint64_t most = 0;
      for (const tj::Block* b : n.blocks()) most = std::max(most, block(*b));
      return most;
    }
    if (kind == c10::prim::Loop) {
      const auto trips = tj::toIValue(n.input(0));
      const int64_t times = trips && trips->isInt() ? trips->toInt() : 1;
      return block(*n.blocks()[0]) * static_cast<uint64_t>(std::clamp<int64_t>(times, 0, 1 << 20));
    }
    return 1;
  }

  std::unordered_map<const tj::Graph*, uint64_t> memo_;
};

}  // namespace

uint64_t count_walk_ops(const tj::Graph& graph) {
  return OpCounter().graph(graph);
}

WalkProgress::WalkProgress(const tj::Graph& forward, std::function<bool(uint64_t, uint64_t)> report)
    : report_(std::move(report)) {
  if (!report_) return;
  total_ = count_walk_ops(forward);
  if (!report_(0, total_)) throw Error(MX_ERR_CANCELLED, "torchscript: export cancelled");
}

void WalkProgress::op_done() {
  if (!report_) return;
  ++done_;
  total_ = std::max(total_, done_);  // a loop ran more often than counted
  if (!report_(done_, total_)) throw Error(MX_ERR_CANCELLED, "torchscript: export cancelled");
}

void WalkProgress::finish() {
  if (!report_) return;
  total_ = done_;  // a branch not taken was counted: the walk is done all the same
  if (!report_(done_, total_)) throw Error(MX_ERR_CANCELLED, "torchscript: export cancelled");
}

}  // namespace mx::torchscript
