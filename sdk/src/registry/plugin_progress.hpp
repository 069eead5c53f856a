// Routes the progress a plugin reports through mx_host_api.progress (plugin
// ABI 1.1) to the SDK call that is running the plugin. The host table is
// one process-wide, stateless table (registry/host_api.hpp), so the route
// is per thread: a plugin reports from the thread executing its `run`,
// while that call is inside a PluginProgressScope.
#pragma once
#include <cstdint>

#include "progress/progress.hpp"

namespace mx {

class PluginProgressScope {
 public:
  explicit PluginProgressScope(Progress& progress) noexcept;
  ~PluginProgressScope();
  PluginProgressScope(const PluginProgressScope&) = delete;
  PluginProgressScope& operator=(const PluginProgressScope&) = delete;

 private:
  Progress* outer_;  // scopes nest (a plugin run inside another's call)
};

// mx_host_api.progress: 0 = go on, 1 = the caller asked to stop. A call
// from a thread with no scope (or outside any run) is ignored.
int32_t host_progress(void* host_context, const char* stage, const char* unit, uint64_t done,
                      uint64_t total) noexcept;

}  // namespace mx
