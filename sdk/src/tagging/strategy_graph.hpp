// The graph a strategy reads through the host (plugin ABI 1.2,
// mx_graph_reader): read-only accessors over the model being tagged, in
// place of the 32 MB JSON text a 200,000-node graph used to be. Texts are
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

#include <onnx/onnx_pb.h>

#include "modelexport/plugin.h"
#include "tagging/graph_topology.hpp"

namespace modelexport {

class StrategyGraph {
 public:
  // Both must outlive the reader (the tagger holds them for the whole tag).
  StrategyGraph(const onnx::ModelProto& proto, const GraphView& view);
  StrategyGraph(const StrategyGraph&) = delete;
  StrategyGraph& operator=(const StrategyGraph&) = delete;

  const mx_graph_reader& reader() const { return reader_; }

  // The accessors' work, for the C functions in the .cpp.
  const onnx::GraphProto& graph() const { return proto_.graph(); }
  const GraphView& view() const { return view_; }
  mx_text text(const std::string& s) const;  // valid UTF-8, or a kept replacement
  using Metadata = std::vector<std::pair<std::string, std::string>>;
  const Metadata* metadata(uint64_t node) const;  // null when out of range

 private:
  const onnx::ModelProto& proto_;
  const GraphView& view_;
  mx_graph_reader reader_;
  // Filled on first use (only the metadata strategy reads it): every
  // node's metadata_props, decoded from the unknown field and replaced.
  mutable std::once_flag metadata_once_;
  mutable std::vector<Metadata> metadata_;
  mutable std::mutex replaced_mutex_;
  mutable std::deque<std::string> replaced_;  // stable addresses
};

}  // namespace modelexport
