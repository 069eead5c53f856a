// modelexport.h, "Status / errors": mx_status and mx_free.
#include "c_api/status.hpp"

#include <cstdlib>
#include <new>

namespace {
// Handed out when allocating a status fails; never freed.
mx_status out_of_memory_status{MX_ERR_INTERNAL, "out of memory"};
}  // namespace

namespace mx {

mx_status* make_status(mx_code code, std::string message) noexcept {
  try {
    return new mx_status{code, std::move(message)};
  } catch (...) {
    return &out_of_memory_status;
  }
}

}  // namespace mx

extern "C" {

MX_API mx_code mx_status_code(const mx_status* status) {
  return status ? status->code : MX_OK;
}

MX_API const char* mx_status_message(const mx_status* status) {
  return status ? status->message.c_str() : "";
}

MX_API void mx_status_release(mx_status* status) {
  if (status != &out_of_memory_status) delete status;
}

MX_API const char* mx_code_name(mx_code code) {
  switch (code) {
    case MX_OK:
      return "ok";
    case MX_ERR_INVALID_ARGUMENT:
      return "invalid_argument";
    case MX_ERR_IO:
      return "io";
    case MX_ERR_PARSE:
      return "parse";
    case MX_ERR_SCHEMA:
      return "schema";
    case MX_ERR_NOT_FOUND:
      return "not_found";
    case MX_ERR_UNSUPPORTED:
      return "unsupported";
    case MX_ERR_PLUGIN:
      return "plugin";
    case MX_ERR_SECURITY:
      return "security";
    case MX_ERR_INTERNAL:
      return "internal";
    case MX_ERR_CANCELLED:
      return "cancelled";
  }
  return "unknown";
}

// Buffers are malloc'd (c_api/out_buffer.hpp), so this is free().
MX_API void mx_free(void* buffer) {
  std::free(buffer);
}

}  // extern "C"
