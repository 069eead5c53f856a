// The one argument interface every ATen lowering (src/lower/*.cpp) is
// written against, whichever frontend read the program: the current op's
// arguments by their schema names (an argument left out holds its schema
// default: TorchScript nodes carry every argument, the .pt2 frontend fills
// the ones the archive drops from a table of torch's schemas; the
// accessor's fallback is for arguments whose default is None), tensors
// with dtype and symbolic shape, SymInts, and its outputs. The .pt2 frontend implements it over a
// node of the program's JSON, the TorchScript frontend over a jit::Node and
// its example values. What only a frontend knows (in-place write-back,
// module stacks, nested bodies) stays behind the implementation.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mx/aten_onnx/onnx_emitter.hpp"
#include "mx/aten_onnx/value.hpp"

namespace mx::aten_onnx {

// What an argument holds, for lowerings that branch on it (conv's padding
// 'same' vs ints, pow's exponent 2.0, a Scalar vs a Tensor operand).
enum class ArgKind {
  none,
  tensor,
  tensors,
  integer,
  floating,
  boolean,
  string,
  ints,
  floats,
  sym_int,
  sym_float,
  dtype,
  complex_number,  // a Python complex number (complex_arg)
  other
};

class OpContext : public OnnxEmitter {
 public:
  using OnnxEmitter::OnnxEmitter;

  // "aten.conv2d.default": namespace, op, overload ("default" for the
  // unnamed one), whichever spelling the frontend's IR uses.
  const std::string& target() const { return target_; }
  // "aten.relu_.default" -> "relu": the op without namespace, overload or
  // in-place suffix (a dunder name, "__or__", is kept whole).
  std::string op() const;

  // ---- arguments by schema name
  virtual ArgKind arg_kind(const std::string& name) const = 0;  // none: absent or None
  bool has(const std::string& name) const { return arg_kind(name) != ArgKind::none; }
  virtual const Value& value_of(const std::string& name) = 0;  // a tensor argument
  std::string tensor(const std::string& name) { return value_of(name).onnx; }
  int32_t dtype_of(const std::string& name) { return value_of(name).dtype; }
  int64_t rank_of(const std::string& name) { return static_cast<int64_t>(value_of(name).shape.size()); }
  // Static sizes of a tensor argument; a dynamic dim is an error naming the op.
  std::vector<int64_t> static_shape(const std::string& name);
  // A Tensor[] / Tensor?[] argument; nullptr for a None element.
  virtual std::vector<const Value*> tensor_list(const std::string& name) = 0;
  virtual int64_t int_arg(const std::string& name, std::optional<int64_t> fallback = std::nullopt) = 0;
  virtual double float_arg(const std::string& name, std::optional<double> fallback = std::nullopt) = 0;
  virtual bool bool_arg(const std::string& name, std::optional<bool> fallback = std::nullopt) = 0;
  virtual std::string string_arg(const std::string& name, const std::string& fallback) = 0;
  // A static int list (an int is a list of one); a dynamic element is an error.
  virtual std::vector<int64_t> ints(const std::string& name,
                                    std::optional<std::vector<int64_t>> fallback = std::nullopt) = 0;
  // The same, or nullopt when an element is dynamic.
  virtual std::optional<std::vector<int64_t>> static_ints(const std::string& name) = 0;
  virtual size_t list_length(const std::string& name) = 0;          // elements of a list argument
  virtual std::vector<double> floats(const std::string& name) = 0;  // a static float list
  // An int list that may hold SymInts, as a 1-D int64 ONNX tensor.
  virtual std::string int_list(const std::string& name) = 0;
  // A SymInt/int argument as a 0-d int64 ONNX tensor.
  virtual std::string sym_int(const std::string& name) = 0;
  // A Scalar or Tensor argument as an ONNX tensor of `dtype`.
  virtual std::string operand(const std::string& name, int32_t dtype) = 0;
  // dtype argument (ScalarType) as an ONNX type, or `fallback`.
  virtual int32_t dtype_arg(const std::string& name, int32_t fallback) = 0;
  // A Python complex number (a Scalar argument next to a complex tensor):
  // its real and imaginary parts.
  virtual std::pair<double, double> complex_arg(const std::string& name) = 0;

  // ---- outputs
  virtual size_t n_outputs() const = 0;
  virtual const std::vector<Dim>& out_shape(size_t k = 0) const = 0;
  virtual int32_t out_dtype(size_t k = 0) const = 0;
  int64_t out_rank(size_t k = 0) const { return static_cast<int64_t>(out_shape(k).size()); }
  virtual void out(size_t k, const std::string& onnx_name) = 0;
  virtual void out_sym(size_t k, const std::string& onnx_name, std::optional<int64_t> static_value) = 0;
  // Output k is a list of tensors (split, unbind): its element count and shapes.
  virtual size_t list_size(size_t k) const = 0;
  virtual const std::vector<Dim>& list_item_shape(size_t k, size_t item) const = 0;
  virtual void out_list(size_t k, const std::vector<std::string>& onnx_names) = 0;

  // Output k holds a tensor (not a SymInt, a list or None): a lowering
  // must bind it.
  virtual bool output_is_tensor(size_t k) const = 0;
  // Output k is a list of tensors (Tensor[]).
  virtual bool output_is_tensor_list(size_t k) const = 0;
  // Output k is left uncomputed by design: `why` joins the error a node
  // that reads it gets ("eigenvector signs are arbitrary"). The frontend
  // takes the reasons once the lowering has run.
  void leave_uncomputed(size_t k, std::string why) { uncomputed_why_[k] = std::move(why); }
  std::map<size_t, std::string> take_uncomputed_reasons() { return std::exchange(uncomputed_why_, {}); }

  // ---- the node, for lowering plugins and messages
  // The name the source program gives the node ("linear_1", the output's
  // debug name in TorchScript).
  virtual std::string node_name() const = 0;
  // The module whose code emitted the node ("" = the root's forward).
  const std::string& module_path() const { return current_module(); }

  // unsupported(what) and where() for messages: OnnxEmitter's.

 protected:
  void set_target(std::string target) { target_ = std::move(target); }

 private:
  std::string target_;
  std::map<size_t, std::string> uncomputed_why_;
};

inline int64_t norm_dim(int64_t d, int64_t rank) {
  return d < 0 ? d + rank : d;
}

}  // namespace mx::aten_onnx
