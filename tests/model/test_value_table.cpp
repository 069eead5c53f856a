// model::ValueTable, the value names interned once per tag: writers,
// declarations, omitted values, two writers; each slot's name, whether all
// are ASCII, the nodes holding subgraphs.
#include <doctest/doctest.h>

#include <string_view>
#include <vector>

#include "fixture_model.hpp"
#include "model/value_table.hpp"

using namespace mx;
using mx::testing::chain_net;

TEST_CASE("value table: writers, declarations, omitted values, two writers") {
  auto m = chain_net({{{"x", "w"}, {"a"}}, {{"a", ""}, {"b", ""}}, {{"b", "undefined"}, {"c"}}});
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

  CHECK(model::intern_values(chain_net({{{"x"}, {"a"}}, {{"x"}, {"a"}}}).graph()).two_writers);
  CHECK(model::intern_values(chain_net({{{"x"}, {"w"}}}).graph()).two_writers);
  auto twice_declared = chain_net({{{"x"}, {"a"}}});
  twice_declared.mutable_graph()->add_initializer()->set_name("x");  // an input with its default
  CHECK_FALSE(model::intern_values(twice_declared.graph()).two_writers);
}

TEST_CASE("value table: each slot's name, whether all are ASCII, the nodes holding subgraphs") {
  auto m = chain_net({{{"x", "w"}, {"a"}}, {{"a", ""}, {"b", ""}}, {{"b"}, {"c"}}});
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
    auto in_node = chain_net({{{"x"}, {name}}});
    CHECK_FALSE(model::intern_values(in_node.graph()).ascii);
    auto in_initializer = chain_net({{{"x"}, {"a"}}});
    in_initializer.mutable_graph()->add_initializer()->set_name(name);
    CHECK_FALSE(model::intern_values(in_initializer.graph()).ascii);
  }
}
