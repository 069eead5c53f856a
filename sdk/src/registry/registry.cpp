#include "registry/registry.hpp"

#include <algorithm>

#include <boost/filesystem.hpp>

#include "registry/plugin_discovery.hpp"

namespace mx {
namespace {

std::string canonical_file(const std::string& path) {
  boost::system::error_code ec;
  auto p = boost::filesystem::canonical(path, ec);
  return ec ? path : p.string();
}

}  // namespace

Registry::Registry(const RegistryOptions& options)
    : dirs_(discovery_dirs(options.discover, options.plugin_dirs)), graph_reader_(options.graph_reader) {
  for (const auto& dir : dirs_)
    for (const auto& file : plugin_files(dir)) load(file);
}

Registry::~Registry() {
  // Reverse load order, like destructors: a later plugin may have been
  // written assuming an earlier one is still there.
  while (!plugins_.empty()) plugins_.pop_back();
}

std::string Registry::load(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string reason = load_locked(path);
  if (!reason.empty()) attempts_.push_back({path, reason, nullptr, nullptr});
  return reason;
}

std::string Registry::load_locked(const std::string& path) {
  // The same file reached twice (install dir also on MODELEXPORT_PLUGIN_PATH)
  // is not a conflict: it is the same plugin.
  std::string canonical = canonical_file(path);
  if (std::find(loaded_files_.begin(), loaded_files_.end(), canonical) != loaded_files_.end()) return {};
  try {
    std::unique_ptr<Plugin> plugin = Plugin::open(path);
    std::string reason = admit_locked(std::move(plugin));
    if (reason.empty()) loaded_files_.push_back(canonical);
    return reason;
  } catch (const LoweringLibrary& found) {
    return admit_lowering_locked(path, canonical, found.description);
  } catch (const PluginRefused& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("could not be loaded: ") + e.what();
  }
}

std::string Registry::admit_locked(std::unique_ptr<Plugin> plugin) {
  for (const auto& other : plugins_)
    if (other->name() == plugin->name())
      return "a plugin named '" + plugin->name() + "' is already registered from " + other->path();
  for (const auto& a : attempts_)
    if (!a.lowering.is_null() && a.lowering.value("name", "") == plugin->name())
      return "a lowering plugin named '" + plugin->name() + "' is already registered from " + a.path;
  plugin->start();  // may throw PluginRefused
  attempts_.push_back({plugin->path(), "", plugin.get(), nullptr});
  plugins_.push_back(std::move(plugin));
  return {};
}

// Names are unique across every kind, as for plugins: a second library
// calling itself "mylib" is refused, naming the first one's file.
std::string Registry::admit_lowering_locked(const std::string& path, const std::string& canonical,
                                            const nlohmann::json& description) {
  const std::string name = description.value("name", "");
  for (const auto& other : plugins_)
    if (other->name() == name)
      return "a plugin named '" + name + "' is already registered from " + other->path();
  for (const auto& a : attempts_)
    if (!a.lowering.is_null() && a.lowering.value("name", "") == name)
      return "a lowering plugin named '" + name + "' is already registered from " + a.path;
  loaded_files_.push_back(canonical);
  attempts_.push_back({path, "", nullptr, description});
  return {};
}

nlohmann::json Registry::listing() const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& a : attempts_) {
    if (a.plugin) entries.push_back(a.plugin->describe());
    else if (!a.lowering.is_null()) entries.push_back(a.lowering);
    else entries.push_back({{"path", a.path}, {"status", "refused"}, {"reason", a.reason}});
  }
  return {{"plugin_dirs", dirs_}, {"plugins", entries}};
}

std::vector<std::string> Registry::lowering_libraries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& a : attempts_)
    if (!a.lowering.is_null()) out.push_back(a.path);
  return out;
}

const Plugin* Registry::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& p : plugins_)
    if (p->name() == name) return p.get();
  return nullptr;
}

std::vector<const Plugin*> Registry::plugins() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Plugin*> out;
  for (const auto& p : plugins_) out.push_back(p.get());
  return out;
}

std::string Registry::names_of_kind(uint32_t kind) const {
  std::string out;
  for (const Plugin* p : plugins())
    if (p->kind() == kind) out += (out.empty() ? "" : ", ") + p->name();
  return out.empty() ? "none" : out;
}

}  // namespace mx
