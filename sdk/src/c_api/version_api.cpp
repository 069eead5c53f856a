// modelexport.h, "Version".
#include <cstdio>

#include "modelexport/modelexport.h"

namespace {
struct Version {
  uint32_t major = 0, minor = 0, patch = 0;
};

// Parsed from the build's MODELEXPORT_VERSION_STRING so the numbers and the
// string can never disagree.
Version parse_version() {
  Version v;
  unsigned a = 0, b = 0, c = 0;
  if (std::sscanf(MODELEXPORT_VERSION_STRING, "%u.%u.%u", &a, &b, &c) == 3) v = {a, b, c};
  return v;
}
}  // namespace

extern "C" {

MX_API void mx_version(uint32_t* major, uint32_t* minor, uint32_t* patch) {
  static const Version v = parse_version();
  if (major) *major = v.major;
  if (minor) *minor = v.minor;
  if (patch) *patch = v.patch;
}

MX_API const char* mx_version_string(void) {
  return MODELEXPORT_VERSION_STRING;
}

}  // extern "C"
