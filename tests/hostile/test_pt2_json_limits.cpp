// The JSON of a .pt2 archive (models/model.json, the weights config) is
// outside text like a sidecar: refused beyond the same depth and string
// limits (mx/common/json_limits.hpp) before it is parsed, so no recursive
// copy or dump() of a value 100,000 levels deep can overflow the stack.
// And the texts matched by hand since std::regex, which recursed once per
// character, left the input paths: a symbolic dim's expr_str, --input specs.
#include <doctest/doctest.h>

#include "pt2_cli.hpp"

using namespace mx::hostile;

namespace {

std::string nested(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// tiny_mlp with one value of its program replaced by `raw` JSON text.
fs::path program_with(const Scratch& s, const std::string& raw, void (*mark)(nlohmann::json&)) {
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json program = a.json("models/model.json");
  mark(program);
  a.set_program_with(program, raw);
  const fs::path path = s.models() / "crafted.pt2";
  write_pt2(path, a);
  return path;
}

void in_dtype(nlohmann::json& p) {
  p["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = "@@";
}
void in_argument(nlohmann::json& p) {
  p["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"] = "@@";
}
void in_output_spec(nlohmann::json& p) {
  p["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"] = "@@";
}

}  // namespace

TEST_CASE("a program value nested 100,000 deep is refused by export and hierarchy") {
  for (auto mark : {in_dtype, in_argument, in_output_spec}) {
    Scratch s("pt2_deep_value");
    const fs::path in = program_with(s, nested(100000), mark);
    check_refused(export_pt2(s, in), s, "models/model.json: JSON nested deeper than 512 levels");
    check_refused(hierarchy_of_pt2(s, in), s, "JSON nested deeper than 512 levels");
  }
}

TEST_CASE("a weights config nested 100,000 deep is refused") {
  Scratch s("pt2_deep_config");
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json config = a.json("data/weights/model_weights_config.json");
  config["config"]["body.0.weight"]["tensor_meta"]["dtype"] = "@@";
  std::string text = config.dump();
  text.replace(text.find("\"@@\""), 4, nested(100000));
  a.at("data/weights/model_weights_config.json") = text;
  write_pt2(s.models() / "c.pt2", a);
  check_refused(export_pt2(s, s.models() / "c.pt2"), s,
                "model_weights_config.json: JSON nested deeper than 512 levels");
}

TEST_CASE("a program string over 1 MiB is refused, naming the limit") {
  Scratch s("pt2_long_string");
  const std::string big = "\"" + std::string(size_t{2} << 20, 'a') + "\"";
  const fs::path in = program_with(s, big, in_argument);
  check_refused(export_pt2(s, in), s, "strings are limited to 1048576 bytes");
}

TEST_CASE("higher-order ops nested 20,000 deep are refused, not recursed into") {
  Scratch s("pt2_deep_hop");
  std::string body;
  const std::string open =
      R"({"target":"torch.ops.higher_order.wrap_with_set_grad_enabled","inputs":[{"name":"body","arg":{"as_graph":{"name":"b","graph":{"nodes":[)";
  const std::string close = R"(]}}}}],"outputs":[]})";
  for (int k = 0; k < 20000; ++k) body += open;
  for (int k = 0; k < 20000; ++k) body += close;
  const fs::path in =
      program_with(s, body, [](nlohmann::json& p) { p["graph_module"]["graph"]["nodes"].push_back("@@"); });
  check_refused(export_pt2(s, in), s, "JSON nested deeper than 512 levels");
  check_refused(hierarchy_of_pt2(s, in), s, "JSON nested deeper than 512 levels");
}

TEST_CASE("an op without a lowering 60 bodies deep is reported with its node") {
  // Within the depth limit: the walk for missing lowerings goes through
  // every nested body and names the innermost node.
  Scratch s("pt2_nested_missing");
  std::string body;
  const std::string open =
      R"({"target":"torch.ops.higher_order.wrap_with_set_grad_enabled","name":"wrap","inputs":[{"name":"body","arg":{"as_graph":{"name":"b","graph":{"nodes":[)";
  const std::string close = R"(]}}}}],"outputs":[]})";
  for (int k = 0; k < 60; ++k) body += open;
  body += R"({"target":"torch.ops.aten.no_such_op.default","name":"innermost","inputs":[],"outputs":[]})";
  for (int k = 0; k < 60; ++k) body += close;
  const fs::path in =
      program_with(s, body, [](nlohmann::json& p) { p["graph_module"]["graph"]["nodes"].push_back("@@"); });
  const CliRun r = export_pt2(s, in);
  check_refused(r, s, "aten.no_such_op.default (node 'innermost'");
}

TEST_CASE("a 300 KB expr_str of a symbolic dim is read without recursion") {
  Scratch s("pt2_long_expr");
  std::string expr = "Symbol('s77', positive=True, integer=True";
  while (expr.size() < 300000) expr += ", assumption=True";
  expr += ")";
  const fs::path in = program_with(s, nlohmann::json(expr).dump(), [](nlohmann::json& p) {
    p["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0]["as_expr"]["expr_str"] = "@@";
  });
  const CliRun r = export_pt2(s, in);
  CHECK_MESSAGE(r.exit_code == 0, r.err.substr(0, 400));
  CHECK(fs::exists(s.out() / "m.onnx"));
  CHECK(contains(read(s.out() / "m.onnx"), "s77"));  // still read as the one symbol it names
}

TEST_CASE("a 100 KB --input spec is matched without recursion") {
  Scratch s("pt2_long_spec");
  const std::string spec = "x:float32[batch=3," + std::string(100000, ' ') + "16]";
  const CliRun r = export_pt2(s, pt2_fixture("tiny_mlp"), {"--input", spec});
  CHECK_MESSAGE(r.exit_code == 0, r.err.substr(0, 400));
  CHECK(contains(read(s.out() / "m.onnx"), "batch"));
  Scratch bad("pt2_long_bad_spec");
  const std::string wrong = "x:float32[batch=3," + std::string(100000, ' ') + "16x]";
  check_refused(export_pt2(bad, pt2_fixture("tiny_mlp"), {"--input", wrong}), bad, "is not N or name=N");
}

TEST_CASE("an --input spec over 1 MiB is refused, naming the limit") {
  // Through the C API: one command-line argument cannot be that long.
  const std::string spec = "x:float32[batch=3," + std::string(size_t{2} << 20, ' ') + "16]";
  const std::string options = nlohmann::json{{"inputs", {spec}}}.dump();
  mx_model* m = nullptr;
  const Result r = take(
      mx_registry_export(registry(), "torch_export", pt2_fixture("tiny_mlp").c_str(), options.c_str(), &m),
      "export");
  CHECK(m == nullptr);
  CHECK(r.code == MX_ERR_PARSE);
  CHECK_MESSAGE(contains(r.message, "export options: a JSON string of "), r.message.substr(0, 400));
  CHECK_MESSAGE(contains(r.message, "strings are limited to 1048576 bytes"), r.message.substr(0, 400));
}

TEST_CASE("export and tag options nested 100,000 deep are refused") {
  const std::string deep = "{\"inputs\":" + nested(100000) + "}";
  mx_model* m = nullptr;
  const Result r =
      take(mx_registry_export(registry(), "torch_export", pt2_fixture("tiny_mlp").c_str(), deep.c_str(), &m),
           "export");
  CHECK(m == nullptr);
  CHECK_MESSAGE(contains(r.message, "export options: JSON nested deeper than 512 levels"),
                r.message.substr(0, 400));
}
