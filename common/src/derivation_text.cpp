#include "mx/common/derivation_text.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace mx::common {
namespace {

// The comma-separated items of `text`; nullopt when one is empty.
std::optional<std::vector<std::string>> items(std::string_view text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    const size_t comma = text.find(',', at);
    const std::string_view item = text.substr(at, comma == std::string_view::npos ? text.npos : comma - at);
    if (item.empty()) return std::nullopt;
    out.emplace_back(item);
    if (comma == std::string_view::npos) return out;
    at = comma + 1;
  }
}

}  // namespace

std::string permutation_text(const std::vector<int64_t>& perm) {
  std::string out;
  for (size_t i = 0; i < perm.size(); ++i) out += (i ? "," : "") + std::to_string(perm[i]);
  return out;
}

std::string channel_scale_text(const std::vector<float>& scale) {
  std::string out;
  char buf[48];
  for (size_t i = 0; i < scale.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%a", static_cast<double>(scale[i]));
    out += (i ? "," : "") + std::string(buf);
  }
  return out;
}

std::optional<std::vector<int64_t>> parse_permutation(std::string_view text) {
  auto parts = items(text);
  if (!parts) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& p : *parts) {
    if (p.size() > 18 || p.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    out.push_back(std::stoll(p));
  }
  return out;
}

std::optional<std::vector<float>> parse_channel_scale(std::string_view text) {
  auto parts = items(text);
  if (!parts) return std::nullopt;
  std::vector<float> out;
  for (const auto& p : *parts) {
    if (p.find_first_of(" \t\n\r\f\v") != std::string::npos) return std::nullopt;
    char* end = nullptr;
    const float v = std::strtof(p.c_str(), &end);
    if (end != p.c_str() + p.size()) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

}  // namespace mx::common
