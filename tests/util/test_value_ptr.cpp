// ValuePtr, the copying owning pointer behind hierarchy::Module's details:
// copies are deep (a copied document edits its own details), moves hand
// the value over, and a module that never had details copies as null.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include "hierarchy/document.hpp"
#include "util/value_ptr.hpp"

using mx::ValuePtr;
using mx::hierarchy::Module;

TEST_CASE("value ptr: null until made; copies are deep; moves take the value") {
  ValuePtr<std::string> a;
  CHECK(a.get() == nullptr);
  a.make() = "x";
  CHECK(&a.make() == a.get());  // made once
  ValuePtr<std::string> b = a;
  REQUIRE(b.get() != nullptr);
  CHECK(b.get() != a.get());
  b.make() += "y";
  CHECK(*a.get() == "x");
  CHECK(*b.get() == "xy");
  a = b;
  CHECK(*a.get() == "xy");
  a = a;  // self-assignment keeps the value
  CHECK(*a.get() == "xy");
  ValuePtr<std::string> c = std::move(b);
  CHECK(*c.get() == "xy");
  a = ValuePtr<std::string>();  // assigning a null one empties
  CHECK(a.get() == nullptr);
}

TEST_CASE("module: details read as empty when absent and are copied with the module") {
  // A vector of modules grows by moving them (noexcept), not copying.
  static_assert(std::is_nothrow_move_constructible_v<Module>);
  Module m;
  CHECK_FALSE(m.has_details());
  CHECK(m.qualified_class().empty());
  CHECK_FALSE(m.parameters());
  CHECK_FALSE(m.executed());
  CHECK_FALSE(m.forward());
  CHECK(m.extra().is_null());
  CHECK_FALSE(m.has_details());  // reading does not make them
  Module plain = m;
  CHECK_FALSE(plain.has_details());

  m.details().qualified_class = "torch.nn.Linear";
  m.details().executed = false;
  Module copy = m;
  copy.details().qualified_class = "x.Other";
  CHECK(m.qualified_class() == "torch.nn.Linear");
  CHECK(copy.qualified_class() == "x.Other");
  CHECK(copy.executed() == false);
  Module moved = std::move(copy);
  CHECK(moved.qualified_class() == "x.Other");
}
