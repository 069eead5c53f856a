// The value names interned once per tag (model::ValueTable) and the values
// propagation reads from it (graph_edges values_of): the same as interning
// the graph view's names, also when the view had to replace a name.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/value_table.hpp"
#include "tagging/graph_edges.hpp"
#include "tagging/graph_topology.hpp"

using namespace modelexport;

namespace {

onnx::ModelProto chain(const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>& nodes) {
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
