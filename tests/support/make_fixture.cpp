// Writes TinyNet to a file through the public C API, so build-time and
// test-time consumers (the C test, the Python/ORT check, the CLI tests) get
// a real ONNX file without the repository storing binaries.
//   mx_make_fixture OUT.onnx [--tag-storage metadata|doc_string|none]
//                            [--no-hierarchy] [--invalid]
//                            [--broken cycle|undefined|duplicate [--ir N] [--opset N]]
// --broken writes the defective graph unchecked, for the tests of the SDK's
// own structure check (tag must refuse it, whatever the IR/opset).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fixture_model.hpp"
#include "modelexport/modelexport.h"

namespace {
int report(mx_status* st) {
  std::fprintf(stderr, "mx_make_fixture: %s\n", mx_status_message(st));
  mx_status_release(st);
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: mx_make_fixture OUT.onnx [--tag-storage S] [--no-hierarchy] [--invalid]\n"
                 "       [--broken cycle|undefined|duplicate [--ir N] [--opset N]]\n");
    return 2;
  }
  std::string storage = "metadata";
  std::string broken;
  int64_t ir = 8, opset = 17;
  bool with_hierarchy = true, invalid = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tag-storage") && i + 1 < argc) storage = argv[++i];
    else if (!std::strcmp(argv[i], "--no-hierarchy")) with_hierarchy = false;
    else if (!std::strcmp(argv[i], "--invalid")) invalid = true;
    else if (!std::strcmp(argv[i], "--broken") && i + 1 < argc) broken = argv[++i];
    else if (!std::strcmp(argv[i], "--ir") && i + 1 < argc) ir = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--opset") && i + 1 < argc) opset = std::atoll(argv[++i]);
  }
  if (!broken.empty()) {
    // Straight to disk: loading and saving through the SDK would check it.
    const auto proto = mx::testing::broken_net(broken, ir, opset);
    std::FILE* f = std::fopen(argv[1], "wb");
    const std::string bytes = proto.SerializeAsString();
    const bool ok = f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (f) std::fclose(f);
    if (!ok) std::fprintf(stderr, "mx_make_fixture: cannot write %s\n", argv[1]);
    return ok ? 0 : 1;
  }
  const std::string bytes =
      invalid ? mx::testing::invalid_net().SerializeAsString() : mx::testing::tiny_net_bytes();
  mx_model* model = nullptr;
  if (mx_status* st = mx_model_load_bytes(bytes.data(), bytes.size(), &model)) return report(st);
  if (with_hierarchy && !invalid) {
    const std::string h = mx::testing::tiny_net_hierarchy();
    if (mx_status* st = mx_model_set_hierarchy_json(model, h.data(), h.size())) return report(st);
  }
  const std::string options =
      "{\"tag_storage\":\"" + storage + "\",\"check\":" + (invalid ? "false" : "true") + "}";
  mx_status* st = mx_model_save_file(model, argv[1], options.c_str());
  mx_model_release(model);
  return st ? report(st) : 0;
}
