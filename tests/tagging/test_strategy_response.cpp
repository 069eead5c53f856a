// Validation of strategy answers and the "auto" combination.
#include <doctest/doctest.h>

#include "tagging/strategy_response.hpp"
#include "util/error.hpp"

using namespace mx;
using nlohmann::json;

namespace {

json response(json assignments, json modules = json::array()) {
  return {{"schema", "modelexport.strategy-response/1"},
          {"assignments", std::move(assignments)},
          {"modules", std::move(modules)}};
}

std::string error_of(const json& r, size_t nodes = 3) {
  try {
    parse_strategy_response("s", r, nodes);
  } catch (const Error& e) {
    CHECK(e.code() == MX_ERR_PLUGIN);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a valid answer") {
  auto a = parse_strategy_response("s",
                                   response({{{"node", 1}, {"module", "enc.q"}, {"evidence", "scope"}}},
                                            {{{"path", "enc"}, {"class", "Encoder"}}}),
                                   3);
  REQUIRE(a.assignments.size() == 3);
  CHECK_FALSE(a.assignments[0].placed());
  CHECK(a.assignments[1].module == "enc.q");
  CHECK(a.classes.at("enc") == "Encoder");
}

TEST_CASE("out-of-contract answers name the plugin and the entry") {
  CHECK(error_of(response({{{"node", 3}, {"module", "a"}, {"evidence", "scope"}}})) ==
        "plugin 's' answered badly: assignments[0]: node 3 is out of range (graph has 3 nodes)");
  CHECK(error_of(response({{{"node", -1}, {"module", "a"}, {"evidence", "scope"}}})).find("out of range") !=
        std::string::npos);
  CHECK(error_of(response({{{"node", 0}, {"module", "a"}, {"evidence", "propagated"}}}))
            .find("evidence 'propagated' is not one of") != std::string::npos);
  CHECK(error_of(response({{{"node", 0}, {"module", "a..b"}, {"evidence", "scope"}}}))
            .find("invalid module path 'a..b'") != std::string::npos);
  CHECK(error_of(response({{{"node", 0}, {"module", "a"}, {"evidence", "scope"}},
                           {{"node", 0}, {"module", "b"}, {"evidence", "scope"}}}))
            .find("node 0 assigned twice") != std::string::npos);
  CHECK(error_of(json{{"assignments", json::array()}}).find("\"schema\"") != std::string::npos);
  CHECK(error_of(json::array()).find("not a JSON object") != std::string::npos);
  CHECK(error_of(response({{{"node", "0"}, {"module", "a"}, {"evidence", "scope"}}}))
            .find("\"node\" must be an integer") != std::string::npos);
}

TEST_CASE("combining answers: the first strategy that places a node wins") {
  auto first = parse_strategy_response(
      "m",
      response({{{"node", 0}, {"module", "a"}, {"evidence", "metadata"}}}, {{{"path", "a"}, {"class", "A"}}}),
      2);
  auto second = parse_strategy_response("s",
                                        response({{{"node", 0}, {"module", "x"}, {"evidence", "scope"}},
                                                  {{"node", 1}, {"module", "y"}, {"evidence", "scope"}}},
                                                 {{{"path", "a"}, {"class", "Other"}}}),
                                        2);
  auto c = combine_answers({first, second}, 2);
  CHECK(c.assignments[0].module == "a");
  CHECK(c.assignments[0].evidence == hierarchy::Evidence::metadata);
  CHECK(c.assignments[1].module == "y");
  CHECK(c.classes.at("a") == "A");
}

TEST_CASE("combining answers: later answers fill only the slots still empty, in order") {
  auto first = parse_strategy_response(
      "a", response({{{"node", 1}, {"module", "one"}, {"evidence", "metadata"}}}, json::array()), 3);
  auto second = parse_strategy_response("b",
                                        response({{{"node", 1}, {"module", "not"}, {"evidence", "scope"}},
                                                  {{"node", 2}, {"module", "two"}, {"evidence", "scope"}}},
                                                 {{{"path", "two"}, {"class", "Two"}}}),
                                        3);
  auto third = parse_strategy_response(
      "c",
      response({{{"node", 0}, {"module", "zero"}, {"evidence", "scope"}},
                {{"node", 2}, {"module", "not"}, {"evidence", "scope"}}},
               {{{"path", "two"}, {"class", "Other"}}, {{"path", "zero"}, {"class", "Zero"}}}),
      3);
  auto c = combine_answers({first, second, third}, 3);
  CHECK(c.assignments[0].module == "zero");
  CHECK(c.assignments[1].module == "one");
  CHECK(c.assignments[2].module == "two");
  CHECK(c.classes.at("two") == "Two");
  CHECK(c.classes.at("zero") == "Zero");
  CHECK(combine_answers({}, 2).assignments.size() == 2);
}
