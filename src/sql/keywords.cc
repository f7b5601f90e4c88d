// Keyword lookup: a fixed-size open-addressing table keyed by the upper-cased word, built once.
// The lexer calls LookupKeyword for every unquoted word, so it must not allocate.
#include "sql/keywords.h"

#include <array>

#include "common/strings.h"

namespace hop::sql {
namespace {

struct KeywordInfo {
  std::string_view text;
  bool reserved;
};

constexpr KeywordInfo kKeywords[] = {{"", false},
#define HOP_KW_R(x) {#x, true},
#define HOP_KW_N(x) {#x, false},
                                     HOP_SQL_KEYWORDS(HOP_KW_R, HOP_KW_N)
#undef HOP_KW_R
#undef HOP_KW_N
};
static_assert(std::size(kKeywords) == static_cast<size_t>(Keyword::kCount));

constexpr size_t kMaxKeywordLength = 20;

constexpr bool KeywordsFit() {
  for (const auto& k : kKeywords) {
    if (k.text.size() > kMaxKeywordLength) return false;
  }
  return true;
}
static_assert(KeywordsFit(), "raise kMaxKeywordLength");

// Keywords bucketed by length and upper-cased first letter, computed at compile time: a lookup
// compares the word with the few keywords of its bucket, and most words meet an empty bucket.
struct Buckets {
  // For bucket (length, letter): keyword indexes in order[begin[b] .. begin[b + 1]).
  static constexpr size_t kCount = (kMaxKeywordLength + 1) * 26;
  uint16_t begin[kCount + 1] = {};
  uint16_t order[std::size(kKeywords)] = {};

  static constexpr size_t BucketOf(size_t length, char first) {
    return length * 26 + static_cast<size_t>(first - 'A');
  }

  constexpr Buckets() {
    uint16_t counts[kCount] = {};
    for (size_t i = 1; i < std::size(kKeywords); ++i) {
      ++counts[BucketOf(kKeywords[i].text.size(), kKeywords[i].text[0])];
    }
    uint16_t total = 0;
    for (size_t b = 0; b < kCount; ++b) {
      begin[b] = total;
      total = static_cast<uint16_t>(total + counts[b]);
    }
    begin[kCount] = total;
    uint16_t fill[kCount] = {};
    for (size_t i = 1; i < std::size(kKeywords); ++i) {
      size_t b = BucketOf(kKeywords[i].text.size(), kKeywords[i].text[0]);
      order[begin[b] + fill[b]++] = static_cast<uint16_t>(i);
    }
  }
};

constexpr Buckets kBuckets;

// Every keyword's text in 8-byte chunks, zero-padded, for LookupKeyword's comparison.
constexpr size_t kChunks = (kMaxKeywordLength + 7) / 8;
constexpr void PackInto(uint64_t* chunks, size_t i, char c) {
  chunks[i / 8] |= static_cast<uint64_t>(static_cast<unsigned char>(c)) << (8 * (i % 8));
}
struct Packed {
  uint64_t chunks[std::size(kKeywords)][kChunks] = {};
  constexpr Packed() {
    for (size_t i = 0; i < std::size(kKeywords); ++i) {
      for (size_t j = 0; j < kKeywords[i].text.size(); ++j)
        PackInto(chunks[i], j, kKeywords[i].text[j]);
    }
  }
};
constexpr Packed kPacked;

}  // namespace

Keyword LookupKeyword(std::string_view word) {
  if (word.size() < 2 || word.size() > kMaxKeywordLength) return Keyword::kNone;
  const char first = AsciiUpper(word[0]);
  if (first < 'A' || first > 'Z') return Keyword::kNone;
  const size_t b = Buckets::BucketOf(word.size(), first);
  uint16_t k = kBuckets.begin[b];
  const uint16_t end = kBuckets.begin[b + 1];
  if (k == end) return Keyword::kNone;
  // Compare in 8-byte chunks against the keywords' upper-case text, zero-padded.
  uint64_t chunks[kChunks] = {};
  for (size_t i = 0; i < word.size(); ++i) PackInto(chunks, i, AsciiUpper(word[i]));
  for (; k < end; ++k) {
    const uint16_t idx = kBuckets.order[k];
    const uint64_t* kw = kPacked.chunks[idx];
    bool same = true;
    for (size_t c = 0; c < kChunks; ++c) same &= kw[c] == chunks[c];
    if (same) return static_cast<Keyword>(idx);
  }
  return Keyword::kNone;
}

std::string_view KeywordText(Keyword kw) { return kKeywords[static_cast<size_t>(kw)].text; }

bool IsReserved(Keyword kw) { return kKeywords[static_cast<size_t>(kw)].reserved; }

}  // namespace hop::sql
