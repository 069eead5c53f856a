/* A third-party lowering plugin in C: the ONNX lowering of a user's
 * torch.library.custom_op,
 *
 *     @torch.library.custom_op("mylib::scaled_add", mutates_args=())
 *     def scaled_add(x: Tensor, y: Tensor, alpha: float) -> Tensor:
 *         return x + alpha * y
 *
 * which a torch.export program holds as `torch.ops.mylib.scaled_add.default`.
 * It becomes Mul(y, alpha) then Add(x, .), emitted through the host's table
 * (modelexport/lowering_plugin.h); the host places both nodes in the module
 * that called the op. Written against the public header only: it never
 * links libmodelexport.
 *
 * Build defines (the tests build copies that must be refused):
 *   SCALED_ADD_NAME    the plugin's name           (default "mylib")
 *   SCALED_ADD_TARGET  the op it claims to lower   (default "mylib.scaled_add.default")
 *   SCALED_ADD_ABI_MAJOR                            (default MX_LOWERING_ABI_MAJOR)
 *   SCALED_ADD_DOMAIN  the domain of the emitted nodes (default "", ONNX's) */
#include <stdint.h>
#include <string.h>

#include "modelexport/lowering_plugin.h"
#include "modelexport/modelexport.h" /* MX_ERR_* codes only: nothing is linked */

#ifndef SCALED_ADD_NAME
#define SCALED_ADD_NAME "mylib"
#endif
#ifndef SCALED_ADD_TARGET
#define SCALED_ADD_TARGET "mylib.scaled_add.default"
#endif
#ifndef SCALED_ADD_DOMAIN
#define SCALED_ADD_DOMAIN ""
#endif
#ifndef SCALED_ADD_ABI_MAJOR
#define SCALED_ADD_ABI_MAJOR MX_LOWERING_ABI_MAJOR
#endif

/* alpha as a 0-d constant of y's floating type (float32 or float64 here;
 * float16 would need a conversion this example leaves out). */
static int32_t alpha_constant(const mx_lowering_api* api, mx_lowering_context* cx, int32_t dtype,
                              double alpha, const char** name) {
  if (dtype == 1 /* FLOAT */) {
    float value = (float)alpha;
    return api->constant(cx, dtype, NULL, 0, &value, sizeof value, name);
  }
  if (dtype == 11 /* DOUBLE */) return api->constant(cx, dtype, NULL, 0, &alpha, sizeof alpha, name);
  return api->fail(cx, MX_ERR_UNSUPPORTED, "scaled_add: x and y must be float32 or float64");
}

static int32_t lower_scaled_add(const mx_lowering_api* api, mx_lowering_context* cx, void* user_data) {
  const char *x, *y, *alpha_name, *scaled, *sum;
  int32_t code, x_type, y_type;
  double alpha = 1.0; /* not in the schema's defaults, but absent would mean its default */
  (void)user_data;
  if ((code = api->tensor(cx, "x", &x)) || (code = api->tensor(cx, "y", &y))) return code;
  if ((code = api->tensor_dtype(cx, "x", &x_type)) || (code = api->tensor_dtype(cx, "y", &y_type)))
    return code;
  if (x_type != y_type) return api->fail(cx, MX_ERR_UNSUPPORTED, "scaled_add: x and y differ in dtype");
  if (api->has_arg(cx, "alpha") && (code = api->float_arg(cx, "alpha", &alpha))) return code;
  if ((code = alpha_constant(api, cx, y_type, alpha, &alpha_name))) return code;
  {
    const char* mul_in[2];
    mul_in[0] = y;
    mul_in[1] = alpha_name;
    if ((code = api->emit(cx, "Mul", SCALED_ADD_DOMAIN, mul_in, 2, NULL, 0, 1, &scaled))) return code;
  }
  {
    const char* add_in[2];
    add_in[0] = x;
    add_in[1] = scaled;
    if ((code = api->emit(cx, "Add", SCALED_ADD_DOMAIN, add_in, 2, NULL, 0, 1, &sum))) return code;
  }
  return api->bind_output(cx, 0, sum);
}

static const mx_lowering_op kOps[] = {
    {SCALED_ADD_TARGET, lower_scaled_add, NULL},
};

MX_LOWERING_ENTRY {
  static const mx_lowering_descriptor d = {SCALED_ADD_ABI_MAJOR,
                                           MX_LOWERING_ABI_MINOR,
                                           sizeof(mx_lowering_descriptor),
                                           sizeof(mx_lowering_op),
                                           SCALED_ADD_NAME,
                                           "1.0.0",
                                           "mylib::scaled_add (x + alpha * y) as ONNX Mul + Add",
                                           kOps,
                                           sizeof kOps / sizeof kOps[0]};
  return &d;
}
