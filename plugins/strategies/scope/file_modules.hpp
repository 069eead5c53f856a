// The module paths a file itself shows when no hierarchy is supplied: every
// module its scoped node names reach and every module owning a named
// initializer (`layer1.0.conv1.weight` -> `layer1.0.conv1`), with their
// ancestors, minus the scopes that are a module's repeated call.
//
// torch.onnx names the scope of a module's second and third call in the
// same parent `relu_1`, `relu_2` (ResNet's Bottleneck calls `self.relu`
// three times). Without a tree nothing proves it, so a step `X_N` is read
// as a repeated call of `X` when `X` is a sibling seen in the file and
// `X_N` owns no parameter (GPT-2's `ln_1` owns weights: a real module).
// A model that really has parameter-free modules `relu` and `relu_1` side
// by side gets both read as `relu`; torch's own names cannot tell them
// apart either. ModuleSnap then resolves `relu_1` to `relu` as it does with
// a supplied tree.
#pragma once
#include <string_view>
#include <vector>

#include "mx/common/string_blocks.hpp"
#include "path_set.hpp"

namespace mx::scope {

// Hashed: only looked up and counted, never listed in order (a std::set of
// 150,000 paths compared long common prefixes log n times per lookup).
using ModulePaths = PathSet;

ModulePaths modules_shown_by_file(const std::vector<std::string_view>& node_names,
                                  const std::vector<std::string_view>& initializer_names);

// Would modules_shown_by_file read any scope as a repeated call? When not,
// its set is every module the names and initializers reach with their
// ancestors, and snapping a node's scope path onto it gives that path
// unchanged: the strategy can skip building it (150,000 paths hashed at
// 200,000 nodes). Found without that set: only paths whose last step has
// a `_<digits>` suffix can be repeated calls, and they are few.
bool shows_repeated_calls(const std::vector<std::string_view>& node_names,
                          const std::vector<std::string_view>& initializer_names);

// The same question on the nodes' scope paths (scope_path_of) in node
// order, "" for a name without one: the strategy finds them once, for this
// and for its answer.
bool shows_repeated_calls_on_paths(const std::vector<std::string_view>& scope_paths,
                                   const std::vector<std::string_view>& initializer_names);

// Does one of the path's atoms ("relu_1" in "layer1.0.relu_1") have a
// `_<digits>` suffix? Only the '.'-prefixes ending in such an atom can be
// read as repeated calls.
bool has_repeated_call_atom(std::string_view path);

// The module path a scoped node name shows (its steps joined) into `path`;
// false for a name without a scope.
bool scope_path_of(std::string_view node_name, std::vector<std::string_view>& steps, std::string& path);

// "relu_1" -> "relu"; "" when the step has no `_<digits>` suffix.
std::string_view repeated_call_base(std::string_view step);

}  // namespace mx::scope
