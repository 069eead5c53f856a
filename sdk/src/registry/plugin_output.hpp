// Owns the buffers a plugin put into an mx_plugin_output and frees them with
// the host's free — whatever path the call takes (success, failure, throw).
#pragma once
#include <string>

#include "modelexport/plugin.h"

namespace mx {

class PluginOutput {
 public:
  PluginOutput() = default;
  ~PluginOutput();
  PluginOutput(const PluginOutput&) = delete;
  PluginOutput& operator=(const PluginOutput&) = delete;

  mx_plugin_output* get() { return &raw_; }

  std::string json() const;
  std::string bytes() const;
  // The plugin's error text, or `fallback` when it left none.
  std::string error(const std::string& fallback) const;

 private:
  mx_plugin_output raw_{};
};

}  // namespace mx
