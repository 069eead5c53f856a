#include "model/value_table.hpp"

#include <utility>

#include "util/recent_names.hpp"
#include "util/utf8.hpp"

namespace mx::model {
namespace {

// How many nodes (or declarations) ahead the table's slots are prefetched:
// enough to cover a cache miss with the work of the nodes between.
constexpr int kAhead = 8;

// Whether `node` has a graph-valued attribute.
bool holds_subgraphs(const onnx::NodeProto& node) {
  for (const auto& a : node.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

class Interner {
 public:
  explicit Interner(ValueTable& t) : t_(t) {}
  // "" is no value.
  uint32_t id(std::string_view name) {
    if (name.empty()) return ValueTable::kNone;
    const auto [id, fresh] = t_.ids.intern(name);
    if (fresh) {
      t_.writer.push_back(ValueTable::kUnwritten);
      // Once per distinct name, not per slot; every slot repeats some id's text.
      if (t_.ascii && !is_ascii(name)) t_.ascii = false;
    }
    return id;
  }
  void prefetch(const google::protobuf::RepeatedPtrField<std::string>& names) const {
    for (const auto& name : names)
      if (!name.empty()) t_.ids.prefetch(name);
  }
  void write(uint32_t id, int32_t writer) {
    int32_t& w = t_.writer[id];
    if (w == ValueTable::kUnwritten) w = writer;
    // Several declarations of one name are an input with its default.
    else if (w >= 0 || writer >= 0) t_.two_writers = true;
  }

 private:
  ValueTable& t_;
};

}  // namespace

ValueTable intern_values(const onnx::GraphProto& g) {
  ValueTable t;
  const size_t n = static_cast<size_t>(g.node_size());
  size_t input_slots = 0, output_slots = 0;
  for (const auto& node : g.node()) {
    input_slots += static_cast<size_t>(node.input_size());
    output_slots += static_cast<size_t>(node.output_size());
  }
  // Values are mostly node outputs, plus the declared names (a larger guess
  // doubled the flat table for nothing).
  const size_t expected = output_slots + static_cast<size_t>(g.input_size() + g.initializer_size()) + 16;
  t.ids.reserve(expected);
  t.writer.reserve(expected);
  t.input_begin.reserve(n + 1);
  t.inputs.reserve(input_slots);
  t.slot_names.inputs.reserve(input_slots);
  t.output_begin.reserve(n + 1);
  t.outputs.reserve(output_slots);
  t.slot_names.outputs.reserve(output_slots);
  Interner names(t);
  RecentNames recent;
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) {
      const auto& ahead = g.node(static_cast<int>(i + kAhead));
      names.prefetch(ahead.input());
      names.prefetch(ahead.output());
    }
    const auto& node = g.node(static_cast<int>(i));
    t.input_begin.push_back(static_cast<uint32_t>(t.inputs.size()));
    for (const auto& in : node.input()) {
      const uint32_t id = recent.find(in);
      t.inputs.push_back(id != RecentNames::kAbsent ? id : names.id(in));
      t.slot_names.inputs.push_back(in);
    }
    t.output_begin.push_back(static_cast<uint32_t>(t.outputs.size()));
    for (const auto& out : node.output()) {
      const uint32_t id = names.id(out);
      t.outputs.push_back(id);
      t.slot_names.outputs.push_back(out);
      if (id == ValueTable::kNone) continue;
      names.write(id, static_cast<int32_t>(i));
      recent.add(out, id);
    }
    if (node.attribute_size() > 0 && holds_subgraphs(node))
      t.subgraph_nodes.push_back(static_cast<uint32_t>(i));
  }
  t.input_begin.push_back(static_cast<uint32_t>(t.inputs.size()));
  t.output_begin.push_back(static_cast<uint32_t>(t.outputs.size()));

  for (const auto& v : g.input())
    if (const uint32_t id = names.id(v.name()); id != ValueTable::kNone)
      names.write(id, ValueTable::kDeclared);
  std::vector<uint32_t> initializers;
  initializers.reserve(static_cast<size_t>(g.initializer_size()));
  t.slot_names.initializers.reserve(static_cast<size_t>(g.initializer_size()));
  for (int i = 0; i < g.initializer_size(); ++i) {
    if (i + kAhead < g.initializer_size()) t.ids.prefetch(g.initializer(i + kAhead).name());
    const auto& init = g.initializer(i);
    t.slot_names.initializers.push_back(init.name());
    if (const uint32_t id = names.id(init.name()); id != ValueTable::kNone) {
      names.write(id, ValueTable::kDeclared);
      initializers.push_back(id);
    }
  }
  for (const auto& s : g.sparse_initializer())
    if (const uint32_t id = names.id(s.values().name()); id != ValueTable::kNone)
      names.write(id, ValueTable::kDeclared);
  t.initializer.assign(t.writer.size(), false);
  for (uint32_t id : initializers) t.initializer[id] = true;
  return t;
}

}  // namespace mx::model
