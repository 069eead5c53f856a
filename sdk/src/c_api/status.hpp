// mx_status: the error object every fallible C call returns (NULL = ok).
#pragma once
#include <string>

#include "modelexport/modelexport.h"

struct mx_status {
  mx_code code;
  std::string message;
};

namespace mx {
// Allocates a status; never throws (returns a static out-of-memory status).
mx_status* make_status(mx_code code, std::string message) noexcept;
}  // namespace mx
