// Small output helpers shared by subcommands.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace modelexport::cli {

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

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) throw Error(MX_ERR_IO, path + ": cannot create file: " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() &&
                       std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    throw Error(MX_ERR_IO, path + ": write failed: " + reason);
  }
}

}  // namespace modelexport::cli
