// A graph's value names interned once: every node input and output, graph
// input and initializer gets a dense id, and each id its writer. The passes
// that each hashed every name of the graph again (the structure check,
// model/check.hpp, and tagging's propagation, tagging/graph_edges.hpp) read
// ids from one table instead: hashing and probing the names was most of
// their time on large graphs (docs/performance.md).
//
// Ids follow the first appearance in the nodes' inputs and outputs (node
// order), then the declared names (graph inputs, initializers) no node
// mentions. Keys are views into the graph, which must outlive the table.
//
// The same walk keeps what the later readers of the names need, so that
// none of them walks the graph's 10^5+ nodes and their name strings again
// (each walk was mostly cache misses on the strings): every slot's name
// (the check's messages, the tagger's graph view, tagging/graph_topology),
// whether all names are plain ASCII (the view then reads them as they are)
// and which nodes hold subgraphs (the check descends into those only).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "mx/onnx_proto.hpp"

#include "model/name_index.hpp"

namespace mx::model {

struct ValueTable {
  static constexpr uint32_t kNone = NameIndex::kNone;  // "": an omitted optional input or output
  static constexpr int32_t kDeclared = -1;             // a graph input or initializer
  static constexpr int32_t kUnwritten = -2;            // read, but nothing in this graph writes it

  // Flat lists; `*_begin` holds each node's start, one more entry than nodes.
  std::vector<uint32_t> input_begin, inputs;    // node → its explicit inputs' ids
  std::vector<uint32_t> output_begin, outputs;  // node → its outputs' ids
  std::vector<int32_t> writer;                  // id → the first node writing it, kDeclared or kUnwritten
  std::vector<bool> initializer;                // id → named by one of the graph's initializers
  // Each slot's name as the graph spells it ("" for an omitted one), views
  // into the graph beside `inputs` and `outputs`, and every initializer's
  // name in the graph's order.
  struct SlotNames {
    std::vector<std::string_view> inputs, outputs, initializers;
  } slot_names;
  // Every name interned (node inputs and outputs, graph inputs and
  // initializers) is plain ASCII: it reads the same through any UTF-8
  // repair (util/utf8.hpp).
  bool ascii = true;
  // Nodes with a graph-valued attribute (If, Loop, Scan...), in node order.
  std::vector<uint32_t> subgraph_nodes;
  // Some value has two writers (two nodes, or a node and a declaration);
  // check_graph_structure names the first one.
  bool two_writers = false;
  NameIndex ids;  // names → ids (model/name_index.hpp: a small table for 10^5+ names)

  size_t size() const { return writer.size(); }
  size_t input_count(size_t node) const { return input_begin[node + 1] - input_begin[node]; }
  size_t output_count(size_t node) const { return output_begin[node + 1] - output_begin[node]; }
  // kNone for a name the graph does not mention.
  uint32_t find(std::string_view name) const { return ids.find(name); }
  // Written by a node of the graph or declared by it.
  bool defines(std::string_view name) const {
    const uint32_t id = find(name);
    return id != kNone && writer[id] != kUnwritten;
  }
};

// The graph's own values (not its subgraphs').
ValueTable intern_values(const onnx::GraphProto& g);

}  // namespace mx::model
