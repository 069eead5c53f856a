#include "model/model.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <string_view>
#include <cstdint>

#include "hierarchy/parse.hpp"
#include "hierarchy/tags.hpp"
#include "model/record_keys.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

namespace {

// Blocks grow from 64 KB to 1 MB: a small model costs one small block, a
// large one a few hundred blocks instead of a million allocations.
google::protobuf::ArenaOptions model_arena_options() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = size_t{64} << 10;
  options.max_block_size = size_t{1} << 20;
  return options;
}

}  // namespace

mx_model::mx_model()
    : arena_(std::make_unique<google::protobuf::Arena>(model_arena_options())),
      proto_(google::protobuf::Arena::CreateMessage<onnx::ModelProto>(arena_.get())) {}

void mx_model::swap_proto(mx_model& other) noexcept {
  std::swap(arena_, other.arena_);
  std::swap(proto_, other.proto_);
}

namespace mx::model {
namespace {

// A stable sort by graph position (each record's index), nothing moved
// when already in order (the usual case: tagging writes records in graph
// order).
void sort_in_graph_order(hierarchy::Document& doc) {
  const size_t n = doc.nodes.size();
  auto position = [&](size_t i) { return *doc.nodes[i].index; };
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i) sorted = position(i - 1) <= position(i);
  if (sorted) return;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return position(a) < position(b); });
  std::vector<hierarchy::NodeRecord> in_order;
  in_order.reserve(n);
  for (size_t i : order) in_order.push_back(std::move(doc.nodes[i]));
  doc.nodes = std::move(in_order);
}

// Every record gets its node's position (model/record_keys.hpp); two
// records for one node are refused.
void attach_records(hierarchy::Document& doc, const onnx::GraphProto& graph, const std::string& where,
                    const std::string& model_name) {
  // The name index is built only for a record whose index does not name its
  // node by the record's very name: a document the tagger just wrote, or one
  // read back from a model, never needs it (the index is a hash node per
  // name).
  std::optional<NodeKeys> keys;
  std::vector<size_t> owner(static_cast<size_t>(graph.node_size()), SIZE_MAX);
  // Messages name the record; the prefix is built only for one.
  auto at = [&](size_t i) { return where + ": nodes[" + std::to_string(i) + "]"; };
  const int nodes = graph.node_size();
  for (size_t i = 0; i < doc.nodes.size(); ++i) {
    // Records name their nodes in graph order, mostly: a node's name is
    // three allocations deep (node, string, characters), fetched in steps
    // ahead of the compare (each is a cache miss otherwise).
    auto node = [&](size_t k) -> const onnx::NodeProto& { return graph.node(static_cast<int>(k)); };
    if (i + 24 < static_cast<size_t>(nodes)) __builtin_prefetch(&node(i + 24));
    if (i + 16 < static_cast<size_t>(nodes)) __builtin_prefetch(&node(i + 16).name());
    if (i + 8 < static_cast<size_t>(nodes)) __builtin_prefetch(node(i + 8).name().data());
    if (i + 8 < doc.nodes.size()) __builtin_prefetch(doc.nodes[i + 8].name.data());
    hierarchy::NodeRecord& r = doc.nodes[i];
    size_t position;
    bool same_name = false;  // the record holds its node's name already
    if (r.index && *r.index >= 0 && *r.index < graph.node_size() &&
        graph.node(static_cast<int>(*r.index)).name() == r.name) {
      // What NodeKeys::find answers: a unique name is this node's, and a
      // shared or empty one is resolved by the index, which names it.
      position = static_cast<size_t>(*r.index);
      same_name = true;
    } else {
      if (!keys) keys.emplace(graph, model_name);
      position = keys->resolve(r, at(i));
    }
    if (owner[position] != SIZE_MAX)
      fail(MX_ERR_SCHEMA, at(i) + ": node " + std::to_string(position) + " ('" +
                              printable(graph.node(static_cast<int>(position)).name()) +
                              "') already has a record (nodes[" + std::to_string(owner[position]) + "])");
    owner[position] = i;
    r.index = static_cast<int64_t>(position);
    // The node's name as valid UTF-8; most records hold it already.
    const std::string& name = graph.node(static_cast<int>(position)).name();
    if ((!same_name && r.name != name) || !is_valid_utf8(name)) r.name = to_valid_utf8(name);
  }
}

}  // namespace

std::string display_name(const mx_model& model) {
  return model.source_path.empty() ? std::string("model") : model.source_path;
}

void set_hierarchy(mx_model& model, hierarchy::Document doc, const std::string& where, Vouched vouched) {
  if (vouched == Vouched::everything) {
    doc.keep_module_index(nullptr);
    model.hierarchy = std::move(doc);
    return;
  }
  // One index for the checks, the tags and the passes after them (records
  // and tags do not move the modules; the document's move into the model
  // keeps the vector's storage, which the index views).
  auto index = std::make_unique<const hierarchy::ModuleIndex>(doc);
  if (vouched == Vouched::modules) hierarchy::validate_records(doc, *index, where);
  else hierarchy::validate_consistency(doc, *index, where);
  attach_records(doc, model.proto().graph(), where, display_name(model));
  hierarchy::derive_tags(doc, *index, {});
  sort_in_graph_order(doc);
  // Computed now, so the kept index is only read from here on (a const
  // model may be saved from several threads).
  index->parents();
  doc.keep_module_index(std::move(index));
  model.hierarchy = std::move(doc);
}

void set_node_record(mx_model& model, size_t position, hierarchy::NodeRecord record) {
  const auto& graph = model.proto().graph();
  if (position >= static_cast<size_t>(graph.node_size()))
    fail(MX_ERR_NOT_FOUND, "no node at position " + std::to_string(position) + " in " + display_name(model));
  auto& doc = model.hierarchy;
  // The index set_hierarchy kept (the modules have not changed since), or
  // one built now and kept for the next record (a caller setting records
  // one by one after tagging: an index of every module per call).
  const hierarchy::ModuleIndex* modules = doc.module_index();
  if (!modules) {
    auto index = std::make_unique<const hierarchy::ModuleIndex>(doc);
    index->parents();  // only read from here on, as set_hierarchy's
    doc.keep_module_index(std::move(index));
    modules = doc.module_index();
  }
  const hierarchy::Module* module = modules->find(record.module);
  if (!doc.modules.empty() && !module)
    fail(MX_ERR_SCHEMA, "record.module: '" + printable(record.module) + "' is not in the module tree");
  if (record.tag.empty() && module) record.tag = module->tag;
  record.name = to_valid_utf8(graph.node(static_cast<int>(position)).name());
  record.index = static_cast<int64_t>(position);
  if (auto* existing = doc.find_record_at(position)) {
    *existing = std::move(record);
  } else {
    doc.nodes.push_back(std::move(record));
    sort_in_graph_order(doc);
  }
}

}  // namespace mx::model
