// The class-path tag of a module, "/BertModel/BertEncoder/BertLayer.0/…"
// (docs/hierarchy-schema.md): one component per module from the root, the
// module's class, with its index when it is an item of a container (a
// numeric last path segment) so that repeated layers stay distinct.
// Containers that never ran are not a level a user sees and add nothing;
// on request neither do torch.nn built-ins (the original Python
// modelexport's convention). The root always adds its component, so no tag
// is empty. The one rule for the frontends (aten_onnx) and the core.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace mx::common {

// What the rule reads of one module on the way from the root.
struct TagLevel {
  std::string_view path;             // named_modules() path, "" = root
  std::string_view class_name;       // "BertLayer"
  std::string_view qualified_class;  // "transformers....BertLayer"; "" = unknown
  std::optional<bool> executed;      // nullopt: not stated
  // A container (ModuleList, ModuleDict, Sequential, a module without
  // forward) as a frontend that saw the module knows it; nullopt when only
  // a document is at hand, and the class name decides (is_silent_container).
  std::optional<bool> container;
};

// True for a container that adds no component because it never ran. With
// `container` unknown: ModuleList and ModuleDict (no forward()) unless they
// are stated to have run, a Sequential only when stated not to have run.
bool is_silent_container(const TagLevel& m);

// A torch.nn built-in: its qualified class starts with "torch.nn.".
bool is_builtin_class(std::string_view qualified_class);

// The module's own part of its tag ("/BertLayer.0"), or "" when the tags
// leave it out. The tag of a module is the concatenation of this over the
// modules from the root down to it.
std::string tag_component(const TagLevel& m, bool drop_builtin);

}  // namespace mx::common
