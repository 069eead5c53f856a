// For the end-to-end tests through the C API: a call that fails ends the
// test case with the SDK's message.
#pragma once
#include <string>

#include <doctest/doctest.h>

#include "modelexport/modelexport.h"

inline void ok(mx_status* status) {
  std::string message = status ? mx_status_message(status) : "";
  mx_code code = mx_status_code(status);
  mx_status_release(status);
  REQUIRE_MESSAGE(code == MX_OK, message);
}
