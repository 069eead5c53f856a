// Where plugins are looked for: the install's plugin directory (found
// relative to libmodelexport itself, so installs are relocatable), then each
// directory of MODELEXPORT_PLUGIN_PATH, then any extra directories.
#pragma once
#include <string>
#include <vector>

namespace mx {

// <dir of this library>/<up to prefix>/<MODELEXPORT_PLUGIN_SUBDIR>.
std::string install_plugin_dir();

// Non-empty entries of a ':'-separated list, in order.
std::vector<std::string> split_path_list(const std::string& list);

// The discovery order: install dir, MODELEXPORT_PLUGIN_PATH, `extra`;
// duplicates (after canonicalisation) are dropped keeping the first.
std::vector<std::string> discovery_dirs(bool discover, const std::vector<std::string>& extra);

// Regular files ending in ".so" in `dir`, sorted so that loading order (and
// so which of two same-named plugins wins) is deterministic. A missing
// directory yields nothing.
std::vector<std::string> plugin_files(const std::string& dir);

}  // namespace mx
