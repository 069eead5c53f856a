// Runs a C API body and converts every exception into an mx_status, so no
// C++ exception ever crosses the boundary. Usage:
//   return mx::guard([&] { ...; });
#pragma once
#include <exception>
#include <new>

#include "c_api/status.hpp"
#include "util/error.hpp"

namespace mx {

template <typename Body>
mx_status* guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return make_status(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return make_status(MX_ERR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return make_status(MX_ERR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return make_status(MX_ERR_INTERNAL, "internal error: unknown exception");
  }
}

// Throws MX_ERR_INVALID_ARGUMENT when a required pointer is NULL.
inline void require(const void* p, const char* what) {
  if (!p) fail(MX_ERR_INVALID_ARGUMENT, std::string(what) + " must not be NULL");
}

}  // namespace mx
