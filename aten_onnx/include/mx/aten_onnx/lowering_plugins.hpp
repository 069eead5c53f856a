// Third-party lowering plugins (abi/include/modelexport/lowering_plugin.h),
// for every frontend: the libraries the host names in an export request
// ("lowering_plugins"), opened for that export, their descriptors checked
// and their ops registered next to the built-in lowerings. An op a plugin
// claims that a built-in lowering or another plugin already lowers is an
// error naming both. While a LoweringPluginScope is alive on a thread,
// lowering_of() finds the plugins' ops there too, and a plugin lowers its
// op through the same OpContext the built-in lowerings read.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "modelexport/lowering_plugin.h"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/op_context.hpp"

namespace mx::aten_onnx {

// One opened library (closed when the last export using it ends).
struct LoweringLibrary;

struct PluginOp {
  const mx_lowering_op* op = nullptr;
  std::shared_ptr<LoweringLibrary> library;
  std::string plugin;  // the descriptor's name
  std::string path;
};

class LoweringPlugins {
 public:
  // Opens every library of `paths` for `frontend` (the registry's name of
  // the frontend, "torch_export"); throws Error(MX_ERR_PLUGIN) for a
  // library that cannot be used and Error(MX_ERR_INVALID_ARGUMENT) for a
  // target claimed twice or one a built-in lowering of `frontend` lowers,
  // each naming the library.
  LoweringPlugins(const std::vector<std::string>& paths, const std::string& frontend);
  const PluginOp* find(const std::string& target) const;
  // "mylib (/path/libx.so)" of every plugin, or "none": for messages.
  std::string names() const;

 private:
  std::map<std::string, PluginOp> ops_;
  std::vector<std::string> names_;
};

// Makes `plugins` visible to lowering_of() on this thread until destroyed.
class LoweringPluginScope {
 public:
  explicit LoweringPluginScope(const LoweringPlugins* plugins);
  ~LoweringPluginScope();
  LoweringPluginScope(const LoweringPluginScope&) = delete;
  LoweringPluginScope& operator=(const LoweringPluginScope&) = delete;

 private:
  const LoweringPlugins* previous_;
};

// The built-in lowering of `target` for `frontend`, else the active
// plugins' one, else null.
LowerFn lowering_of(const std::string& target, const std::string& frontend);
// The lowering plugins active on this thread ("none" when there are none).
std::string active_lowering_plugins();

// Lowers cx's node through the plugin that registered cx.target()
// (lowering_plugin_api.cpp): the callback reads the node and emits through
// an mx_lowering_api over `cx`.
void lower_with_plugin(OpContext& cx, const PluginOp& op);

}  // namespace mx::aten_onnx
