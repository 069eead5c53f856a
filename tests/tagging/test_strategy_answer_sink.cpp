// The sink a graph-reading strategy answers into (plugin ABI 1.2): every
// placement is checked as a JSON answer's would be, including the ones
// that repeat the previous placement's module (checked once, then shared).
#include <doctest/doctest.h>

#include "modelexport/modelexport.h"
#include "tagging/strategy_answer_sink.hpp"

using mx::StrategyAnswerSink;
using mx::hierarchy::Evidence;

namespace {

int32_t place(StrategyAnswerSink& sink, uint64_t node, const std::string& module, const char* evidence) {
  return sink.table().assign(sink.table().answer, node, module.data(), module.size(), evidence);
}

}  // namespace

TEST_CASE("answer sink: repeated modules are accepted, and each placement is still checked") {
  StrategyAnswerSink sink(6);
  CHECK(place(sink, 0, "encoder.layer.0", "scope") == MX_OK);
  CHECK(place(sink, 1, "encoder.layer.0", "scope") == MX_OK);
  // The same module with evidence a strategy may not claim.
  CHECK(place(sink, 2, "encoder.layer.0", "propagated") == MX_ERR_PLUGIN);
  CHECK(sink.refusal().find("node 2: evidence 'propagated'") == 0);
  auto answer = sink.take();
  REQUIRE(answer.assignments[1].placed());
  CHECK(answer.assignments[1].module == "encoder.layer.0");
  CHECK(answer.assignments[1].evidence == Evidence::scope);
  CHECK_FALSE(answer.assignments[2].placed());
}

TEST_CASE("answer sink: each placement keeps the kind its evidence names") {
  // The module repeats while the evidence changes (the check is shared only
  // when both repeat).
  StrategyAnswerSink sink(4);
  CHECK(place(sink, 0, "encoder", "scope") == MX_OK);
  CHECK(place(sink, 1, "encoder", "parameter") == MX_OK);
  CHECK(place(sink, 2, "encoder", "direct") == MX_OK);
  CHECK(place(sink, 3, "encoder", "metadata") == MX_OK);
  const auto answer = sink.take();
  CHECK(answer.assignments[0].evidence == Evidence::scope);
  CHECK(answer.assignments[1].evidence == Evidence::parameter);
  CHECK(answer.assignments[2].evidence == Evidence::direct);
  CHECK(answer.assignments[3].evidence == Evidence::metadata);
}

TEST_CASE("answer sink: an unknown evidence name is refused with the JSON answer's message") {
  StrategyAnswerSink sink(2);
  CHECK(place(sink, 0, "encoder", "scope") == MX_OK);
  CHECK(place(sink, 1, "encoder", "guess") == MX_ERR_PLUGIN);
  CHECK(sink.refusal() == "node 1: evidence 'guess' is not one of direct, scope, metadata, parameter");
  CHECK_FALSE(sink.take().assignments[1].placed());
}

TEST_CASE("answer sink: the path is checked before the evidence, as in a JSON answer") {
  // The path and the evidence are each checked when they change; a bad
  // path is named even when the evidence is bad too.
  StrategyAnswerSink sink(3);
  CHECK(place(sink, 0, "a..b", "guess") == MX_ERR_PLUGIN);
  CHECK(sink.refusal() == "node 0: invalid module path 'a..b'");
  StrategyAnswerSink after(3);
  CHECK(place(after, 0, "encoder", "scope") == MX_OK);
  CHECK(place(after, 1, "a..b", "guess") == MX_ERR_PLUGIN);
  CHECK(after.refusal() == "node 1: invalid module path 'a..b'");
}

TEST_CASE("answer sink: the first placement is checked even when it is empty") {
  StrategyAnswerSink sink(2);
  // "" with no evidence: the state before any placement must not pass it.
  CHECK(place(sink, 0, "", nullptr) == MX_ERR_PLUGIN);
  CHECK_FALSE(sink.refusal().empty());
}

TEST_CASE("answer sink: a node placed twice is refused even with the same module") {
  StrategyAnswerSink sink(2);
  CHECK(place(sink, 0, "a", "scope") == MX_OK);
  CHECK(place(sink, 0, "a", "scope") == MX_ERR_PLUGIN);
  CHECK(place(sink, 5, "a", "scope") == MX_ERR_PLUGIN);  // out of range
  CHECK_FALSE(sink.refusal().empty());
}

TEST_CASE("answer sink: a bad path after an accepted one is refused") {
  StrategyAnswerSink sink(3);
  CHECK(place(sink, 0, "a.b", "scope") == MX_OK);
  CHECK(place(sink, 1, "a..b", "scope") == MX_ERR_PLUGIN);
  CHECK(sink.refusal().find("node 1: ") == 0);
}
