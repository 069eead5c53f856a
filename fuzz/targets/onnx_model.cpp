// ONNX model bytes through the C ABI: load, graph view, node views,
// hierarchy, save (with the checker, as a vendor's default save does), and
// the saved bytes must load again with the same nodes and records.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_common.hpp"

using mxfuzz::ok;

namespace {

size_t record_count(const mx_model* m) {
  char* text = nullptr;
  size_t size = 0;
  if (!ok(mx_model_hierarchy_json(m, &text, &size), "mx_model_hierarchy_json"))
    mxfuzz::finding("hierarchy_json", "failed on a loaded model");
  // Count records cheaply: each one has exactly one "evidence" key.
  size_t n = 0;
  for (const char* p = text; (p = std::strstr(p, "\"evidence\":\"")); ++p) ++n;
  mx_free(text);
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > mxfuzz::kMaxInput) return 0;
  mx_model* model = nullptr;
  if (!ok(mx_model_load_bytes(data, size, &model), "mx_model_load_bytes")) {
    if (model) mxfuzz::finding("mx_model_load_bytes", "failed but set *out");
    return 0;
  }
  char* text = nullptr;
  size_t text_size = 0;
  if (ok(mx_model_graph_json(model, &text, &text_size), "mx_model_graph_json")) mx_free(text);
  const size_t nodes = mx_model_node_count(model);
  for (size_t i = 0; i < nodes && i < 4; ++i) {
    text = nullptr;
    if (ok(mx_model_node_json(model, i, &text, &text_size), "mx_model_node_json")) mx_free(text);
  }
  const size_t records = record_count(model);
  ok(mx_model_check(model), "mx_model_check");

  // Save as a vendor would (checker on), and without the checker: what was
  // saved must come back.
  for (const char* options : {"", "{\"check\":false}", "{\"check\":false,\"tag_storage\":\"doc_string\"}"}) {
    void* saved = nullptr;
    size_t saved_size = 0;
    if (!ok(mx_model_save_bytes(model, options, &saved, &saved_size), "mx_model_save_bytes")) continue;
    mx_model* again = nullptr;
    mx_status* s = mx_model_load_bytes(saved, saved_size, &again);
    if (s) {
      std::string msg = mx_status_message(s);
      mx_status_release(s);
      mxfuzz::finding("round trip",
                      std::string("saved bytes (options '") + options + "') do not load again: " + msg);
    }
    if (mx_model_node_count(again) != nodes) mxfuzz::finding("round trip", "node count changed");
    if (record_count(again) != records)
      mxfuzz::finding("round trip", "record count changed: " + std::to_string(records) + " -> " +
                                        std::to_string(record_count(again)));
    mx_model_release(again);
    mx_free(saved);
  }
  mx_model_release(model);
  return 0;
}
