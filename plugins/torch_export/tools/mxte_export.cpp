// Dev tool: export a .pt2 without the host (no hierarchy records on the
// nodes; the document goes to --hierarchy). The product path is
// `modelexport export model.pt2 -o out.onnx`.
//   mxte-export model.pt2 out.onnx [--hierarchy h.json] [--opset N] [-i SPEC ...]
#include <cstdio>
#include <fstream>
#include <string>

#include "exporter.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: mxte-export model.pt2 out.onnx [--hierarchy h.json] [--opset N] [-i SPEC ...]\n");
    return 2;
  }
  mxte::ExportOptions o;
  o.model_path = argv[1];
  std::string out = argv[2], hierarchy;
  for (int k = 3; k + 1 < argc; k += 2) {
    std::string a = argv[k];
    if (a == "--hierarchy") hierarchy = argv[k + 1];
    else if (a == "--opset") o.opset = std::stoi(argv[k + 1]);
    else if (a == "-i") o.inputs.push_back(argv[k + 1]);
  }
  try {
    auto r = mxte::export_model(o);
    std::ofstream(out, std::ios::binary) << r.onnx_bytes;
    if (!hierarchy.empty()) std::ofstream(hierarchy) << r.hierarchy_json;
  } catch (const mxte::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.code;
  }
  return 0;
}
