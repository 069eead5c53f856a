// models/model.json of a .pt2 archive as outside text: the schema checks,
// tensor metadata, signature and range constraints, then the lowering of
// every node (lowerability check, argument decoding, SymInts, nested
// bodies) with no weights. Oracle as in pt2_archive.
#include <cstdint>
#include <string>

#include "exporter.hpp"
#include "fuzz_common.hpp"
#include "program.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > mxfuzz::kMaxInput) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    mx::torch_export::Program p = mx::torch_export::parse_program("fuzz.pt2", text);
    mx::torch_export::lower_program_for_check(p);
  } catch (const mx::torch_export::Error& e) {
    if (e.code == MX_ERR_INTERNAL) {
      std::string what = e.what();
      if (what.find("ONNX checker") == std::string::npos && what.find("shape inference") == std::string::npos)
        mxfuzz::finding("pt2 program", what);
    }
  } catch (const std::exception& e) {
    mxfuzz::finding("pt2 program", std::string("unexpected exception: ") + e.what());
  }
  return 0;
}
