// Dev tool: export a .pt2 without the host (no hierarchy records on the
// nodes; the document goes to --hierarchy). The product path is
// `modelexport export model.pt2 -o out.onnx`.
//   mxte-export model.pt2 out.onnx [--hierarchy h.json] [--opset N] [-i SPEC ...]
//   mxte-export --lowerings   the registered lowerings, one per line:
//                             "<file>\t<name>", sorted; exit 1 when a name
//                             is registered twice (tests/conformance checks
//                             the README's op table against this list)
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "exporter.hpp"
#include "lower_ctx.hpp"

namespace {

int list_lowerings() {
  std::map<std::string, std::set<std::string>> by_file;
  for (const auto& [name, reg] : mx::aten_onnx::lowering_registry()) by_file[reg.file].insert(name);
  for (const auto& [file, names] : by_file)
    for (const auto& n : names) std::printf("%s\t%s\n", file.c_str(), n.c_str());
  for (const auto& d : mx::aten_onnx::duplicate_lowerings())
    std::fprintf(stderr, "registered twice: %s\n", d.c_str());
  return mx::aten_onnx::duplicate_lowerings().empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--lowerings") return list_lowerings();
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: mxte-export model.pt2 out.onnx [--hierarchy h.json] [--opset N] [-i SPEC ...]\n");
    return 2;
  }
  mx::torch_export::ExportOptions o;
  o.model_path = argv[1];
  std::string out = argv[2], hierarchy;
  for (int k = 3; k + 1 < argc; k += 2) {
    std::string a = argv[k];
    if (a == "--hierarchy") hierarchy = argv[k + 1];
    else if (a == "--opset") o.opset = std::stoi(argv[k + 1]);
    else if (a == "-i") o.inputs.push_back(argv[k + 1]);
  }
  try {
    auto r = mx::torch_export::export_model(o);
    std::ofstream(out, std::ios::binary) << r.onnx_bytes;
    if (!hierarchy.empty()) std::ofstream(hierarchy) << r.hierarchy_json;
  } catch (const mx::torch_export::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.code;
  }
  return 0;
}
