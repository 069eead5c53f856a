#include <doctest/doctest.h>

#include "mx/aten_onnx/module_tree.hpp"

using namespace mx::aten_onnx;

namespace {
ModuleInfo info(const std::string& path, const std::string& qual, bool executed, bool container = false) {
  ModuleInfo m;
  m.path = path;
  m.qualified_class = qual;
  m.cls = class_of(qual);
  m.executed = executed;
  m.container = container;
  return m;
}
}  // namespace

TEST_CASE("tags: one component per module, list items numbered, idle containers skipped") {
  std::vector<ModuleInfo> infos = {
      info("", "m.Bert", true), info("layers", "torch.nn.modules.container.ModuleList", false, true),
      info("layers.0", "m.Layer", true), info("layers.0.fc", "torch.nn.modules.linear.Linear", true)};
  auto t = build_module_tree(infos, false);
  CHECK(t.tags["layers.0.fc"] == "/Bert/Layer.0/Linear");
  CHECK(t.tags["layers"] == "/Bert");
  CHECK(t.modules[1]["children"] == nlohmann::json::array({"layers.0"}));
  CHECK(t.modules[0]["parent"].is_null());
  auto dropped = build_module_tree(infos, true);
  CHECK(dropped.tags["layers.0.fc"] == "/Bert/Layer.0");
}

TEST_CASE("path helpers") {
  CHECK(class_of("torch.nn.modules.linear.Linear") == "Linear");
}
