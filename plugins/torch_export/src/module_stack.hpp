// nn_module_stack, the module hierarchy torch.export records on every
// node: `key,path,qualified class` entries joined by ';', root first
// ("L__self__,,__main__.Net;L__self___relu@1,relu,torch.nn...ReLU" - a key
// ending in @N is the module's N-th extra call). A stack of
// `_empty_nn_module_stack_from_metadata_hook` entries means the program
// places the node in no module (nodes torch's own passes insert).
#pragma once
#include <string>
#include <vector>

namespace mxte {

struct StackEntry {
  std::string key, path, qualified_class;
};

// Entries of one node's stack (empty when the node has none).
std::vector<StackEntry> parse_module_stack(const std::string& text);

}  // namespace mxte
