// Strings copied once into large blocks that never move, handed out as
// views valid for the store's lifetime: for tables keyed by hundreds of
// thousands of short strings (module paths), where a std::string each cost
// an allocation, and a free at the end, per entry. Header-only, std only
// (the core and the strategy plugins share it).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace mx::common {

class StringBlocks {
 public:
  // A copy of `s` in the blocks ("" needs none).
  std::string_view store(std::string_view s) {
    if (s.empty()) return {};
    if (s.size() > left_) {
      const std::size_t size = std::max(kBlock, s.size());
      // Not make_unique<char[]>: it zero-fills the block, which store()
      // overwrites anyway (5-7 perf samples of the scope strategy at
      // 200,000 nodes, and every page touched once more).
      blocks_.push_back(std::unique_ptr<char[]>(new char[size]));
      next_ = blocks_.back().get();
      left_ = size;
    }
    char* at = next_;
    std::memcpy(at, s.data(), s.size());
    next_ += s.size();
    left_ -= s.size();
    return std::string_view(at, s.size());
  }

 private:
  static constexpr std::size_t kBlock = 1 << 16;  // bytes per block
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

}  // namespace mx::common
