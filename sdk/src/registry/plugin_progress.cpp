#include "registry/plugin_progress.hpp"

namespace mx {
namespace {

thread_local Progress* current = nullptr;

}  // namespace

PluginProgressScope::PluginProgressScope(Progress& progress) noexcept : outer_(current) {
  current = &progress;
}

PluginProgressScope::~PluginProgressScope() {
  current = outer_;
}

int32_t host_progress(void* /*host_context*/, const char* stage, const char* unit, uint64_t done,
                      uint64_t total) noexcept {
  if (!current) return 0;
  return current->report_nothrow(stage ? stage : "", unit ? unit : "", done, total) ? 0 : 1;
}

}  // namespace mx
