// The zip of a .pt2: two entries of one name (torch.export.load reads the
// first, a reader keeping the last would export another program) and
// entries outside the archive's one folder are refused.
#include <doctest/doctest.h>

#include "pt2_cli.hpp"

using namespace mx::hostile;

TEST_CASE("a second models/model.json is refused, naming the entry") {
  Scratch s("pt2_dup_program");
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  std::string other = a.at("models/model.json");
  other.replace(other.find("aten.relu.default"), 17, "aten.sigmoid.default");
  a.entries.emplace_back(a.folder + "models/model.json", other);
  write_pt2(s.models() / "dup.pt2", a);
  check_refused(export_pt2(s, s.models() / "dup.pt2"), s, "entry 'tiny_mlp/models/model.json' appears twice");
  check_refused(hierarchy_of_pt2(s, s.models() / "dup.pt2"), s, "appears twice");
}

TEST_CASE("a second weight entry of one name is refused") {
  Scratch s("pt2_dup_weight");
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  a.entries.emplace_back(a.folder + "data/weights/weight_0", std::string(2048, '\0'));
  write_pt2(s.models() / "dup.pt2", a);
  check_refused(export_pt2(s, s.models() / "dup.pt2"), s,
                "entry 'tiny_mlp/data/weights/weight_0' appears twice");
}

TEST_CASE("an archive with two top-level folders is refused") {
  Scratch s("pt2_two_folders");
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  a.entries.emplace_back("other/models/model.json", a.at("models/model.json"));
  write_pt2(s.models() / "two.pt2", a);
  check_refused(export_pt2(s, s.models() / "two.pt2"), s,
                "entry 'other/models/model.json' is outside the archive's folder 'tiny_mlp/'");
  a.entries.emplace_back("other/archive_format", "pt2");
  write_pt2(s.models() / "two.pt2", a);
  check_refused(export_pt2(s, s.models() / "two.pt2"), s, "more than one archive_format entry");
}

TEST_CASE("range_constraints with min above max are refused without --input too") {
  Scratch s("pt2_range");
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json program = a.json("models/model.json");
  program["range_constraints"]["s77"] = {{"min_val", 10}, {"max_val", 4}};
  a.set_json("models/model.json", program);
  write_pt2(s.models() / "r.pt2", a);
  check_refused(export_pt2(s, s.models() / "r.pt2"), s,
                "range_constraints of s77: min_val 10 is above max_val 4");
}

TEST_CASE("a value defined twice in the program is refused") {
  Scratch s("pt2_defined_twice");
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json program = a.json("models/model.json");
  auto& nodes = program["graph_module"]["graph"]["nodes"];
  nodes[1]["outputs"][0]["as_tensor"]["name"] = nodes[0]["outputs"][0]["as_tensor"]["name"];
  a.set_json("models/model.json", program);
  write_pt2(s.models() / "d.pt2", a);
  check_refused(export_pt2(s, s.models() / "d.pt2"), s,
                "value 'linear' is defined twice (again by graph node 1, torch.ops.aten.relu.default)");
}

TEST_CASE("a value defined twice inside a nested graph is refused") {
  Scratch s("pt2_defined_twice_nested");
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json program = a.json("models/model.json");
  const nlohmann::json relu = {
      {"target", "torch.ops.aten.relu.default"},
      {"inputs", {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "inner_x"}}}}}}}},
      {"outputs", {{{"as_tensor", {{"name", "inner"}}}}}}};
  nlohmann::json body = {{"inputs", {{{"as_tensor", {{"name", "inner_x"}}}}}},
                         {"nodes", {relu, relu}},
                         {"outputs", {{{"as_tensor", {{"name", "inner"}}}}}},
                         {"tensor_values", nlohmann::json::object()}};
  program["graph_module"]["graph"]["nodes"].push_back(
      {{"target", "torch.ops.higher_order.wrap_with_set_grad_enabled"},
       {"inputs", {{{"name", "body"}, {"arg", {{"as_graph", {{"name", "b"}, {"graph", body}}}}}}}},
       {"outputs", nlohmann::json::array()}});
  a.set_json("models/model.json", program);
  write_pt2(s.models() / "n.pt2", a);
  check_refused(
      export_pt2(s, s.models() / "n.pt2"), s,
      "value 'inner' is defined twice (again by node 1 of a nested graph, torch.ops.aten.relu.default)");
}
