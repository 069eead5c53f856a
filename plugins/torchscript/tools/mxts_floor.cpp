// The floor of a TorchScript export (benchmarks/export_benchmark.py): load
// the .pt with LibTorch and write every parameter and buffer as an ONNX
// initializer, nothing else. What any exporter of this file must at least
// do; the benchmark prints modelexport's wall time and peak RSS against it.
//   mxts-floor model.pt out.onnx
#include <torch/script.h>
#include "mx/onnx_proto.hpp"

#include <cstdio>
#include <fstream>

// ONNX element type of a weight (the dtypes models store weights in).
static int onnx_type(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return onnx::TensorProto::FLOAT;
    case at::kHalf:
      return onnx::TensorProto::FLOAT16;
    case at::kBFloat16:
      return onnx::TensorProto::BFLOAT16;
    case at::kDouble:
      return onnx::TensorProto::DOUBLE;
    case at::kLong:
      return onnx::TensorProto::INT64;
    case at::kInt:
      return onnx::TensorProto::INT32;
    case at::kBool:
      return onnx::TensorProto::BOOL;
    default:
      return onnx::TensorProto::UINT8;
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mxts-floor model.pt out.onnx\n");
    return 2;
  }
  try {
    torch::jit::Module m = torch::jit::load(argv[1]);
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(17);
    onnx::GraphProto* g = model.mutable_graph();
    g->set_name("floor");
    auto add = [&](const std::string& name, const at::Tensor& t0) {
      at::Tensor t = t0.detach().contiguous();
      onnx::TensorProto* p = g->add_initializer();
      p->set_name(name);
      p->set_data_type(onnx_type(t.scalar_type()));
      for (int64_t d : t.sizes()) p->add_dims(d);
      p->set_raw_data(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
    };
    for (const auto& p : m.named_parameters(true)) add(p.name, p.value);
    for (const auto& b : m.named_buffers(true)) add(b.name, b.value);
    std::ofstream out(argv[2], std::ios::binary);
    if (!model.SerializeToOstream(&out) || !out.flush()) {
      std::fprintf(stderr, "mxts-floor: cannot write %s\n", argv[2]);
      return 1;
    }
    std::printf("%d initializers\n", g->initializer_size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mxts-floor: %s\n", e.what());
    return 1;
  }
}
