// An owning pointer that copies what it points to: a member that is mostly
// absent (null, one pointer wide) but, when present, belongs to its owner
// by value, so the owner keeps its generated copy and move operations
// (hierarchy::Module's rarely filled schema fields). Hand-written because
// neither the standard library (std::indirect is C++26) nor Boost 1.74 has
// one: boost::recursive_wrapper always allocates, and a unique_ptr member
// would make every owner write out its copy constructor and assignment
// field by field.
#pragma once
#include <memory>
#include <utility>

namespace mx {

template <typename T>
class ValuePtr {
 public:
  ValuePtr() = default;
  ValuePtr(const ValuePtr& other) : p_(other.p_ ? std::make_unique<T>(*other.p_) : nullptr) {}
  ValuePtr(ValuePtr&&) noexcept = default;
  ValuePtr& operator=(const ValuePtr& other) {
    if (this != &other) p_ = other.p_ ? std::make_unique<T>(*other.p_) : nullptr;
    return *this;
  }
  ValuePtr& operator=(ValuePtr&&) noexcept = default;

  const T* get() const { return p_.get(); }
  T* get() { return p_.get(); }
  // The value, made (default-constructed) when there is none.
  T& make() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace mx
