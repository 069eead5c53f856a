// C entry point of the model comparison (compare/compare.hpp).
#include "c_api/guard.hpp"
#include "compare/compare.hpp"
#include "c_api/out_buffer.hpp"
#include "util/json_text.hpp"

using namespace modelexport;

extern "C" {

MX_API mx_status* mx_model_compare(const mx_model* a, const mx_model* b,
                                   const char* options_json, char** out_json,
                                   size_t* out_size) {
  return guard([&] {
    require(a, "a");
    require(b, "b");
    require(out_json, "out_json");
    *out_json = nullptr;
    if (out_size) *out_size = 0;
    const auto options = compare::parse_compare_options(options_json);
    copy_out_text(dump_text(compare::compare_models(*a, *b, options)), out_json, out_size);
  });
}

}  // extern "C"
