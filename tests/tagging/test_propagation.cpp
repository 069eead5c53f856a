// The propagation rule (docs/tagging.md) case by case.
#include <doctest/doctest.h>

#include "tagging/propagation.hpp"

using namespace modelexport;

namespace {

// Builds a graph from "name: in1,in2 -> out" style triples.
struct G {
  GraphView view;
  G& node(const std::string& name, std::vector<std::string> in, std::vector<std::string> out) {
    view.nodes.push_back({name, "Op", std::move(in), std::move(out)});
    return *this;
  }
};

Assignment A(const std::string& m, const std::string& e = "scope") { return {m, e}; }

void check(const Assignment& got, const std::string& module, const std::string& evidence) {
  CHECK(got.module == module);
  CHECK(got.evidence == evidence);
}

}  // namespace

TEST_CASE("strategy assignments are kept as they are") {
  G g;
  g.node("a", {}, {"t"}).node("b", {"t"}, {"u"});
  auto r = propagate(g.view, {A("x.y"), A("z", "parameter")});
  check(r[0], "x.y", "scope");
  check(r[1], "z", "parameter");
}

TEST_CASE("a constant takes the common module of its consumers") {
  G g;  // c feeds q (enc.self.query) and k (enc.self.key)
  g.node("c", {}, {"c"}).node("q", {"c"}, {"q"}).node("k", {"c"}, {"k"});
  auto r = propagate(g.view, {std::nullopt, A("enc.self.query"), A("enc.self.key")});
  check(r[0], "enc.self", "propagated");
}

TEST_CASE("ancestor-or-self: a consumer's own module counts as common") {
  G g;
  g.node("c", {}, {"c"}).node("a", {"c"}, {"a"}).node("b", {"c"}, {"b"});
  auto r = propagate(g.view, {std::nullopt, A("enc"), A("enc.layer.0")});
  check(r[0], "enc", "propagated");
}

TEST_CASE("chains of constants and shape ops resolve through unplaced consumers") {
  G g;  // Constant -> Cast -> Unsqueeze -> MatMul(enc.q); listed out of order on purpose
  g.node("mm", {"u"}, {"y"}).node("unsq", {"cast"}, {"u"}).node("cast", {"k"}, {"cast"})
      .node("const", {}, {"k"});
  auto r = propagate(g.view, {A("enc.q"), std::nullopt, std::nullopt, std::nullopt});
  check(r[1], "enc.q", "propagated");
  check(r[2], "enc.q", "propagated");
  check(r[3], "enc.q", "propagated");
}

TEST_CASE("consumers win over producers") {
  G g;
  g.node("p", {}, {"p"}).node("n", {"p"}, {"n"}).node("c", {"n"}, {"c"});
  auto r = propagate(g.view, {A("producer"), std::nullopt, A("consumer")});
  check(r[1], "consumer", "propagated");
}

TEST_CASE("without placed consumers, producers decide") {
  G g;  // a graph-output Add fed by two modules
  g.node("q", {}, {"q"}).node("k", {}, {"k"}).node("add", {"q", "k"}, {"y"});
  auto r = propagate(g.view, {A("enc.self.query"), A("enc.self.key"), std::nullopt});
  check(r[2], "enc.self", "propagated");
}

TEST_CASE("producer chains resolve forward") {
  G g;
  g.node("q", {}, {"q"}).node("r1", {"q"}, {"r1"}).node("r2", {"r1"}, {"r2"});
  auto r = propagate(g.view, {A("head"), std::nullopt, std::nullopt});
  check(r[1], "head", "propagated");
  check(r[2], "head", "propagated");
}

TEST_CASE("isolated nodes go to the root") {
  G g;
  g.node("lonely", {}, {"out"}).node("q", {"x"}, {"q"});
  auto r = propagate(g.view, {std::nullopt, A("enc")});
  check(r[0], "", "root");
}

TEST_CASE("disjoint consumers meet at the root, still 'propagated'") {
  G g;
  g.node("c", {}, {"c"}).node("a", {"c"}, {"a"}).node("b", {"c"}, {"b"});
  auto r = propagate(g.view, {std::nullopt, A("encoder"), A("decoder")});
  check(r[0], "", "propagated");
}

TEST_CASE("nothing placed: everything is root") {
  G g;
  g.node("a", {}, {"a"}).node("b", {"a"}, {"b"});
  auto r = propagate(g.view, {std::nullopt, std::nullopt});
  check(r[0], "", "root");
  check(r[1], "", "root");
}

TEST_CASE("topological order is deterministic and respects edges") {
  G g;
  g.node("mm", {"u"}, {"y"}).node("unsq", {"cast"}, {"u"}).node("cast", {"k"}, {"cast"})
      .node("const", {}, {"k"});
  CHECK(topological_order(g.view) == std::vector<size_t>{3, 2, 1, 0});
}
