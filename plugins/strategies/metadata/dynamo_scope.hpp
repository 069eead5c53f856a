// The module stack the dynamo exporter (torch >= 2.5) records on each node.
//
// Checked on real files (torch 2.15, tests/fixtures/dynamo/):
//   pkg.torch.onnx.name_scopes     = ['', 'layers.0', 'layers.0.attention',
//                                     'layers.0.attention.query', 'linear']
//   pkg.torch.onnx.class_hierarchy = ['__main__.MiniTransformer',
//                                     '__main__.TransformerBlock', ...,
//                                     'torch.nn.modules.linear.Linear',
//                                     'aten.linear.default']
//   namespace = ": __main__.MiniTransformer/layers.0: __main__.TransformerBlock/
//                ... /linear: aten.linear.default"
// i.e. one entry per module from the root ('' ) to the innermost, each a FULL
// `named_modules()` path, and then one extra entry that is NOT a module: the
// FX node's name and its ATen target. The namespace string carries the same
// pairs as "path: qualified class" joined by '/'.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mx::metadata {

struct ScopeEntry {
  std::string path;             // named_modules() path, "" for the root
  std::string qualified_class;  // "" when unknown
};

struct ScopeChain {
  bool ok = false;
  std::vector<ScopeEntry> modules;  // root first; the FX-node entry removed
  std::string error;
};

// From the two repr lists (already decoded). `class_hierarchy` may be empty
// (key absent); when present it must be as long as `name_scopes`.
ScopeChain chain_from_lists(const std::vector<std::string>& name_scopes,
                            const std::vector<std::string>& class_hierarchy);

// From the `namespace` string.
ScopeChain chain_from_namespace(std::string_view text);

// The class name without its package: "torch.nn.modules.conv.Conv2d" ->
// "Conv2d".
std::string short_class(std::string_view qualified_class);

}  // namespace mx::metadata
