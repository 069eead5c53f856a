// Tag derivation: a module's tag is its class path from the root,
// "/BertModel/BertEncoder/BertLayer.0/…" (docs/hierarchy-schema.md).
#pragma once
#include "hierarchy/document.hpp"

namespace mx::hierarchy {

struct TagOptions {
  // Leave torch.nn built-ins (qualified class "torch.nn.…") out of tags, the
  // convention of the original Python modelexport. The root always stays,
  // so no tag is ever empty.
  bool drop_builtin = false;
  // Recompute tags that are already set (otherwise only empty ones).
  bool overwrite = false;
};

// Fills module tags, then record tags from their module's tag.
void derive_tags(Document& doc, const TagOptions& opts);
// The same with the document's index (valid for `doc`'s modules).
void derive_tags(Document& doc, const ModuleIndex& index, const TagOptions& opts);

}  // namespace mx::hierarchy
