// Hands text across the C ABI: every buffer the SDK returns is allocated
// with malloc() (mx::common::malloc_copy; saved model bytes are written
// into theirs by model::save_model_bytes) so that mx_free() (= free)
// releases it, whichever C++ runtime the caller uses.
#pragma once
#include <cstddef>
#include <string_view>

namespace mx {

// Copies `text` into a NUL-terminated malloc'd buffer; throws on OOM and
// MX_ERR_INVALID_ARGUMENT when `out` is NULL.
void copy_out_text(std::string_view text, char** out, size_t* out_size);

}  // namespace mx
