// Issue 16, item 8: messages that said the wrong thing. Each case failed
// before its fix (the message it replaced is named in the case).
#include <doctest/doctest.h>

#include "mx/onnx_proto.hpp"

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "fixture_model.hpp"
#include "hostile_support.hpp"

using namespace mx::hostile;

namespace {

onnx::GraphProto identity_graph(const std::string& name) {
  onnx::GraphProto g;
  g.set_name(name);
  auto* n = g.add_node();
  n->set_op_type("Identity");
  n->add_input("X");
  n->add_output("Y");
  g.add_output()->set_name("Y");
  return g;
}

// `levels` Ifs, each the then-branch of the next: every level is three
// protobuf messages deeper (graph -> node -> attribute -> graph).
onnx::ModelProto nested_ifs(int levels) {
  onnx::GraphProto g = identity_graph("g0");
  for (int i = 1; i <= levels; ++i) {
    onnx::GraphProto outer = identity_graph("g" + std::to_string(i));
    auto* n = outer.mutable_node(0);
    n->set_op_type("If");
    n->set_input(0, "C");
    auto* then_branch = n->add_attribute();
    then_branch->set_name("then_branch");
    then_branch->set_type(onnx::AttributeProto::GRAPH);
    *then_branch->mutable_g() = std::move(g);
    auto* else_branch = n->add_attribute();
    else_branch->set_name("else_branch");
    else_branch->set_type(onnx::AttributeProto::GRAPH);
    *else_branch->mutable_g() = identity_graph("e" + std::to_string(i));
    g = std::move(outer);
  }
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_version(17);
  *m.mutable_graph() = std::move(g);
  return m;
}

Result load_file(const fs::path& p) {
  mx_model* m = nullptr;
  Result r = take(mx_model_load_file(p.c_str(), &m), "load");
  mx_model_release(m);
  return r;
}

// The refusal of the plugin at `file` in mx_registry_plugins_json.
std::string refusal_of(mx_registry* r, const std::string& file) {
  char* text = nullptr;
  size_t n = 0;
  mx_status* s = mx_registry_plugins_json(r, &text, &n);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  const auto listing = nlohmann::json::parse(std::string(text, n));
  mx_free(text);
  for (const auto& plugin : listing.at("plugins"))
    if (plugin.at("status") == "refused" &&
        plugin.at("path").get<std::string>().find(file) != std::string::npos)
      return plugin.at("reason").get<std::string>();
  return "";
}

}  // namespace

TEST_CASE("8. nesting deeper than protobuf's limit is named, not 'truncated or not ONNX'") {
  Scratch s("msg_nesting");
  // 40 levels = 120 nested messages, over protobuf's limit of 100.
  write(s.models() / "deep.onnx", nested_ifs(40).SerializeAsString());
  const Result deep = load_file(s.models() / "deep.onnx");
  CHECK(deep.code == MX_ERR_UNSUPPORTED);
  CHECK_MESSAGE(contains(deep.message, "deep.onnx: messages nested more than 100 levels deep"), deep.message);
  CHECK_MESSAGE(contains(deep.message, "deeper than protobuf's limit of 100"), deep.message);
  CHECK_FALSE(contains(deep.message, "truncated"));

  // 30 levels = 90 messages: protobuf reads it, so does the SDK.
  write(s.models() / "nested.onnx", nested_ifs(30).SerializeAsString());
  CHECK(load_file(s.models() / "nested.onnx").code == MX_OK);

  // A truncated shallow file is still called truncated.
  const std::string shallow = nested_ifs(3).SerializeAsString();
  write(s.models() / "cut.onnx", shallow.substr(0, shallow.size() - 7));
  const Result cut = load_file(s.models() / "cut.onnx");
  CHECK(cut.code == MX_ERR_PARSE);
  CHECK_MESSAGE(contains(cut.message, "truncated or not ONNX"), cut.message);
}

TEST_CASE("8. a plugin file that is not a shared library: which file and why, nothing dangling") {
  // Was: "not a loadable shared library: DIR/libbroken.so: file too short): Bad file descriptor".
  Scratch s("msg_plugin");
  write(s.models() / "libbroken.so", "not an ELF file");
  const std::string opts = "{\"discover\":false,\"plugin_dirs\":[\"" + s.models().string() + "\"]}";
  mx_registry* r = nullptr;
  mx_status* st = mx_registry_create(opts.c_str(), &r);
  REQUIRE_MESSAGE(st == nullptr, mx_status_message(st));
  const std::string reason = refusal_of(r, "libbroken.so");
  mx_registry_release(r);
  CHECK(reason ==
        "not a loadable shared library: " + (s.models() / "libbroken.so").string() + ": file too short");

  // The text listing of the CLI says the same.
  const CliRun cli = run_cli({"plugins"}, s.models().string(), s.root());
  CHECK(cli.exit_code == 0);
  CHECK_MESSAGE(contains(cli.out, (s.models() / "libbroken.so").string() + ": file too short\n"), cli.out);
  CHECK_FALSE(contains(cli.out, "Bad file descriptor"));
}
