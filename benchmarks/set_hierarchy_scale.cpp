// model::set_hierarchy alone, on the document tagging wrote: the CPU time
// of attaching a hierarchy document (checks, record keys, tags, order) to
// its model, without the rest of `tag` around it. Meant to compare two
// builds of the core on one machine (the tag phase's other 75% and a
// loaded machine hide a change of this part in tagging_scale's figures).
//
// Inputs: a model and its document as tagging_scale --write writes them
// (PREFIX.onnx, PREFIX.hierarchy.json). Per run the document is parsed
// once and copied (untimed); set_hierarchy is timed in process CPU time,
// the model's previous document freed before (untimed). Build against a
// tree's internal library (its headers: mx_model's layout is the tree's):
//   T=<tree>; g++ -O2 -std=c++17 -DONNX_ML=1 -DONNX_NAMESPACE=onnx benchmarks/set_hierarchy_scale.cpp \
//     -I$T/sdk/src -I$T/abi/include -I$T/common/include $T/build/sdk/libmodelexport_internal.a \
//     $T/build/aten_onnx/libmx_aten_onnx.a $T/build/common/libmx_common.a -lonnx -lboost_filesystem \
//     -ldl -lonnx_proto -lprotobuf -o /tmp/set_hierarchy_scale
//   /tmp/set_hierarchy_scale PREFIX [runs]
//
// Measured (200,000 nodes, 150,004 modules: tagging_scale 200000 --write;
// main 79fb726 and the setfast branch merged with it, alternately, 3
// invocations of 8 runs each, 2 shared cores): best 121-125 ms -> 64-68
// ms, mean 129-130 ms -> 66-72 ms (the checks compare paths where the tree
// is in path order instead of hashing, a PathTable at load 0.8, prefetching
// in the record and module loops). Same outputs (tagging_scale --write,
// cmp).
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "hierarchy/parse.hpp"
#include "model/model.hpp"

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: set_hierarchy_scale PREFIX [runs]\n";
    return 2;
  }
  const std::string prefix = argv[1];
  const int runs = argc > 2 ? std::stoi(argv[2]) : 10;
  mx_model model;
  if (!model.proto().ParseFromString(read_file(prefix + ".onnx"))) {
    std::cerr << prefix << ".onnx: not a model\n";
    return 1;
  }
  const mx::hierarchy::Document doc =
      mx::hierarchy::parse_document_text(read_file(prefix + ".hierarchy.json"), "h");
  std::cout << "document: " << doc.modules.size() << " modules, " << doc.nodes.size() << " records\n";
  double best = 1e9, total = 0;
  for (int r = 0; r < runs; ++r) {
    mx::hierarchy::Document copy = doc;
    model.hierarchy = {};
    const double start = cpu_seconds();
    mx::model::set_hierarchy(model, std::move(copy), "hierarchy");
    const double took = cpu_seconds() - start;
    best = std::min(best, took);
    total += took;
  }
  std::cout << "set_hierarchy: best " << best * 1e3 << " ms, mean " << total / runs * 1e3 << " ms over "
            << runs << " runs\n";
  return 0;
}
