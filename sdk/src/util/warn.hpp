// Warnings of the core: something the user did not ask for by name could
// not be used and was skipped (a broken strategy under "auto", a stale
// sidecar). Printed to stderr as "modelexport: warning: ...", unless
// MODELEXPORT_LOG_LEVEL is above 2 (the plugins' log threshold).
#pragma once
#include <string>

namespace mx {

void warn(const std::string& message);

}  // namespace mx
