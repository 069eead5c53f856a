// The `namespace` node metadata in the format of PyTorch's dynamo exporter,
// ": <root class>/<name>: <class>/…/<node name>: <op_type>", so that tools
// that understand dynamo files (Model Explorer's ONNX adapter) group nodes
// by our hierarchy.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hierarchy/document.hpp"

namespace mx::model {

// One per save (of the document's `modules`), asked for the nodes in file
// order: consecutive nodes of one module (the usual case: an op lowers to
// several nodes) share the part the module contributes, and modules with
// one parent (a layer's dense and act) share the chain of called modules
// above them, kept for the last few parents and continued from a kept
// ancestor's; each is built once for the run of nodes, walking parent
// positions. Only the last ones are kept: a map of every module's part
// costs more than it saves on a graph with a module per node or two.
//
// Modules are found by the positions the document's writer noted (a
// record's module_at, a module's parent_at; checked here, the one place
// that does), else through a hierarchy::ModuleIndex: `kept` when the
// caller has one over `modules` (model::set_hierarchy keeps one), else one
// built on the first position that is not right. Tagging notes every
// position, so a tagged save hashes no module.
class DynamoNamespaces {
 public:
  static constexpr size_t kNone = hierarchy::kNoPosition;

  // `modules` (and `kept`) must outlive the namespaces and not change.
  explicit DynamoNamespaces(const std::vector<hierarchy::Module>& modules,
                            const hierarchy::ModuleIndex* kept = nullptr);
  // A node's whole value (what the tests and a copy of one node ask).
  std::string of(const std::string& module_path, const std::string& node_name, const std::string& op_type);

  // A module's prefix (see `prefix`) as where its two pieces are, valid
  // as long as the namespaces: what a writer keeps that plans every node
  // before writing any (NodeTagWriter), instead of a copy of each prefix.
  // The chain above the module is shared by its siblings; the module's own
  // part ("/name: class/") is written when the reference is made, while the
  // module is at hand (read from the modules when writing, it would be a
  // cache miss per node).
  struct PrefixRef {
    size_t chain_begin = 0;  // in the kept chains' text
    size_t chain_size = 0;
    size_t own_begin = 0;  // in the modules' own parts
    size_t own_size = 0;   // 0: no module, the empty prefix
  };
  using PrefixParts = std::array<std::string_view, 2>;
  // `at`: where the module may be in the modules (a record's module_at
  // hint; checked, else looked up).
  PrefixRef prefix_ref(const std::string& module_path, size_t at = hierarchy::kNoPosition);
  // The pieces of a prefix, in order: the chain above, the module's own part.
  PrefixParts parts_of(const PrefixRef& ref) const;
  // A node's value from its module's prefix: prefix, node name, ": ",
  // op_type (the one place that says so).
  static std::array<std::string_view, 5> layout(const PrefixParts& prefix, std::string_view node_name,
                                                std::string_view op_type) {
    return {prefix[0], prefix[1], node_name, ": ", op_type};
  }
  // The part of `of` before the node's own "name: op_type" (ends in "/", or
  // is empty). `at` as for prefix_ref.
  std::string prefix(const std::string& module_path, size_t at = hierarchy::kNoPosition);

 private:
  // The chain of called modules down to a module (`of`, a position): its
  // text (in chain_text_), and the path of its last module (the scope a
  // child is named relative to).
  struct Chain {
    size_t of = kNone;
    size_t begin = 0;
    size_t size = 0;
    std::string_view scope;
  };
  const Chain& chain_above(size_t position);
  // Position of the module with `path`: `hint` when it names it, else the
  // index's answer (the first module with the path); kNone when none.
  size_t position_of(std::string_view path, size_t hint);
  // hierarchy::ModuleIndex::parents()[position], by the module's parent_at
  // when that names its parent.
  size_t parent_of(size_t position);
  const hierarchy::ModuleIndex& index();

  const std::vector<hierarchy::Module>& modules_;
  const hierarchy::ModuleIndex* kept_;         // over modules_, or nullptr
  std::optional<hierarchy::ModuleIndex> own_;  // built when kept_ is none
  // Every chain built, one after the other (a PrefixRef refers to them);
  // a few per layer of a model, never removed.
  std::string chain_text_;
  // Every prefix_ref's own part, one after the other.
  std::string own_text_;
  // The last few chains built: nodes of a layer alternate between the
  // layer's children and the layer itself (two parents), and a new layer's
  // chain continues its parent's.
  std::array<Chain, 4> chains_;
  size_t next_kept_ = 0;
  std::vector<size_t> chain_scratch_;
};

}  // namespace mx::model
