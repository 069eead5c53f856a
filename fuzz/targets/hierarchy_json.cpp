// Hierarchy JSON (mx_model_set_hierarchy_json) on a fixed small model
// (TinyNet: /fc/MatMul, /fc/Add, /act/Relu), then everything that reads the
// hierarchy back: hierarchy_json, node records, save with each storage and
// reload. An accepted document must survive a save/load round trip.
#include <cstdint>
#include <string>

#include "fixture_model.hpp"
#include "fuzz_common.hpp"

using mxfuzz::ok;

namespace {

const std::string& tiny_bytes() {
  static const std::string bytes = mx::testing::tiny_net_bytes();
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > mxfuzz::kMaxInput) return 0;
  mx_model* model = nullptr;
  if (!ok(mx_model_load_bytes(tiny_bytes().data(), tiny_bytes().size(), &model), "load tiny"))
    mxfuzz::finding("setup", "TinyNet does not load");
  // size 0 means "NUL-terminated" in the API: give it a terminated copy.
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!ok(mx_model_set_hierarchy_json(model, text.c_str(), text.size()), "mx_model_set_hierarchy_json")) {
    mx_model_release(model);
    return 0;
  }
  char* out = nullptr;
  size_t out_size = 0;
  if (!ok(mx_model_hierarchy_json(model, &out, &out_size), "mx_model_hierarchy_json"))
    mxfuzz::finding("hierarchy_json", "accepted document cannot be written back");
  // What we write must be accepted again (writer and reader agree).
  mx_model* copy = nullptr;
  ok(mx_model_load_bytes(tiny_bytes().data(), tiny_bytes().size(), &copy), "load tiny");
  mx_status* s = mx_model_set_hierarchy_json(copy, out, out_size);
  if (s) mxfuzz::finding("hierarchy round trip", mx_status_message(s));
  mx_model_release(copy);
  mx_free(out);

  for (const char* name : {"/fc/MatMul", "/fc/Add", "/act/Relu", ""}) {
    out = nullptr;
    if (ok(mx_model_node_record(model, name, &out, &out_size), "mx_model_node_record")) mx_free(out);
  }
  for (const char* options : {"{\"check\":false}", "{\"check\":false,\"tag_storage\":\"doc_string\"}",
                              "{\"check\":false,\"tag_storage\":\"none\"}", ""}) {
    void* saved = nullptr;
    size_t saved_size = 0;
    if (!ok(mx_model_save_bytes(model, options, &saved, &saved_size), "mx_model_save_bytes")) continue;
    mx_model* again = nullptr;
    mx_status* st = mx_model_load_bytes(saved, saved_size, &again);
    if (st) mxfuzz::finding("save/load", std::string("options ") + options + ": " + mx_status_message(st));
    mx_model_release(again);
    mx_free(saved);
  }
  mx_model_release(model);
  return 0;
}
