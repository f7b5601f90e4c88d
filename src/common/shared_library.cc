#include "common/shared_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace hop {

Result<SharedLibrary> SharedLibrary::Open(const char* soname, std::string_view purpose) {
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(fmt::format("{} needs {}, which cannot be loaded: {}", purpose,
                                           soname, why != nullptr ? why : "not found"));
  }
  return SharedLibrary(handle, soname);
}

void* SharedLibrary::Symbol(const char* name) {
  void* p = dlsym(handle_, name);
  if (p == nullptr && missing_.empty()) missing_ = name;
  return p;
}

Status SharedLibrary::status() const {
  if (missing_.empty()) return Status::OK();
  return Status::Unavailable(fmt::format(
      "{} has no function {}: is it the version hop was built against?", soname_, missing_));
}

}  // namespace hop
