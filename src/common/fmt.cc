// fmt's compiled part, built once for the whole tree. The rest of hop includes fmt's headers
// without FMT_HEADER_ONLY, so they declare fmt's formatting core (vformat, the float writer, the
// error reporting) instead of defining it inline; each translation unit had been compiling and
// optimising that core anew, three to five seconds of compiler time per file. This file defines
// it, and the templates fmt's headers declare `extern` or leave to one instantiation are
// instantiated here for `char`. fmt stays linked in from source: `hop` maps no libfmt at start
// (docs/architecture.md, "Start-up").
#include <fmt/format-inl.h>

#include <locale>

FMT_BEGIN_NAMESPACE
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;

template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;

}  // namespace detail
FMT_END_NAMESPACE
