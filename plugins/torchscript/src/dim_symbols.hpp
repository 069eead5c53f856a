// Symbolic dims of the walk's values, for the graph passes (issue 33).
//
// The passes (mx/aten_onnx/graph_passes.hpp) act on what the program knows
// of a value's dims: merge_slices_to_split needs the sliced axis static,
// infer_reshape_dim a Reshape's output dims that are provably its input's at
// the same position. The shifted run (dynamic_dims.hpp) tells which dims are
// dynamic, but not which dynamic dims are the *same* size: two sizes can
// agree at both example shapes by chance. So every dynamic size gets a
// symbol, and a symbol travels only where an op's semantics make two sizes
// equal:
//
//   * a model input's named dim k: "<input>:k", per input (two inputs whose
//     dims share a name are not assumed equal: nothing checks that they are);
//   * aten::size(x, d), and through NumToTensor / Int / list elements: the
//     symbol of x's dim d;
//   * the ops with a rule (dim_symbols.cpp): element-wise ops and
//     broadcasting, permute / transpose, linear / matmul, view / reshape /
//     expand / zeros from their size lists, slices of other dims, cat,
//     split, reductions, ...;
//   * any other dynamic size: a fresh symbol ("#N"), equal only to itself; it
//     still travels (view(x, [x.size(0), -1]) keeps x's dim 0 whatever x is).
//
// Static sizes need the same care: the shifted run doubles every named dim
// at once, so a size that is a ratio of them (reshape(b.size(0), -1) of an
// input whose rows are twice b's) agrees at both shapes and looks static.
// A dim is static for the passes only when it is so by construction (the
// value reads no named dim) or by a rule (a literal in a size list, a
// weight's dim, a static dim carried through); a dim static at both shapes
// without that proof is unknown, which the passes leave alone.
//
// A symbol is checked against the example and shifted sizes it was made
// for: a dim whose sizes differ from its symbol's gets a fresh one (a guard
// against a wrong rule, not the proof: the rules are).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ctx.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::torchscript {

class DimSymbols {
 public:
  // The token of a dim (or int element) proven static; Val::dim_symbols and
  // value_symbols hold it, a symbol, or "" (nothing proven).
  static constexpr const char* kStatic = "=";

  // A model input `v` named `input`: its dynamic dims get "<input>:k".
  void bind_input(Val& v, const std::string& input);
  // After the walk bound `n`'s outputs: their symbols, and the dims of
  // their ONNX values recorded.
  void assign(Ctx& cx, const tj::Node* n);
  // ONNX value name -> its dims, for every tensor value the walk named (a
  // name recorded with two different dims is left out).
  mx::aten_onnx::SymbolicShapes shapes() const;

  // The sizes a symbol stands for: at the example shapes and, when known,
  // at the shifted ones.
  struct Sizes {
    int64_t example = 0;
    std::optional<int64_t> shifted;
  };

 private:
  std::string fresh(const Sizes& s);
  bool fits(const std::string& symbol, const Sizes& s) const;
  // `out` (output k of `n`) with its symbols: the rule's where it has one
  // and they fit, else the ones it carries, else fresh ones.
  VP with_symbols(Ctx& cx, const tj::Node* n, const std::string& op, size_t k, const VP& out);
  std::vector<std::string> checked(const std::vector<std::string>& proposed, const std::vector<bool>& dynamic,
                                   const std::vector<Sizes>& sizes);
  void record(const Val& v);

  std::unordered_map<std::string, Sizes> sizes_;
  int next_ = 0;
  mx::aten_onnx::SymbolicShapes shapes_;
  std::set<std::string> ambiguous_;
};

}  // namespace mx::torchscript
