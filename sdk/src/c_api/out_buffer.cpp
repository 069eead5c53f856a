#include "c_api/out_buffer.hpp"

#include "c_api/guard.hpp"
#include "mx/common/copy_out.hpp"

namespace mx {

void copy_out_text(std::string_view text, char** out, size_t* out_size) {
  require(out, "out_json");
  *out = mx::common::malloc_copy(text);
  if (out_size) *out_size = text.size();
}

}  // namespace mx
