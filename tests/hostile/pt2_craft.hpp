// Crafting .pt2 archives for the hostile catalogue: a committed fixture
// (tests/fixtures/pt2) read entry by entry, changed in memory, written back
// as a stored zip as torch.export.save writes it (entries 64-byte aligned).
// Duplicate names are kept as given: writing them is a case of its own.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hostile_support.hpp"
#include "mx/common/zip_directory.hpp"

namespace mx::hostile {

struct Pt2 {
  std::string folder;                                        // "tiny_mlp/"
  std::vector<std::pair<std::string, std::string>> entries;  // name -> bytes, in zip order

  // The bytes of folder + `name` (the first entry of that name).
  std::string& at(const std::string& name) {
    for (auto& [n, bytes] : entries)
      if (n == folder + name) return bytes;
    FAIL("no entry " << folder + name);
    throw;
  }
  nlohmann::json json(const std::string& name) { return nlohmann::json::parse(at(name)); }
  void set_json(const std::string& name, const nlohmann::json& j) { at(name) = j.dump(); }
  // models/model.json with the string value "@@" replaced by `raw` JSON text.
  void set_program_with(const nlohmann::json& program, const std::string& raw) {
    std::string text = program.dump();
    const size_t at_mark = text.find("\"@@\"");
    REQUIRE(at_mark != std::string::npos);
    text.replace(at_mark, 4, raw);
    at("models/model.json") = std::move(text);
  }
};

inline Pt2 read_pt2(const fs::path& path) {
  const std::string bytes = read(path);
  const auto* base = reinterpret_cast<const unsigned char*>(bytes.data());
  Pt2 out;
  for (const auto& e : mx::common::read_zip_directory(base, bytes.size())) {
    const uint64_t at = mx::common::zip_data_offset(base, bytes.size(), e);
    out.entries.emplace_back(e.name, bytes.substr(at, e.size));
    if (e.name.size() > 15 && e.name.compare(e.name.size() - 15, 15, "/archive_format") == 0)
      out.folder = e.name.substr(0, e.name.size() - 14);
  }
  return out;
}

namespace zip_detail {
inline uint32_t crc32(const std::string& s) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}
inline void u16(std::string& o, uint32_t v) {
  o.push_back(char(v & 0xFF)), o.push_back(char((v >> 8) & 0xFF));
}
inline void u32(std::string& o, uint32_t v) {
  u16(o, v & 0xFFFF), u16(o, v >> 16);
}
}  // namespace zip_detail

inline void write_pt2(const fs::path& path, const Pt2& archive) {
  using namespace zip_detail;
  std::string out, central;
  for (const auto& [name, bytes] : archive.entries) {
    const uint32_t offset = static_cast<uint32_t>(out.size()), crc = crc32(bytes);
    // Extra field padding (id 0x4246, as PyTorch writes) to a 64-byte boundary.
    size_t pad = (64 - (out.size() + 30 + name.size() + 4) % 64) % 64;
    u32(out, 0x04034b50), u16(out, 20), u16(out, 0), u16(out, 0), u32(out, 0);
    u32(out, crc), u32(out, uint32_t(bytes.size())), u32(out, uint32_t(bytes.size()));
    u16(out, uint32_t(name.size())), u16(out, uint32_t(pad + 4));
    out += name;
    u16(out, 0x4246), u16(out, uint32_t(pad));
    out.append(pad, 'Z');
    out += bytes;
    u32(central, 0x02014b50), u16(central, 20), u16(central, 20), u16(central, 0), u16(central, 0),
        u32(central, 0);
    u32(central, crc), u32(central, uint32_t(bytes.size())), u32(central, uint32_t(bytes.size()));
    u16(central, uint32_t(name.size())), u16(central, 0), u16(central, 0), u16(central, 0), u16(central, 0);
    u32(central, 0), u32(central, offset);
    central += name;
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  u32(out, 0x06054b50), u16(out, 0), u16(out, 0), u16(out, uint32_t(archive.entries.size()));
  u16(out, uint32_t(archive.entries.size())), u32(out, uint32_t(central.size())), u32(out, cd_offset),
      u16(out, 0);
  write(path, out);
}

}  // namespace mx::hostile
