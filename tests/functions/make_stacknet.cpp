// Writes StackNet (with hierarchy) for the ONNX Runtime checks:
//   mx_make_stacknet OUT.onnx
#include <cstdio>
#include <string>

#include "modelexport/modelexport.h"
#include "stacknet.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: mx_make_stacknet OUT.onnx\n"), 2;
  const std::string bytes = mx::testing::stack_net().SerializeAsString();
  const std::string h = mx::testing::stack_net_hierarchy();
  mx_model* m = nullptr;
  mx_status* st = mx_model_load_bytes(bytes.data(), bytes.size(), &m);
  if (!st) st = mx_model_set_hierarchy_json(m, h.data(), h.size());
  if (!st) st = mx_model_save_file(m, argv[1], nullptr);
  mx_model_release(m);
  if (st) {
    std::fprintf(stderr, "mx_make_stacknet: %s\n", mx_status_message(st));
    mx_status_release(st);
    return 1;
  }
  return 0;
}
