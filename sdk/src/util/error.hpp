// The core's one exception type. Everything inside the SDK throws
// mx::Error with an mx_code; the C API boundary (c_api/guard.hpp)
// converts it — and anything else — into an mx_status.
#pragma once
#include <stdexcept>
#include <string>

#include "modelexport/modelexport.h"

namespace mx {

class Error : public std::runtime_error {
 public:
  Error(mx_code code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  mx_code code() const noexcept { return code_; }

 private:
  mx_code code_;
};

[[noreturn]] inline void fail(mx_code code, std::string message) {
  throw Error(code, std::move(message));
}

}  // namespace mx
