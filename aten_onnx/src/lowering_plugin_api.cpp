// The host side of modelexport/lowering_plugin.h: an mx_lowering_api whose
// functions read the node through the frontend's OpContext (arguments by
// schema name, tensors with dtype and symbolic shape) and emit through it,
// so the nodes a plugin emits carry the node's module record like any
// lowering's, whichever frontend read the program. Every function catches
// what the context throws and answers a code plus a message kept in the
// context: nothing crosses the C ABI as an exception.
#include <deque>
#include <limits>
#include <set>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/lowering_plugins.hpp"

// The opaque context of one callback (global namespace: the header's type).
struct mx_lowering_context {
  mx::aten_onnx::OpContext* cx = nullptr;
  std::string message;           // the last failure's reason
  std::deque<std::string> lent;  // texts lent until the callback returns
  std::deque<std::vector<int64_t>> lent_ints;
  std::deque<std::vector<const char*>> lent_names;
  std::set<std::string> names;  // value names handed to the plugin
  std::set<size_t> bound;       // outputs bound
};

namespace mx::aten_onnx {
namespace {

const char* lend(mx_lowering_context* c, std::string text) {
  return c->lent.emplace_back(std::move(text)).c_str();
}

int32_t failed(mx_lowering_context* c, int32_t code, const std::string& message) {
  c->message = message;
  return code;
}

// Runs `body` (which returns 0 or a code); LowerCtx's errors become codes.
template <typename Body>
int32_t guarded(mx_lowering_context* c, const char* name, Body body) {
  if (!c) return MX_ERR_INVALID_ARGUMENT;
  if (name == nullptr) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL argument name");
  try {
    return body();
  } catch (const Error& e) {
    return failed(c, e.code, e.what());
  } catch (const std::exception& e) {
    return failed(c, MX_ERR_INVALID_ARGUMENT, std::string("argument '") + name + "': " + e.what());
  }
}

const char* node_target(mx_lowering_context* c) {
  return c ? c->cx->target().c_str() : "";
}
const char* node_name_of(mx_lowering_context* c) {
  return c ? lend(c, c->cx->node_name()) : "";
}
const char* node_module(mx_lowering_context* c) {
  return c ? lend(c, c->cx->module_path()) : "";
}
int64_t export_opset(mx_lowering_context* c) {
  return c ? c->cx->opset : 0;
}

int32_t has_arg(mx_lowering_context* c, const char* name) {
  return c && name && c->cx->has(name) ? 1 : 0;
}

int32_t absent(mx_lowering_context* c, const char* name) {
  return failed(c, MX_ERR_NOT_FOUND,
                std::string("argument '") + name + "' is absent (None, or its schema default)");
}

int32_t tensor(mx_lowering_context* c, const char* name, const char** onnx_name) {
  return guarded(c, name, [&] {
    if (!onnx_name) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL onnx_name");
    if (!c->cx->has(name)) return absent(c, name);
    const std::string& v = c->cx->value_of(name).onnx;
    c->names.insert(v);
    *onnx_name = lend(c, v);
    return 0;
  });
}

int32_t tensor_dtype(mx_lowering_context* c, const char* name, int32_t* dtype) {
  return guarded(c, name, [&] {
    if (!dtype) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL dtype");
    if (!c->cx->has(name)) return absent(c, name);
    *dtype = c->cx->value_of(name).dtype;
    return 0;
  });
}

int32_t tensor_rank(mx_lowering_context* c, const char* name, int64_t* rank) {
  return guarded(c, name, [&] {
    if (!rank) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL rank");
    if (!c->cx->has(name)) return absent(c, name);
    *rank = static_cast<int64_t>(c->cx->value_of(name).shape.size());
    return 0;
  });
}

int32_t tensor_dim(mx_lowering_context* c, const char* name, int64_t axis, int64_t* size,
                   const char** symbol) {
  return guarded(c, name, [&] {
    if (!size || !symbol) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL size or symbol");
    if (!c->cx->has(name)) return absent(c, name);
    const auto& shape = c->cx->value_of(name).shape;
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
      return failed(c, MX_ERR_NOT_FOUND,
                    std::string("argument '") + name + "' has rank " + std::to_string(shape.size()) +
                        ", no dim " + std::to_string(axis));
    const Dim& d = shape[static_cast<size_t>(axis)];
    *size = d.is_static ? d.value : -1;
    *symbol = d.is_static ? nullptr : lend(c, d.symbol.empty() ? d.expr : d.symbol);
    return 0;
  });
}

template <typename T, typename Read>
int32_t scalar_arg(mx_lowering_context* c, const char* name, T* value, Read read) {
  return guarded(c, name, [&] {
    if (!value) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL value");
    if (!c->cx->has(name)) return absent(c, name);
    *value = read();
    return 0;
  });
}

int32_t int_arg(mx_lowering_context* c, const char* name, int64_t* value) {
  return scalar_arg(c, name, value, [&] { return c->cx->int_arg(name); });
}
int32_t float_arg(mx_lowering_context* c, const char* name, double* value) {
  return scalar_arg(c, name, value, [&] { return c->cx->float_arg(name); });
}
int32_t bool_arg(mx_lowering_context* c, const char* name, int32_t* value) {
  return scalar_arg(c, name, value, [&] { return c->cx->bool_arg(name) ? 1 : 0; });
}

int32_t int_list_arg(mx_lowering_context* c, const char* name, const int64_t** values, size_t* count) {
  return guarded(c, name, [&] {
    if (!values || !count) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL values or count");
    if (!c->cx->has(name)) return absent(c, name);
    const auto& list = c->lent_ints.emplace_back(c->cx->ints(name));
    *values = list.data();
    *count = list.size();
    return 0;
  });
}

onnx::AttributeProto onnx_attribute(const mx_lowering_attribute& a) {
  if (!a.name || !*a.name) throw Error(MX_ERR_INVALID_ARGUMENT, "an attribute without a name");
  const std::string name = a.name;
  const bool list = a.type == MX_LOWERING_ATTR_INTS || a.type == MX_LOWERING_ATTR_FLOATS;
  if (list && a.count &&
      !(a.type == MX_LOWERING_ATTR_INTS ? static_cast<const void*>(a.ints)
                                        : static_cast<const void*>(a.floats)))
    throw Error(MX_ERR_INVALID_ARGUMENT,
                "attribute '" + name + "': count " + std::to_string(a.count) + " but no values");
  switch (a.type) {
    case MX_LOWERING_ATTR_INT:
      return attr(name, a.i);
    case MX_LOWERING_ATTR_FLOAT:
      return attr(name, static_cast<float>(a.f));
    case MX_LOWERING_ATTR_STRING:
      if (!a.s) throw Error(MX_ERR_INVALID_ARGUMENT, "attribute '" + name + "': a NULL string");
      return attr(name, std::string(a.s));
    case MX_LOWERING_ATTR_INTS:
      return attr(name, std::vector<int64_t>(a.ints, a.ints + a.count));
    case MX_LOWERING_ATTR_FLOATS: {
      std::vector<float> values;
      for (size_t k = 0; k < a.count; ++k) values.push_back(static_cast<float>(a.floats[k]));
      return attr(name, values);
    }
  }
  throw Error(MX_ERR_INVALID_ARGUMENT, "attribute '" + name + "': unknown type " + std::to_string(a.type));
}

int32_t emit(mx_lowering_context* c, const char* op_type, const char* domain, const char* const* inputs,
             size_t input_count, const mx_lowering_attribute* attributes, size_t attribute_count,
             size_t output_count, const char** outputs) {
  return guarded(c, "emit", [&] {
    if (!op_type || !*op_type) return failed(c, MX_ERR_INVALID_ARGUMENT, "emit: no op_type");
    if ((input_count && !inputs) || (attribute_count && !attributes) || !output_count || !outputs)
      return failed(c, MX_ERR_INVALID_ARGUMENT, std::string("emit ") + op_type + ": NULL array or no output");
    if (domain && *domain && std::string(domain) != "ai.onnx")
      return failed(c, MX_ERR_UNSUPPORTED,
                    std::string("emit ") + op_type + ": domain '" + domain +
                        "' (this host emits the default ONNX domain only)");
    std::vector<std::string> ins;
    for (size_t k = 0; k < input_count; ++k) {
      const std::string in = inputs[k] ? inputs[k] : "";
      if (!in.empty() && !c->names.count(in))
        return failed(c, MX_ERR_INVALID_ARGUMENT,
                      std::string("emit ") + op_type + ": input " + std::to_string(k) + " '" + in +
                          "' is no value the host handed out for this node");
      ins.push_back(in);
    }
    std::vector<onnx::AttributeProto> attrs;
    for (size_t k = 0; k < attribute_count; ++k) attrs.push_back(onnx_attribute(attributes[k]));
    const auto outs = c->cx->emit(op_type, ins, attrs, output_count);
    for (size_t k = 0; k < outs.size() && k < output_count; ++k) {
      c->names.insert(outs[k]);
      outputs[k] = lend(c, outs[k]);
    }
    return 0;
  });
}

int32_t constant(mx_lowering_context* c, int32_t dtype, const int64_t* dims, size_t rank, const void* data,
                 size_t size, const char** onnx_name) {
  return guarded(c, "constant", [&] {
    if (!onnx_name || (rank && !dims) || (size && !data))
      return failed(c, MX_ERR_INVALID_ARGUMENT, "constant: NULL dims, data or onnx_name");
    const size_t element = element_size(dtype);
    if (!element)
      return failed(c, MX_ERR_UNSUPPORTED,
                    "constant: ONNX type " + std::to_string(dtype) + " is not a fixed-size type");
    size_t numel = 1;
    onnx::TensorProto t;
    t.set_data_type(dtype);
    for (size_t k = 0; k < rank; ++k) {
      if (dims[k] < 0 ||
          (dims[k] && numel > std::numeric_limits<size_t>::max() / static_cast<size_t>(dims[k])))
        return failed(c, MX_ERR_INVALID_ARGUMENT,
                      "constant: dim " + std::to_string(k) + " is " + std::to_string(dims[k]));
      numel *= static_cast<size_t>(dims[k]);
      t.add_dims(dims[k]);
    }
    if (numel > std::numeric_limits<size_t>::max() / element || numel * element != size)
      return failed(c, MX_ERR_INVALID_ARGUMENT,
                    "constant: " + std::to_string(size) + " bytes for " + std::to_string(numel) +
                        " elements of " + std::to_string(element) + " bytes");
    t.set_raw_data(std::string(static_cast<const char*>(data), size));
    const std::string name = c->cx->constant(t);
    c->names.insert(name);
    *onnx_name = lend(c, name);
    return 0;
  });
}

int32_t output_count(mx_lowering_context* c, size_t* count) {
  return guarded(c, "output_count", [&] {
    if (!count) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL count");
    *count = c->cx->n_outputs();
    return 0;
  });
}

int32_t output_index(mx_lowering_context* c, size_t k) {
  return k < c->cx->n_outputs() ? 0
                                : failed(c, MX_ERR_NOT_FOUND,
                                         "the node has " + std::to_string(c->cx->n_outputs()) +
                                             " output(s), no output " + std::to_string(k));
}

int32_t output_dtype(mx_lowering_context* c, size_t k, int32_t* dtype) {
  return guarded(c, "output_dtype", [&] {
    if (!dtype) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL dtype");
    if (int32_t code = output_index(c, k)) return code;
    *dtype = c->cx->out_dtype(k);
    return 0;
  });
}

int32_t output_rank(mx_lowering_context* c, size_t k, int64_t* rank) {
  return guarded(c, "output_rank", [&] {
    if (!rank) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL rank");
    if (int32_t code = output_index(c, k)) return code;
    *rank = c->cx->out_rank(k);
    return 0;
  });
}

int32_t bind_output(mx_lowering_context* c, size_t k, const char* onnx_name) {
  return guarded(c, "bind_output", [&] {
    if (int32_t code = output_index(c, k)) return code;
    if (!onnx_name || !c->names.count(onnx_name))
      return failed(c, MX_ERR_INVALID_ARGUMENT,
                    "bind_output " + std::to_string(k) + ": '" + (onnx_name ? onnx_name : "(null)") +
                        "' is no value the host handed out for this node");
    c->cx->out(k, onnx_name);
    c->bound.insert(k);
    return 0;
  });
}

// A value name the context produced, handed to the plugin.
const char* hand_out(mx_lowering_context* c, const std::string& onnx_name) {
  c->names.insert(onnx_name);
  return lend(c, onnx_name);
}

int32_t sym_int_arg(mx_lowering_context* c, const char* name, const char** onnx_name) {
  return guarded(c, name, [&] {
    if (!onnx_name) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL onnx_name");
    if (!c->cx->has(name)) return absent(c, name);
    *onnx_name = hand_out(c, c->cx->sym_int(name));
    return 0;
  });
}

int32_t int_list_tensor(mx_lowering_context* c, const char* name, const char** onnx_name) {
  return guarded(c, name, [&] {
    if (!onnx_name) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL onnx_name");
    if (!c->cx->has(name)) return absent(c, name);
    *onnx_name = hand_out(c, c->cx->int_list(name));
    return 0;
  });
}

int32_t tensor_list_arg(mx_lowering_context* c, const char* name, const char* const** onnx_names,
                        size_t* count) {
  return guarded(c, name, [&] {
    if (!onnx_names || !count) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL onnx_names or count");
    if (!c->cx->has(name)) return absent(c, name);
    auto& names = c->lent_names.emplace_back();
    for (const Value* v : c->cx->tensor_list(name)) names.push_back(v ? hand_out(c, v->onnx) : nullptr);
    *onnx_names = names.data();
    *count = names.size();
    return 0;
  });
}

int32_t string_arg(mx_lowering_context* c, const char* name, const char** value) {
  return guarded(c, name, [&] {
    if (!value) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL value");
    if (!c->cx->has(name)) return absent(c, name);
    *value = lend(c, c->cx->string_arg(name, ""));
    return 0;
  });
}

// Output k exists and is a Tensor[].
int32_t list_output(mx_lowering_context* c, size_t k) {
  if (int32_t code = output_index(c, k)) return code;
  return c->cx->output_is_tensor_list(k)
             ? 0
             : failed(c, MX_ERR_INVALID_ARGUMENT, "output " + std::to_string(k) + " is not a Tensor[]");
}

int32_t output_list_size(mx_lowering_context* c, size_t k, size_t* count) {
  return guarded(c, "output_list_size", [&] {
    if (!count) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL count");
    if (int32_t code = list_output(c, k)) return code;
    *count = c->cx->list_size(k);
    return 0;
  });
}

int32_t bind_output_list(mx_lowering_context* c, size_t k, const char* const* onnx_names, size_t count) {
  return guarded(c, "bind_output_list", [&] {
    if (int32_t code = list_output(c, k)) return code;
    if (count && !onnx_names) return failed(c, MX_ERR_INVALID_ARGUMENT, "NULL onnx_names");
    const size_t expected = c->cx->list_size(k);
    if (count != expected)
      return failed(c, MX_ERR_INVALID_ARGUMENT,
                    "bind_output_list " + std::to_string(k) + ": " + std::to_string(count) +
                        " values for a list of " + std::to_string(expected));
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
      if (!onnx_names[i] || !c->names.count(onnx_names[i]))
        return failed(c, MX_ERR_INVALID_ARGUMENT,
                      "bind_output_list " + std::to_string(k) + ": element " + std::to_string(i) + " '" +
                          (onnx_names[i] ? onnx_names[i] : "(null)") +
                          "' is no value the host handed out for this node");
      names.emplace_back(onnx_names[i]);
    }
    c->cx->out_list(k, names);
    c->bound.insert(k);
    return 0;
  });
}

int32_t fail(mx_lowering_context* c, int32_t code, const char* message) {
  if (!c) return code;
  return failed(c, code, message ? message : "(no message)");
}

const mx_lowering_api kApi = {sizeof(mx_lowering_api),
                              MX_LOWERING_ABI_MAJOR,
                              MX_LOWERING_ABI_MINOR,
                              MX_ATEN_ONNX_VERSION,
                              node_target,
                              node_name_of,
                              node_module,
                              export_opset,
                              has_arg,
                              tensor,
                              tensor_dtype,
                              tensor_rank,
                              tensor_dim,
                              int_arg,
                              float_arg,
                              bool_arg,
                              int_list_arg,
                              emit,
                              constant,
                              output_count,
                              output_dtype,
                              output_rank,
                              bind_output,
                              fail,
                              sym_int_arg,
                              int_list_tensor,
                              tensor_list_arg,
                              string_arg,
                              output_list_size,
                              bind_output_list};

// A plugin's code describes the user's problem when it is one of those the
// host keeps (docs/plugin-protocol.md, "Errors"); anything else is the
// plugin's failure.
int32_t reported(int32_t code) {
  switch (code) {
    case MX_ERR_INVALID_ARGUMENT:
    case MX_ERR_NOT_FOUND:
    case MX_ERR_UNSUPPORTED:
      return code;
    default:
      return MX_ERR_PLUGIN;
  }
}

}  // namespace

void lower_with_plugin(OpContext& cx, const PluginOp& op) {
  mx_lowering_context c;
  c.cx = &cx;
  const std::string who = "lowering plugin '" + op.plugin + "' (" + op.path + ")";
  int32_t code = 0;
  try {
    code = op.op->lower(&kApi, &c, op.op->user_data);
  } catch (...) {  // a C++ plugin that broke the header's rule
    throw Error(MX_ERR_PLUGIN,
                who + ": an exception escaped its lowering through the C ABI at " + cx.where());
  }
  if (code != 0)
    throw Error(reported(code),
                who + " failed at " + cx.where() + ": " +
                    (c.message.empty() ? "returned code " + std::to_string(code) : c.message));
  for (size_t k = 0; k < cx.n_outputs(); ++k)
    if ((cx.output_is_tensor(k) || cx.output_is_tensor_list(k)) && !c.bound.count(k))
      throw Error(MX_ERR_PLUGIN, who + " left output " + std::to_string(k) + " unbound at " + cx.where());
}

}  // namespace mx::aten_onnx
