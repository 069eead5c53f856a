// mxts-export: the torchscript frontend without the host (development tool).
//   mxts-export model.pt out.onnx [--hierarchy out.json] [--opset N]
//               [--drop-builtin-tags] [--module-tree] [--weights-by-reference]
//               -i name:dtype[dims] ...
// --weights-by-reference writes the answer a host taking weights by
// reference gets: initializers stored as they are in the .pt refer to it
// (location = the model path as given, offset, length).
// Exit code = mx_code of the failure (0 on success); message on stderr.
#include <cstring>
#include <fstream>
#include <iostream>

#include "exporter.hpp"

int main(int argc, char** argv) {
  mx::torchscript::ExportOptions o;
  std::string out, hier;
  bool tree_only = false;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "missing value after " << a << "\n";
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "-i" || a == "--input") o.inputs.push_back(next());
    else if (a == "--hierarchy") hier = next();
    else if (a == "--opset") o.opset = std::stoi(next());
    else if (a == "--drop-builtin-tags") o.drop_builtin_tags = true;
    else if (a == "--module-tree") tree_only = true;
    else if (a == "--weights-by-reference") o.weights_by_reference = true;
    else pos.push_back(a);
  }
  if (pos.size() < (tree_only ? 1u : 2u)) {
    std::cerr << "usage: mxts-export model.pt out.onnx [--hierarchy h.json] [--opset N] "
                 "[--drop-builtin-tags] [--weights-by-reference] -i name:dtype[dims] ...\n";
    return 1;
  }
  o.model_path = pos[0];
  try {
    if (tree_only) {
      std::cout << mx::torchscript::module_tree_json(o.model_path, o.drop_builtin_tags) << "\n";
      return 0;
    }
    auto r = mx::torchscript::export_model(o);
    std::ofstream(pos[1], std::ios::binary) << r.onnx_bytes;
    if (hier.empty()) {  // out.onnx -> out.hierarchy.json (like the CLI's sidecar)
      std::string stem = pos[1];
      auto dot = stem.rfind('.');
      if (dot != std::string::npos && stem.find('/', dot) == std::string::npos) stem = stem.substr(0, dot);
      hier = stem + ".hierarchy.json";
    }
    std::ofstream(hier) << r.hierarchy_json;
    return 0;
  } catch (const mx::torchscript::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.code;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 9;
  }
}
