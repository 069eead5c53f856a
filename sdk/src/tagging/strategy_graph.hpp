// The graph a strategy reads through the host (plugin ABI 1.2,
// mx_graph_reader): read-only accessors over the model being tagged, in
// place of the 32 MB JSON text a 200,000-node graph used to be, and over
// the supplied hierarchy's modules (parsed once by the host, where each
// strategy parsed the request's "modules" again: half of `tag --hierarchy`
// at 100,000 modules). Texts are
// the tagger's GraphView strings (already UTF-8, as the JSON view gives
// them) or the proto's own strings; only text that is not valid UTF-8 is
// copied, replaced (util/utf8.hpp), and kept until the reader goes.
#pragma once
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mx/onnx_proto.hpp"

#include "modelexport/plugin.h"
#include "registry/table_slot.hpp"
#include "tagging/graph_topology.hpp"
#include "tagging/rebuilt_tree.hpp"

namespace mx {

class StrategyGraph {
 public:
  // All must outlive the reader (the tagger holds them for the whole tag).
  // `supplied`: the supplied hierarchy's tree, or null without one.
  StrategyGraph(const onnx::ModelProto& proto, const GraphView& view, const ModuleTree* supplied);
  StrategyGraph(const StrategyGraph&) = delete;
  StrategyGraph& operator=(const StrategyGraph&) = delete;
  ~StrategyGraph();

  // At a stable address (registry/table_slot.hpp): called after this
  // reader is gone, every function answers as for an empty graph.
  const mx_graph_reader& reader() const { return slot_->table; }

  // The accessors' work, for the C functions in the .cpp.
  const onnx::GraphProto& graph() const { return proto_.graph(); }
  const GraphView& view() const { return view_; }
  // The supplied modules; supplied_module is null out of range.
  uint64_t supplied_count() const;
  const hierarchy::Module* supplied_module(uint64_t i) const;
  mx_text text(const std::string& s) const;  // valid UTF-8, or a kept replacement
  using Metadata = std::vector<std::pair<std::string, std::string>>;
  const Metadata* metadata(uint64_t node) const;  // null when out of range

 private:
  const onnx::ModelProto& proto_;
  const GraphView& view_;
  const ModuleTree* supplied_;
  TableSlot<mx_graph_reader, const StrategyGraph>* slot_;
  // Filled on first use (only the metadata strategy reads it): every
  // node's metadata_props, decoded from the unknown field and replaced.
  mutable std::once_flag metadata_once_;
  mutable std::vector<Metadata> metadata_;
  mutable std::mutex replaced_mutex_;
  mutable std::deque<std::string> replaced_;  // stable addresses
};

}  // namespace mx
