// nn_module_stack, the module hierarchy torch.export records on every
// node: `key,path,qualified class` entries joined by ';', root first
// ("L__self__,,__main__.Net;L__self___relu@1,relu,torch.nn...ReLU" - a key
// ending in @N is the module's N-th extra call). A stack of
// `_empty_nn_module_stack_from_metadata_hook` entries means the program
// places the node in no module (nodes torch's own passes insert).
#pragma once
#include <string>
#include <vector>

namespace mx::torch_export {

struct StackEntry {
  std::string key, path, qualified_class;
  int call = 0;  // the key's @N: which call of the module (0 = the first)
};

// Entries of one node's stack (empty when the node has none);
// std::runtime_error naming an entry that is not key,path,class.
std::vector<StackEntry> parse_module_stack(const std::string& text);

// The call index a stack key carries: "L__self___shared@2" -> 2, no "@N" -> 0.
int call_index_of_key(const std::string& key);

// The call of the innermost module of a node's stack (0 when it has none).
int innermost_call(const std::string& stack_text);

}  // namespace mx::torch_export
