// Thread-local free lists of AST node storage, one per 16-byte size class up to 512 bytes. A
// freed block goes onto the freeing thread's list; each list keeps at most kMaxKept blocks, so a
// thread retains at most a few megabytes after an unusually large statement.
#include "sql/ast/node_allocator.h"

#include <new>

namespace hop::sql {
namespace {

constexpr size_t kGranule = 16;
constexpr size_t kClasses = 32;  // sizes up to 512 bytes
constexpr size_t kMaxKept = 4096;

struct FreeBlock {
  FreeBlock* next;
};

struct FreeLists {
  FreeBlock* head[kClasses] = {};
  size_t count[kClasses] = {};
  ~FreeLists() {
    for (size_t c = 0; c < kClasses; ++c) {
      while (FreeBlock* b = head[c]) {
        head[c] = b->next;
        ::operator delete(b);
      }
    }
  }
};

thread_local FreeLists t_lists;

// Under AddressSanitizer every node goes straight to the system allocator, so that use after free
// and leaks of nodes stay visible.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooling = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooling = false;
#else
constexpr bool kPooling = true;
#endif
#else
constexpr bool kPooling = true;
#endif

size_t ClassOf(size_t size) { return (size + kGranule - 1) / kGranule - 1; }

}  // namespace

void* AllocateNode(size_t size) {
  const size_t c = ClassOf(size);
  if (!kPooling || c >= kClasses) return ::operator new(size);
  FreeLists& lists = t_lists;
  if (FreeBlock* b = lists.head[c]) {
    lists.head[c] = b->next;
    --lists.count[c];
    return b;
  }
  return ::operator new((c + 1) * kGranule);
}

void FreeNode(void* p, size_t size) noexcept {
  if (p == nullptr) return;
  const size_t c = ClassOf(size);
  FreeLists& lists = t_lists;
  if (!kPooling || c >= kClasses || lists.count[c] >= kMaxKept) {
    ::operator delete(p);
    return;
  }
  auto* b = static_cast<FreeBlock*>(p);
  b->next = lists.head[c];
  lists.head[c] = b;
  ++lists.count[c];
}

}  // namespace hop::sql
