#include "util/warn.hpp"

#include <cstdio>
#include <cstdlib>

#include "util/utf8.hpp"

namespace mx {

void warn(const std::string& message) {
  static const int threshold = [] {
    const char* env = std::getenv("MODELEXPORT_LOG_LEVEL");
    return env && *env ? std::atoi(env) : 2;
  }();
  if (threshold > 2) return;
  std::fprintf(stderr, "modelexport: warning: %s\n", printable(message).c_str());
}

}  // namespace mx
