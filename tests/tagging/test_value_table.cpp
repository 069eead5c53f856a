// The value names interned once per tag (model::ValueTable) and the values
// propagation reads from it (graph_edges values_of): the same as interning
// the graph view's names, also when the view had to replace a name.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "model/check.hpp"
#include "model/value_table.hpp"
#include "tagging/graph_edges.hpp"
#include "tagging/graph_topology.hpp"
#include "util/error.hpp"

using namespace mx;

namespace {

onnx::ModelProto chain(
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>& nodes) {
  onnx::ModelProto m;
  auto* g = m.mutable_graph();
  g->add_input()->set_name("x");
  g->add_initializer()->set_name("w");
  for (const auto& [in, out] : nodes) {
    auto* n = g->add_node();
    n->set_op_type("Op");
    for (const auto& v : in) n->add_input(v);
    for (const auto& v : out) n->add_output(v);
  }
  return m;
}

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

TEST_CASE("value table: writers, declarations, omitted values, two writers") {
  auto m = chain({{{"x", "w"}, {"a"}}, {{"a", ""}, {"b", ""}}, {{"b", "undefined"}, {"c"}}});
  const model::ValueTable t = model::intern_values(m.graph());
  CHECK_FALSE(t.two_writers);
  CHECK(t.writer[t.find("x")] == model::ValueTable::kDeclared);
  CHECK(t.initializer[t.find("w")]);
  CHECK_FALSE(t.initializer[t.find("x")]);
  CHECK(t.writer[t.find("b")] == 1);
  CHECK(t.inputs[t.input_begin[1] + 1] == model::ValueTable::kNone);
  CHECK(t.outputs[t.output_begin[1] + 1] == model::ValueTable::kNone);
  CHECK(t.find("undefined") != model::ValueTable::kNone);
  CHECK_FALSE(t.defines("undefined"));
  CHECK(t.defines("c"));
  CHECK(t.find("nowhere") == model::ValueTable::kNone);

  CHECK(model::intern_values(chain({{{"x"}, {"a"}}, {{"x"}, {"a"}}}).graph()).two_writers);
  CHECK(model::intern_values(chain({{{"x"}, {"w"}}}).graph()).two_writers);
  auto twice_declared = chain({{{"x"}, {"a"}}});
  twice_declared.mutable_graph()->add_initializer()->set_name("x");  // an input with its default
  CHECK_FALSE(model::intern_values(twice_declared.graph()).two_writers);
}

TEST_CASE("values from the interned table: the graph view's values") {
  const auto m = chain({{{"x", "w"}, {"a"}}, {{"a", "", "w"}, {"b"}}, {{"b", "a"}, {"c", "d"}}});
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
  const auto m = chain({{{"x"}, {"v\xFF"}}, {{"x"}, {"v\xFE"}}, {{"v\xFE"}, {"out"}}});
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

TEST_CASE("value table: each slot's name, whether all are ASCII, the nodes holding subgraphs") {
  auto m = chain({{{"x", "w"}, {"a"}}, {{"a", ""}, {"b", ""}}, {{"b"}, {"c"}}});
  model::ValueTable t = model::intern_values(m.graph());
  using Names = std::vector<std::string_view>;
  CHECK(t.slot_names.inputs == Names{"x", "w", "a", "", "b"});
  CHECK(t.slot_names.outputs == Names{"a", "b", "", "c"});
  CHECK(t.slot_names.initializers == Names{"w"});
  CHECK(t.ascii);
  CHECK(t.subgraph_nodes.empty());
  // Views into the graph's own strings.
  CHECK(t.slot_names.inputs[2].data() == m.graph().node(1).input(0).data());

  // A graph attribute, alone or in a list, after attributes of other kinds.
  auto* g = m.mutable_graph();
  g->mutable_node(0)->add_attribute()->set_i(3);
  auto* with_g = g->mutable_node(1);
  with_g->add_attribute()->set_f(1.0f);
  with_g->add_attribute()->mutable_g();
  g->mutable_node(2)->add_attribute()->add_graphs();
  CHECK(model::intern_values(m.graph()).subgraph_nodes == std::vector<uint32_t>{1, 2});

  // One name outside ASCII anywhere (valid UTF-8 or not, a node's or an
  // initializer's) and the table says so.
  for (const char* name : {"\xC3\xA9", "v\xFF"}) {
    CAPTURE(name);
    auto in_node = chain({{{"x"}, {name}}});
    CHECK_FALSE(model::intern_values(in_node.graph()).ascii);
    auto in_initializer = chain({{{"x"}, {"a"}}});
    in_initializer.mutable_graph()->add_initializer()->set_name(name);
    CHECK_FALSE(model::intern_values(in_initializer.graph()).ascii);
  }
}

TEST_CASE("graph view from the interned table: as read from the proto alone") {
  const std::vector<onnx::ModelProto> graphs = {
      chain({{{"x", "w"}, {"a"}}, {{"a", "", "w"}, {"b"}}, {{"b", "a"}, {"c", "d"}}}),
      chain({{{"x"}, {"\xC3\xA9"}}, {{"\xC3\xA9"}, {"b"}}}),                       // valid UTF-8: kept
      chain({{{"x"}, {"v\xFF"}}, {{"x"}, {"v\xFE"}}, {{"v\xFE", "w"}, {"out"}}}),  // replaced
      chain({}),
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
  auto m = chain({{{"x"}, {"a"}}, {{"a", "nowhere"}, {"b"}}});
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
