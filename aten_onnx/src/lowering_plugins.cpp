#include "mx/aten_onnx/lowering_plugins.hpp"

#include <dlfcn.h>

#include <cstddef>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"

namespace mx::aten_onnx {

struct LoweringLibrary {
  void* handle = nullptr;
  ~LoweringLibrary() {
    if (handle) dlclose(handle);
  }
};

namespace {

thread_local const LoweringPlugins* active = nullptr;

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw Error(MX_ERR_PLUGIN, "lowering plugin '" + path + "': " + why);
}

bool valid_name(const char* name) {
  if (!name || !*name) return false;
  for (const char* p = name; *p; ++p)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')) return false;
  return true;
}

// The descriptor is checked field by field in the order the header
// promises: ABI first, then sizes, then the rest.
const mx_lowering_descriptor* checked_descriptor(void* handle, const std::string& path) {
  auto entry = reinterpret_cast<mx_lowering_entry_fn>(dlsym(handle, MX_LOWERING_ENTRY_SYMBOL));
  if (!entry) refuse(path, std::string("no entry point '") + MX_LOWERING_ENTRY_SYMBOL + "'");
  const mx_lowering_descriptor* d = entry();
  if (!d) refuse(path, "the entry point returned no descriptor (NULL)");
  if (d->abi_major != MX_LOWERING_ABI_MAJOR || d->abi_minor > MX_LOWERING_ABI_MINOR)
    refuse(path, "built against lowering plugin ABI " + std::to_string(d->abi_major) + "." +
                     std::to_string(d->abi_minor) + ", this frontend supports " +
                     std::to_string(MX_LOWERING_ABI_MAJOR) + ".0 to " +
                     std::to_string(MX_LOWERING_ABI_MAJOR) + "." + std::to_string(MX_LOWERING_ABI_MINOR));
  if (d->struct_size < offsetof(mx_lowering_descriptor, op_count) + sizeof(size_t))
    refuse(path, "descriptor struct_size " + std::to_string(d->struct_size) +
                     " is smaller than the ABI 1.0 layout");
  if (d->op_size < offsetof(mx_lowering_op, user_data) + sizeof(void*))
    refuse(path, "op_size " + std::to_string(d->op_size) + " is smaller than the ABI 1.0 mx_lowering_op");
  if (!valid_name(d->name)) refuse(path, "invalid name: it must match [a-z0-9_-]+");
  if (d->op_count && !d->ops) refuse(path, "op_count is " + std::to_string(d->op_count) + " but ops is NULL");
  return d;
}

// The registration of a built-in lowering of `target`, for the collision
// message ("aten.add.Tensor" may be registered as "aten.add").
std::string builtin_file(const std::string& target) {
  const auto& r = lowering_registry();
  if (auto it = r.find(target); it != r.end()) return it->second.file;
  if (auto dot = target.rfind('.'); dot != std::string::npos)
    if (auto it = r.find(target.substr(0, dot)); it != r.end()) return it->second.file;
  return "?";
}

void lower_through_active_plugin(OpContext& cx) {
  const PluginOp* op = active ? active->find(cx.target()) : nullptr;
  if (!op) cx.unsupported("no lowering plugin lowers it any more");
  lower_with_plugin(cx, *op);
}

}  // namespace

LoweringPlugins::LoweringPlugins(const std::vector<std::string>& paths, const std::string& frontend) {
  for (const auto& path : paths) {
    auto library = std::make_shared<LoweringLibrary>();
    // RTLD_LOCAL: two plugins cannot clash through their symbols; RTLD_NOW:
    // a missing symbol refuses the library here, not at its first call.
    library->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library->handle) refuse(path, std::string("not a loadable shared library: ") + dlerror());
    const mx_lowering_descriptor* d = checked_descriptor(library->handle, path);
    const std::string name = d->name;
    for (size_t k = 0; k < d->op_count; ++k) {
      const auto* op =
          reinterpret_cast<const mx_lowering_op*>(reinterpret_cast<const char*>(d->ops) + k * d->op_size);
      if (!op->target || !*op->target || !op->lower)
        refuse(path, "op " + std::to_string(k) + " has no target or no function");
      const std::string target = op->target;
      if (find_lowering(target, frontend))
        throw Error(MX_ERR_INVALID_ARGUMENT, "lowering plugin '" + name + "' (" + path + ") lowers " +
                                                 target + ", which the built-in lowering of " +
                                                 builtin_file(target) +
                                                 " lowers already: one op, one lowering");
      if (auto it = ops_.find(target); it != ops_.end())
        throw Error(MX_ERR_INVALID_ARGUMENT, "lowering plugins '" + it->second.plugin + "' (" +
                                                 it->second.path + ") and '" + name + "' (" + path +
                                                 ") both lower " + target + ": one op, one lowering");
      ops_[target] = PluginOp{op, library, name, path};
    }
    names_.push_back(name + " (" + path + ")");
  }
}

const PluginOp* LoweringPlugins::find(const std::string& target) const {
  auto it = ops_.find(target);
  return it == ops_.end() ? nullptr : &it->second;
}

std::string LoweringPlugins::names() const {
  std::string out;
  for (const auto& n : names_) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

LoweringPluginScope::LoweringPluginScope(const LoweringPlugins* plugins) : previous_(active) {
  active = plugins;
}
LoweringPluginScope::~LoweringPluginScope() {
  active = previous_;
}

LowerFn lowering_of(const std::string& target, const std::string& frontend) {
  if (LowerFn fn = find_lowering(target, frontend)) return fn;
  if (active && active->find(target)) return lower_through_active_plugin;
  return nullptr;
}

std::string active_lowering_plugins() {
  return active ? active->names() : "none";
}

}  // namespace mx::aten_onnx
