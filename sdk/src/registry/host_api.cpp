#include "registry/host_api.hpp"
#include "registry/plugin_progress.hpp"
#include "registry/strategy_route.hpp"

#include <cstdio>
#include <cstdlib>

namespace mx {
namespace {

// malloc/free, so that buffers returned by plugins and buffers the SDK hands
// to callers (mx_free) come from the same allocator.
void* host_alloc_fn(size_t size) {
  return std::malloc(size == 0 ? 1 : size);
}
void host_free_fn(void* buffer) {
  std::free(buffer);
}

// Threshold read once from MODELEXPORT_LOG_LEVEL (0 debug .. 3 error);
// warnings and errors are shown by default.
int log_threshold() {
  static const int level = [] {
    const char* env = std::getenv("MODELEXPORT_LOG_LEVEL");
    return env && *env ? std::atoi(env) : 2;
  }();
  return level;
}

void host_log_fn(void* /*context*/, int32_t level, const char* message) {
  static const char* const names[] = {"debug", "info", "warning", "error"};
  if (level < log_threshold() || !message) return;
  const char* name = (level >= 0 && level <= 3) ? names[level] : "log";
  std::fprintf(stderr, "modelexport plugin %s: %s\n", name, message);
}

const mx_host_api table = {
    sizeof(mx_host_api), MX_PLUGIN_ABI_MAJOR, MX_PLUGIN_ABI_MINOR, MODELEXPORT_VERSION_STRING,
    host_alloc_fn,       host_free_fn,        host_log_fn,         nullptr,
    host_progress,       host_graph,          host_answer};

}  // namespace

const mx_host_api* host_api() noexcept {
  return &table;
}

void host_free(void* buffer) noexcept {
  host_free_fn(buffer);
}

}  // namespace mx
