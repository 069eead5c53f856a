// Writes the compare CLI test inputs into DIR:
//   stack.onnx (StackNet, tagged), stack_copy.onnx (same), extra.onnx
//   (an extra Identity in blocks.1.act), short.onnx (StackNet with 2 blocks),
//   untagged.onnx (StackNet without hierarchy).
#include <cstdio>
#include <string>

#include "compare_models.hpp"
#include "modelexport/modelexport.h"
#include "stacknet.hpp"

namespace {

bool write(const std::string& bytes, const std::string& h, const std::string& path) {
  mx_model* m = nullptr;
  mx_status* st = mx_model_load_bytes(bytes.data(), bytes.size(), &m);
  if (!st && !h.empty()) st = mx_model_set_hierarchy_json(m, h.data(), h.size());
  if (!st) st = mx_model_save_file(m, path.c_str(), nullptr);
  mx_model_release(m);
  if (!st) return true;
  std::fprintf(stderr, "mx_make_compare_models: %s: %s\n", path.c_str(), mx_status_message(st));
  mx_status_release(st);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mx::testing;
  if (argc != 2) return std::fprintf(stderr, "usage: mx_make_compare_models DIR\n"), 2;
  const std::string dir = argv[1];
  const std::string net = stack_net().SerializeAsString();
  const bool ok = write(net, stack_net_hierarchy(), dir + "/stack.onnx") &&
                  write(net, stack_net_hierarchy(), dir + "/stack_copy.onnx") &&
                  write(stack_net_extra_bytes(), stack_net_extra_hierarchy(), dir + "/extra.onnx") &&
                  write(stack_net(2).SerializeAsString(), stack_net_hierarchy(2), dir + "/short.onnx") &&
                  write(net, "", dir + "/untagged.onnx");
  return ok ? 0 : 1;
}
