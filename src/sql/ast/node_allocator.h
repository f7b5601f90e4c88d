// Allocation of AST nodes. Parsing allocates many small nodes and frees them all together when a
// statement is dropped; per-thread free lists by size class make both cheap. AST base classes
// route their operator new/delete here, so ownership stays plain std::unique_ptr.
#pragma once

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

}  // namespace hop::sql
