// The fields of the hierarchy document (docs/hierarchy-schema.md), declared
// once: the reader (document_reader.cpp) checks and stores them by these
// rows and reports problems in their order; the writer (document_text.cpp)
// writes them in the same order and treats every other key as unknown
// (carried in `extra`). A new field is a row here, its member in
// document.hpp, one `case` in the reader's store and one line in the writer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mx::hierarchy {

// What a field's value must be; the reader's type checks and messages
// follow from it.
enum class ValueKind {
  string,          // a string
  string_or_null,  // a string; null reads as absent ("parent" of the root)
  strings,         // an array of strings
  count,           // an integer >= 0; null reads as absent
  integer,         // an integer; null reads as absent
  position,        // a node position, 0 to 2^31-1; null reads as absent
  boolean,         // true or false
  evidence,        // one of the evidence names (evidence.hpp)
  forward,         // a forward outline (array of steps); null reads as absent
  any,             // any JSON value, kept as it is
  modules,         // the array of module entries
  records,         // the array of node records
};

struct FieldSpec {
  std::string_view key;
  ValueKind kind;
  bool required;
};

// Rows in schema order, which is the order the writer writes them and the
// order in which the reader reports an entry's problems. The enums below
// name the rows (their values are the row positions).
inline constexpr FieldSpec kModuleFields[] = {
    {"path", ValueKind::string, true},
    {"class", ValueKind::string, true},
    {"qualified_class", ValueKind::string, false},
    {"parent", ValueKind::string_or_null, false},
    {"children", ValueKind::strings, false},
    {"tag", ValueKind::string, false},
    {"parameters", ValueKind::count, false},
    {"own_parameters", ValueKind::count, false},
    {"executed", ValueKind::boolean, false},
    {"execution_order", ValueKind::integer, false},
    {"forward", ValueKind::forward, false},
};
enum class ModuleField {
  path,
  class_name,
  qualified_class,
  parent,
  children,
  tag,
  parameters,
  own_parameters,
  executed,
  execution_order,
  forward
};

// "name" is not required of a record that travels alone (the caller knows
// its node: node metadata, doc_string, mx_model_set_node_record).
inline constexpr FieldSpec kRecordFields[] = {
    {"name", ValueKind::string, true},       {"index", ValueKind::position, false},
    {"module", ValueKind::string, true},     {"tag", ValueKind::string, false},
    {"evidence", ValueKind::evidence, true},
};
enum class RecordField { name, index, module, tag, evidence };

// "statistics" is derived data: read (any value) and dropped, recomputed
// on every write.
inline constexpr FieldSpec kDocumentFields[] = {
    {"schema", ValueKind::string, true}, {"producer", ValueKind::any, false},
    {"model", ValueKind::any, false},    {"modules", ValueKind::modules, true},
    {"nodes", ValueKind::records, true}, {"statistics", ValueKind::any, false},
};
enum class DocumentField { schema, producer, model, modules, nodes, statistics };

// A table of rows and its size.
struct FieldTable {
  const FieldSpec* rows;
  size_t size;

  template <size_t N>
  constexpr FieldTable(const FieldSpec (&table)[N]) : rows(table), size(N) {}
  // The row of `key`, or size when the key is unknown.
  size_t find(std::string_view key) const {
    for (size_t i = 0; i < size; ++i)
      if (rows[i].key == key) return i;
    return size;
  }
  bool knows(std::string_view key) const { return find(key) < size; }
};

inline constexpr FieldTable kModuleTable{kModuleFields};
inline constexpr FieldTable kRecordTable{kRecordFields};
inline constexpr FieldTable kDocumentTable{kDocumentFields};

}  // namespace mx::hierarchy
