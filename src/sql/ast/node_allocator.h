// Allocation of AST nodes. Parsing allocates many small nodes and frees them all together when a
// statement is dropped; per-thread free lists by size class make both cheap. AST base classes
// route their operator new/delete here, so ownership stays plain std::unique_ptr.
#pragma once

#include <cassert>
#include <cstddef>

namespace hop::sql {

// Returns storage for `size` bytes; never null (throws std::bad_alloc like operator new).
void* AllocateNode(size_t size);
// Returns storage obtained from AllocateNode(size), on any thread.
void FreeNode(void* p, size_t size) noexcept;

// Mixed into AST base classes (which have virtual destructors, so the size passed to delete is
// the dynamic type's).
struct PooledNode {
  static void* operator new(size_t size) { return AllocateNode(size); }
  static void operator delete(void* p, size_t size) noexcept { FreeNode(p, size); }
};

// The downcast behind every AST base's As<T>(): `node` must be a T. Casting a node to a type it
// is not is a bug of the caller, which debug builds catch here (nodes are polymorphic).
template <typename T, typename Base>
const T& CheckedCast(const Base& node) {
  assert(dynamic_cast<const T*>(&node) != nullptr && "As<T>() on an AST node of another type");
  return static_cast<const T&>(node);
}
template <typename T, typename Base>
T& CheckedCast(Base& node) {
  assert(dynamic_cast<T*>(&node) != nullptr && "As<T>() on an AST node of another type");
  return static_cast<T&>(node);
}

}  // namespace hop::sql
