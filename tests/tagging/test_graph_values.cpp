// The values propagation reads from the names interned once per tag
// (graph_edges values_of over a model::ValueTable) and the graph view built
// from that table: the same as interning the graph view's names, also when
// the view had to replace a name; the structure check reads the table too.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "fixture_model.hpp"
#include "model/check.hpp"
#include "model/value_table.hpp"
#include "tagging/graph_edges.hpp"
#include "tagging/graph_topology.hpp"
#include "util/error.hpp"

using namespace mx;
using mx::testing::chain_net;

namespace {

void check_same(const GraphValues& a, const GraphValues& b) {
  CHECK(a.input_begin == b.input_begin);
  CHECK(a.output_begin == b.output_begin);
  // Ids may differ only by values no node mentions (declared, unread).
  REQUIRE(a.inputs.size() == b.inputs.size());
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    const uint32_t x = a.inputs[k], y = b.inputs[k];
    REQUIRE((x == GraphValues::kNone) == (y == GraphValues::kNone));
    if (x == GraphValues::kNone) continue;
    CHECK(x == y);
    CHECK(a.producer[x] == b.producer[y]);
    CHECK(a.initializer[x] == b.initializer[y]);
  }
}

}  // namespace

TEST_CASE("values from the interned table: the graph view's values") {
  const auto m = chain_net({{{"x", "w"}, {"a"}}, {{"a", "", "w"}, {"b"}}, {{"b", "a"}, {"c", "d"}}});
  const GraphView view = graph_view_of(m);
  CHECK(view.values_as_in_proto);
  check_same(values_of(view, model::intern_values(m.graph())), values_of(view));
  // An omitted input among the first nodes reads no value (it once read id 0).
  const GraphValues v = values_of(view);
  CHECK(v.input(1, 1) == GraphValues::kNone);
}

TEST_CASE("values from the interned table: names the view replaced are interned as the view reads them") {
  // Two invalid-UTF-8 names both read "v\uFFFD" in the view: one value there
  // (its first producer), two in the proto.
  const auto m = chain_net({{{"x"}, {"v\xFF"}}, {{"x"}, {"v\xFE"}}, {{"v\xFE"}, {"out"}}});
  const GraphView view = graph_view_of(m);
  CHECK_FALSE(view.values_as_in_proto);
  CHECK(view.inputs(2)[0] == "v\xEF\xBF\xBD");
  const GraphValues v = values_of(view, model::intern_values(m.graph()));
  check_same(v, values_of(view));
  CHECK(v.producer[v.inputs[v.input_begin[2]]] == 0);
}

namespace {

// The view's nodes and names, compared whole.
void check_same_view(const GraphView& a, const GraphView& b) {
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    CAPTURE(i);
    CHECK(a.nodes[i].name == b.nodes[i].name);
    CHECK(a.nodes[i].op_type == b.nodes[i].op_type);
    const auto same = [](ValueNames x, ValueNames y) {
      return std::vector<std::string_view>(x.begin(), x.end()) ==
             std::vector<std::string_view>(y.begin(), y.end());
    };
    CHECK(same(a.inputs(i), b.inputs(i)));
    CHECK(same(a.outputs(i), b.outputs(i)));
  }
  CHECK(a.initializers == b.initializers);
  CHECK(a.values_as_in_proto == b.values_as_in_proto);
}

}  // namespace

TEST_CASE("graph view from the interned table: as read from the proto alone") {
  const std::vector<onnx::ModelProto> graphs = {
      chain_net({{{"x", "w"}, {"a"}}, {{"a", "", "w"}, {"b"}}, {{"b", "a"}, {"c", "d"}}}),
      chain_net({{{"x"}, {"\xC3\xA9"}}, {{"\xC3\xA9"}, {"b"}}}),                       // valid UTF-8: kept
      chain_net({{{"x"}, {"v\xFF"}}, {{"x"}, {"v\xFE"}}, {{"v\xFE", "w"}, {"out"}}}),  // replaced
      chain_net({}),
  };
  for (size_t k = 0; k < graphs.size(); ++k) {
    CAPTURE(k);
    auto m = graphs[k];
    m.mutable_graph()->add_initializer()->set_name(k == 2 ? "w\xFF" : "w2");
    for (int i = 0; i < m.graph().node_size(); ++i)
      m.mutable_graph()->mutable_node(i)->set_name((k == 2 ? "/n\xFF" : "/n") + std::to_string(i));
    model::ValueTable t = model::intern_values(m.graph());
    const GraphView alone = graph_view_of(m);
    const GraphView from_table = graph_view_of(m, t);
    check_same_view(from_table, alone);
    CHECK(from_table.values_as_in_proto == (k != 2));
    // The table keeps its ids for propagation.
    check_same(values_of(from_table, std::move(t)), values_of(alone));
  }
}

TEST_CASE("structure check with the table: the same messages, also once a view took its slot names") {
  auto m = chain_net({{{"x"}, {"a"}}, {{"a", "nowhere"}, {"b"}}});
  const auto message = [&](const model::ValueTable& t) -> std::string {
    try {
      model::check_graph_structure(m, t, "m.onnx");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  model::ValueTable t = model::intern_values(m.graph());
  const std::string expected =
      "m.onnx: undefined input: node #1 (Op) reads 'nowhere' (no node, graph input or initializer defines "
      "it)";
  CHECK(message(t) == expected);
  const GraphView view = graph_view_of(m, t);
  CHECK(t.slot_names.inputs.empty());
  CHECK(message(t) == expected);
  // A second view from the same table reads the names from the proto.
  check_same_view(graph_view_of(m, t), view);
}
