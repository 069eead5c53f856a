// The graph walk: interprets the un-inlined forward graph of a TorchScript
// module, frame by frame (module object, module path, value environment),
// running every node on the example inputs' shapes (shape_exec.hpp) and
// lowering it to ONNX.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ctx.hpp"
#include "dim_symbols.hpp"
#include "walk_progress.hpp"

namespace mx::torchscript {

class Walker {
 public:
  // `progress` (may be null) is told of every op lowered; `symbols` (may
  // be null) gives the values of every op their symbolic dims.
  explicit Walker(Ctx& cx, WalkProgress* progress = nullptr, DimSymbols* symbols = nullptr)
      : cx_(cx), progress_(progress), symbols_(symbols) {}
  // Calls `graph` as method of `module` at `path` with args (self first).
  std::vector<VP> call(const tj::Module& module, const std::string& path, tj::Graph& graph,
                       const std::vector<VP>& args, bool is_function);
  // module path -> order of first call (root = 0)
  const std::map<std::string, int>& execution_order() const { return order_; }
  // Op kinds that had no meta kernel and ran on zero-filled stand-ins.
  const std::set<std::string>& stand_in_ops() const { return stand_in_ops_; }

 private:
  void walk_block(tj::Block* block);
  void walk_node(tj::Node* n);
  void walk_if(tj::Node* n);
  void walk_loop(tj::Node* n);
  void get_attr(tj::Node* n);
  void generic(tj::Node* n);
  Ctx& cx_;
  WalkProgress* progress_;
  DimSymbols* symbols_;
  std::map<std::string, int> order_;
  std::set<std::string> stand_in_ops_;
  int next_order_ = 0;
  int depth_ = 0;
};

}  // namespace mx::torchscript
