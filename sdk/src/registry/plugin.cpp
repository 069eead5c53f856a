#include "registry/plugin.hpp"
#include "util/json_text.hpp"

#include <boost/system/system_error.hpp>

#include "mx/common/json_limits.hpp"
#include "modelexport/lowering_plugin.h"
#include "registry/descriptor_check.hpp"
#include "registry/host_api.hpp"
#include "registry/plugin_output.hpp"
#include "registry/strategy_route.hpp"
#include "util/error.hpp"

namespace mx {
namespace {

// Boost.DLL folds dlerror() into its exception text, "… (dlerror system
// message: FILE: WHY): ERRNO TEXT"; the dlerror part is what tells a user
// which file and why (wrong ELF class, not an ELF, permission denied). The
// errno text after it is a stale errno ("Bad file descriptor"), not the
// cause: it used to be left dangling after the dlerror text.
std::string dlerror_text(const std::string& what) {
  const std::string marker = "dlerror system message: ";
  auto pos = what.find(marker);
  if (pos == std::string::npos) return what;
  std::string text = what.substr(pos + marker.size());
  const auto close = text.rfind("): ");
  if (close != std::string::npos) text.erase(close);
  else if (!text.empty() && text.back() == ')') text.pop_back();
  return text;
}

boost::dll::shared_library load_library(const std::string& path) {
  // rtld_now: unresolved symbols refuse the plugin here instead of crashing
  // at first call; rtld_local: plugins cannot clash with each other.
  auto mode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local;
  try {
    return boost::dll::shared_library(path, mode);
  } catch (const std::exception& e) {
    throw PluginRefused("not a loadable shared library: " + dlerror_text(e.what()));
  }
}

std::string text_or_empty(const char* s) {
  return s ? s : "";
}

// What escaped a plugin's function: plugin.h forbids exceptions through the
// C ABI, but a C++ plugin built with unwind tables can still throw one into
// the host; it is the plugin's failure, reported, never the host's crash.
// `function` names where it escaped.
std::string escaped_exception(const std::string& function) {
  const std::string said = "an exception escaped " + function + " through the C ABI";
  try {
    throw;
  } catch (const std::exception& e) {
    return said + " (" + mx::common::excerpt(e.what(), 400) + ")";
  } catch (...) {
    return said;
  }
}

// The descriptor a library's entry point `symbol` returns; an exception
// escaping it refuses the plugin.
template <class Descriptor>
const Descriptor* call_entry(const boost::dll::shared_library& library, const char* symbol) {
  auto entry = library.get<const Descriptor*()>(symbol);
  try {
    return entry();
  } catch (...) {
    throw PluginRefused(escaped_exception(std::string(symbol) + "()"));
  }
}

// A library with the lowering entry and no plugin entry: its descriptor's
// ABI and name are checked here so that `modelexport plugins` shows a
// broken one as refused; the frontend that opens it checks it again.
[[noreturn]] void describe_lowering_library(const boost::dll::shared_library& library,
                                            const std::string& path) {
  const auto* d = call_entry<mx_lowering_descriptor>(library, MX_LOWERING_ENTRY_SYMBOL);
  if (!d) throw PluginRefused("lowering entry point returned no descriptor (NULL)");
  const std::string abi = std::to_string(d->abi_major) + "." + std::to_string(d->abi_minor);
  if (d->abi_major != MX_LOWERING_ABI_MAJOR || d->abi_minor > MX_LOWERING_ABI_MINOR)
    throw PluginRefused("built against lowering plugin ABI " + abi + ", host supports " +
                        std::to_string(MX_LOWERING_ABI_MAJOR) + ".0 to " +
                        std::to_string(MX_LOWERING_ABI_MAJOR) + "." + std::to_string(MX_LOWERING_ABI_MINOR));
  if (!is_valid_plugin_name(d->name))
    throw PluginRefused(std::string("invalid lowering plugin name '") + (d->name ? d->name : "(null)") +
                        "': must match [a-z0-9_-]+");
  throw LoweringLibrary({{"name", d->name},
                         {"kind", "lowering"},
                         {"version", text_or_empty(d->version)},
                         {"description", text_or_empty(d->description)},
                         {"path", path},
                         {"abi", abi},
                         {"ops", d->op_count},
                         {"status", "loaded"}});
}

}  // namespace

std::unique_ptr<Plugin> Plugin::open(const std::string& path) {
  boost::dll::shared_library library = load_library(path);
  if (!library.has(MX_PLUGIN_ENTRY_SYMBOL) && library.has(MX_LOWERING_ENTRY_SYMBOL))
    describe_lowering_library(library, path);
  if (!library.has(MX_PLUGIN_ENTRY_SYMBOL))
    throw PluginRefused(std::string("no entry point '") + MX_PLUGIN_ENTRY_SYMBOL + "'");
  const auto* descriptor = call_entry<mx_plugin_descriptor>(library, MX_PLUGIN_ENTRY_SYMBOL);
  std::string reason = check_descriptor(descriptor);
  if (!reason.empty()) throw PluginRefused(reason);
  return std::unique_ptr<Plugin>(new Plugin(std::move(library), descriptor, path));
}

Plugin::Plugin(boost::dll::shared_library library, const mx_plugin_descriptor* d, std::string path)
    : library_(std::move(library)),
      descriptor_(d),
      path_(std::move(path)),
      name_(d->name),
      version_(text_or_empty(d->version)),
      description_(text_or_empty(d->description)) {}

Plugin::~Plugin() {
  if (!started_ || !descriptor_->destroy) return;
  try {
    descriptor_->destroy(state_);
  } catch (...) {  // nothing to report it to from a destructor
  }
}

void Plugin::start() {
  if (!descriptor_->create) {  // stateless plugin
    started_ = true;
    return;
  }
  PluginOutput error;
  int32_t code = 0;
  try {
    code = descriptor_->create(host_api(), &state_, error.get());
  } catch (...) {
    throw PluginRefused(escaped_exception("create()"));
  }
  if (code != 0) throw PluginRefused("create() failed: " + error.error("code " + std::to_string(code)));
  started_ = true;
}

// A plugin's own verdict about the user's input (a bad input spec, an op it
// cannot lower, a missing file) is kept, so callers can react to the kind of
// problem; anything else — internal errors, codes we do not know — is the
// plugin's failure.
static mx_code reported_code(int32_t code) {
  switch (code) {
    case MX_ERR_INVALID_ARGUMENT:
    case MX_ERR_IO:
    case MX_ERR_PARSE:
    case MX_ERR_SCHEMA:
    case MX_ERR_NOT_FOUND:
    case MX_ERR_UNSUPPORTED:
    case MX_ERR_SECURITY:
      return static_cast<mx_code>(code);
    default:
      return MX_ERR_PLUGIN;
  }
}

PluginReply Plugin::call_run(const std::string& request) const {
  PluginOutput output;
  int32_t code = 0;
  try {
    code = descriptor_->run(state_, request.c_str(), request.size(), output.get());
  } catch (...) {
    fail(MX_ERR_PLUGIN, "plugin '" + name_ + "' failed: " + escaped_exception("run()"));
  }
  if (code != 0)
    fail(reported_code(code),
         "plugin '" + name_ + "' failed: " + output.error("returned code " + std::to_string(code)));
  return PluginReply{output.json(), output.bytes()};
}

PluginReply Plugin::run(const std::string& request) const {
  if (descriptor_->flags & MX_PLUGIN_FLAG_THREAD_SAFE) return call_run(request);
  std::lock_guard<std::mutex> lock(run_mutex_);
  return call_run(request);
}

bool Plugin::reads_graph() const {
  // An older plugin's flags never meant this bit.
  return is_strategy() && descriptor_->abi_minor >= 2 &&
         (descriptor_->flags & MX_PLUGIN_FLAG_GRAPH_READER) != 0;
}

void Plugin::run_with_reader(const std::string& request, const mx_graph_reader& graph,
                             const mx_strategy_answer& answer) const {
  StrategyRouteScope route(&graph, &answer);
  run(request);  // the answers are in `answer`; a JSON text is not read
}

nlohmann::json Plugin::run_json(const nlohmann::json& request, std::string* bytes) const {
  return run_json_text(dump_text(request), bytes);
}

nlohmann::json Plugin::run_json_text(const std::string& request, std::string* bytes) const {
  PluginReply reply = run(request);
  if (bytes) *bytes = std::move(reply.bytes);
  try {
    check_json_limits(reply.json, "answer");
  } catch (const Error& e) {
    fail(MX_ERR_PLUGIN, "plugin '" + name_ + "' answered badly: " + e.what());
  }
  try {
    return nlohmann::json::parse(reply.json);
  } catch (const nlohmann::json::exception& e) {
    fail(MX_ERR_PLUGIN, "plugin '" + name_ + "' answered malformed JSON: " + e.what());
  }
}

nlohmann::json Plugin::describe() const {
  return {{"name", name_},
          {"kind", plugin_kind_name(kind())},
          {"version", version_},
          {"description", description_},
          {"path", path_},
          {"abi", std::to_string(descriptor_->abi_major) + "." + std::to_string(descriptor_->abi_minor)},
          {"thread_safe", (descriptor_->flags & MX_PLUGIN_FLAG_THREAD_SAFE) != 0},
          {"graph_reader", reads_graph()},
          {"status", "loaded"}};
}

}  // namespace mx
