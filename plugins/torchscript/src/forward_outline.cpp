#include "forward_outline.hpp"

#include <set>
#include <unordered_map>

namespace mx::torchscript {
namespace {

namespace tj = torch::jit;

// Building, reading or converting Python values: no computation of the
// module's own, nothing in an ONNX graph.
bool structural(const std::string& kind) {
  static const std::set<std::string> kinds = {"prim::Constant",
                                              "prim::GetAttr",
                                              "prim::TupleConstruct",
                                              "prim::TupleUnpack",
                                              "prim::TupleIndex",
                                              "prim::ListConstruct",
                                              "prim::ListUnpack",
                                              "prim::DictConstruct",
                                              "prim::NumToTensor",
                                              "prim::unchecked_cast",
                                              "prim::RaiseException",
                                              "prim::Uninitialized",
                                              "prim::Print",
                                              "prim::SetAttr",
                                              "prim::If",
                                              "prim::Loop",
                                              "aten::warn",
                                              "aten::Int",
                                              "aten::Float",
                                              "aten::ScalarImplicit",
                                              "aten::contiguous",
                                              "aten::detach",
                                              "aten::__getitem__",
                                              "aten::len",
                                              "aten::__is__",
                                              "aten::__isnot__",
                                              "aten::format",
                                              "aten::dim"};
  return kinds.count(kind) != 0;
}

// dropout(x, p, train) with a constant train=False is the identity.
bool eval_dropout(const tj::Node* n, const std::string& kind) {
  static const std::set<std::string> kinds = {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
                                              "aten::feature_alpha_dropout"};
  if (!kinds.count(kind) || n->inputs().size() < 3) return false;
  auto train = tj::toIValue(n->input(2));
  return train && train->isBool() && !train->toBool();
}

std::string join(const std::string& a, const std::string& b) {
  return a.empty() ? b : a + "." + b;
}

class OutlineReader {
 public:
  explicit OutlineReader(nlohmann::json& out) : out_(out) {}

  // `graph` runs as a method of the module at `self_path`; its first input
  // is that module.
  void read_method(tj::Graph& graph, const std::string& self_path) {
    self_path_ = self_path;
    if (!graph.inputs().empty()) module_path_[graph.inputs()[0]] = self_path;
    read_block(graph.block());
  }

 private:
  void read_block(tj::Block* block) {
    for (tj::Node* n : block->nodes()) read_node(n);
  }

  void read_node(tj::Node* n) {
    const std::string kind = n->kind().toQualString();
    if (kind == "prim::GetAttr") return note_submodule(n);
    if (kind == "prim::CallMethod") return note_call(n);
    if (kind == "prim::CallFunction") return read_function(n);
    for (tj::Block* b : n->blocks()) read_block(b);  // If / Loop bodies in place
    if (structural(kind) || eval_dropout(n, kind)) return;
    out_.push_back({{"op", kind}});
  }

  void note_submodule(tj::Node* n) {
    auto owner = module_path_.find(n->input(0));
    auto cls = n->output()->type()->cast<c10::ClassType>();
    if (owner == module_path_.end() || !cls || !cls->is_module()) return;
    module_path_[n->output()] = join(owner->second, n->s(c10::attr::name));
  }

  void note_call(tj::Node* n) {
    auto target = module_path_.find(n->input(0));
    if (target == module_path_.end()) return;  // a method on a non-module object
    if (target->second == self_path_ && read_own_method(n)) return;
    nlohmann::json step = {{"call", target->second}};
    const std::string method = n->s(c10::attr::name);
    if (method != "forward") step["method"] = method;
    out_.push_back(std::move(step));
  }

  // self.helper(x): the helper's ops are the module's own, read in place.
  // Bounded: TorchScript rejects recursive methods.
  bool read_own_method(tj::Node* n) {
    auto cls = n->input(0)->type()->cast<c10::ClassType>();
    tj::Function* method = cls ? cls->findMethod(n->s(c10::attr::name)) : nullptr;
    if (!method) return false;
    read_method(*tj::toGraphFunction(*method).graph(), self_path_);
    return true;
  }

  // A free function's ops run in the caller's frame: read them in place.
  // Recursion is bounded because TorchScript functions cannot recurse.
  void read_function(tj::Node* n) {
    auto ft = n->input(0)->type()->cast<c10::FunctionType>();
    if (!ft) return;
    auto& graph = *tj::toGraphFunction(*ft->function()).graph();
    for (size_t k = 1; k < n->inputs().size() && k - 1 < graph.inputs().size(); ++k) {
      auto caller = module_path_.find(n->input(k));
      if (caller != module_path_.end()) module_path_[graph.inputs()[k - 1]] = caller->second;
    }
    read_block(graph.block());
  }

  nlohmann::json& out_;
  std::string self_path_;
  std::unordered_map<const tj::Value*, std::string> module_path_;
};

}  // namespace

nlohmann::json forward_outline(const torch::jit::Module& module, const std::string& path) {
  auto forward = module.find_method("forward");
  if (!forward) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  OutlineReader(out).read_method(*forward->graph(), path);
  return out;
}

}  // namespace mx::torchscript
