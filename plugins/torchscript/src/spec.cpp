#include "spec.hpp"

#include <cctype>
#include <charconv>

#include "exporter.hpp"
#include "modelexport/modelexport.h"

namespace mx::torchscript {
namespace {
std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}
[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw Error(MX_ERR_INVALID_ARGUMENT, "bad input spec '" + text + "': " + why +
                                           " (expected name:dtype[dim,...], e.g. "
                                           "input_ids:int64[batch=2,seq=16])");
}
}  // namespace

InputSpec parse_input_spec(const std::string& text) {
  InputSpec s;
  s.text = text;
  auto colon = text.find(':');
  if (colon == std::string::npos) bad(text, "missing ':'");
  s.name = trim(text.substr(0, colon));
  if (s.name.empty()) bad(text, "empty name");
  std::string rest = text.substr(colon + 1);
  auto lb = rest.find('['), rb = rest.rfind(']');
  if (lb == std::string::npos || rb == std::string::npos || rb < lb) bad(text, "missing [dims]");
  if (!trim(rest.substr(rb + 1)).empty()) bad(text, "text after ']'");
  std::string dt = trim(rest.substr(0, lb));
  if (dt == "float" || dt == "float32") s.dtype = "float32";
  else if (dt == "half" || dt == "float16") s.dtype = "float16";
  else if (dt == "double" || dt == "float64") s.dtype = "float64";
  else if (dt == "long" || dt == "int64") s.dtype = "int64";
  else if (dt == "int" || dt == "int32") s.dtype = "int32";
  else if (dt == "bool") s.dtype = "bool";
  // As the .pt2 frontend: complex values live inside the graph only (an
  // ONNX input of complex type is one no runtime computes with).
  else if (dt.rfind("complex", 0) == 0)
    bad(text,
        "a complex input is not supported (give the model torch.view_as_real(x) and call "
        "torch.view_as_complex on it inside)");
  else bad(text, "unknown dtype '" + dt + "'");
  std::string dims = rest.substr(lb + 1, rb - lb - 1);
  if (trim(dims).empty()) return s;  // scalar
  size_t pos = 0;
  while (pos <= dims.size()) {
    size_t comma = dims.find(',', pos);
    if (comma == std::string::npos) comma = dims.size();
    std::string d = trim(dims.substr(pos, comma - pos));
    DimSpec ds;
    auto eq = d.find('=');
    std::string num = d;
    if (eq != std::string::npos) {
      ds.name = trim(d.substr(0, eq));
      num = trim(d.substr(eq + 1));
      if (ds.name.empty()) bad(text, "empty dimension name");
    }
    if (num.empty()) bad(text, "empty dimension");
    for (char c : num)
      if (!std::isdigit(static_cast<unsigned char>(c))) bad(text, "dimension '" + d + "' is not a number");
    // from_chars reports overflow instead of throwing (std::stoll threw
    // std::out_of_range past this parser: fuzz/corpus/input_spec/seed4.txt).
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), ds.size);
    if (ec != std::errc() || end != num.data() + num.size())
      bad(text, "dimension '" + d + "' does not fit in a 64-bit integer");
    s.dims.push_back(ds);
    pos = comma + 1;
  }
  return s;
}

}  // namespace mx::torchscript
