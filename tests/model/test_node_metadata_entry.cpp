// node_metadata_entry_size / write_node_metadata_entry: the bytes a
// NodeProto with that metadata entry among its unknown fields serializes
// (what write_node_metadata stores), for keys and values whose lengths
// cross the one- and two-byte varint boundaries, the value in pieces.
#include <doctest/doctest.h>

#include <string>

#include "model/node_metadata.hpp"

using namespace mx;

TEST_CASE("node metadata entry: size and bytes as protobuf writes them") {
  for (size_t key_size : {0, 1, 17, 126, 127, 128}) {
    for (size_t value_size : {0, 1, 110, 111, 124, 125, 126, 127, 128, 16250, 16383, 16384, 20000}) {
      const std::string key(key_size, 'k');
      std::string value(value_size, 'v');
      for (size_t i = 0; i < value.size(); ++i) value[i] = static_cast<char>('a' + i % 26);
      onnx::NodeProto node;
      model::write_node_metadata(node, {{key, value}});
      const std::string expected = node.SerializeAsString();
      CAPTURE(key_size);
      CAPTURE(value_size);
      REQUIRE(model::node_metadata_entry_size(key, value.size()) == expected.size());
      std::string written(expected.size(), '\0');
      const std::string_view v(value);
      const size_t half = v.size() / 2;
      char* end = model::write_node_metadata_entry(written.data(), key,
                                                   {v.substr(0, half), "", v.substr(half)}, v.size());
      CHECK(static_cast<size_t>(end - written.data()) == expected.size());
      CHECK(written == expected);
      std::string appended;
      model::append_node_metadata_entry(appended, key, value);
      CHECK(appended == expected);
    }
  }
}
