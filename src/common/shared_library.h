// A system library loaded on first use instead of linked, so that a command that never needs
// it does not pay for mapping it and its dependencies at start (docs/architecture.md, "Start-up").
// Used for libpq (catalog/libpq.h) and libssl (common/tls.h). A library, once opened, stays
// loaded for the life of the process.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace hop {

class SharedLibrary {
 public:
  // Opens `soname`. Errors: Unavailable, "<purpose> needs <soname>, which cannot be loaded: ...".
  static Result<SharedLibrary> Open(const char* soname, std::string_view purpose);

  // Looks up `name` into the function pointer `fn` (null when missing; see status()).
  template <typename Fn>
  void Bind(Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(Symbol(name));
  }
  // OK, or Unavailable naming the first function Bind did not find.
  Status status() const;

 private:
  SharedLibrary(void* handle, const char* soname) : handle_(handle), soname_(soname) {}
  void* Symbol(const char* name);

  void* handle_;
  std::string soname_;
  std::string missing_;
};

}  // namespace hop
