// Small output helpers shared by subcommands.
#include <sys/stat.h>

#include <cstdio>
#include <sstream>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace mx::cli {

std::string evidence_mix(const nlohmann::json& statistics) {
  const double total = statistics.value("nodes", 0);
  std::ostringstream out;
  if (!statistics.contains("evidence") || total <= 0) return "no records";
  for (const auto& [kind, count] : statistics["evidence"].items()) {
    if (count.get<double>() <= 0) continue;
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * count.get<double>() / total);
    out << (out.tellp() > 0 ? ", " : "") << kind << " " << pct;
  }
  return out.str();
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

std::vector<std::string> save_targets(const std::string& out) {
  const std::string ext = ".onnx";
  std::string stem = out;
  if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
    stem.resize(stem.size() - ext.size());
  return {out, stem + ".hierarchy.json", out + ".data"};
}

void refuse_overwriting_source(const std::string& source, const std::vector<std::string>& targets) {
  for (const auto& target : targets)
    if (same_file(source, target))
      throw Error(MX_ERR_INVALID_ARGUMENT,
                  target + ": is the input " + source +
                      "; writing the output there would destroy it (choose another -o)");
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_file(path, text);
}

}  // namespace mx::cli
