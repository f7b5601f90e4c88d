// libFuzzer target over the YAML and JSON codecs: parsing any bytes ends in documents or a Parse
// Error (never a crash, a hang or another error), every parsed document emits to YAML that
// parses back to the same document, and the documents' compact JSON stays within the bound that
// yaml.h documents: kMaxJsonBytesPerTextByte per byte of text plus what aliases may copy
// (HOP_MAX_EXPANDED_BYTES, set small here so that the alias bound is reached). The fast JSON
// parser of stored objects (resource/json_parse.h) gives Json::parse's document whenever it gives
// one, and refuses nothing Json::parse accepts but what it leaves to it. Likewise the libyaml
// reader of common YAML (ReadPlainYaml) gives yaml-cpp's reader's documents whenever both read
// the text (libyaml reads some valid YAML yaml-cpp refuses: resource/yaml.h).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/limits.h"
#include "resource/json_parse.h"
#include "resource/yaml.h"

namespace {
constexpr size_t kExpandedLimit = 64 * 1024;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  hop::Limits limits = hop::CurrentLimits();
  limits.max_expanded_bytes = kExpandedLimit;
  hop::SetLimits(limits);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto docs = hop::ParseYamlDocuments(text, "fuzz");
  if (docs.ok()) {
    if (auto plain = hop::ReadPlainYaml(text)) {
      auto theirs = hop::ParseYamlDocumentsWithYamlCpp(text, "fuzz");
      bool same = !theirs.ok() || theirs->size() == plain->size();
      for (size_t i = 0; theirs.ok() && same && i < plain->size(); ++i) {
        same = (*plain)[i].dump() == (*theirs)[i].dump();
      }
      if (!same) {
        std::fprintf(stderr, "libyaml's reader gives other documents than yaml-cpp's\n");
        std::abort();
      }
    }
  }
  if (!docs.ok()) {
    if (docs.status().code() != hop::StatusCode::kParse) {
      std::fprintf(stderr, "unexpected error: %s\n", docs.status().ToString().c_str());
      std::abort();
    }
  } else {
    size_t json_bytes = 0;
    for (const auto& doc : *docs) json_bytes += hop::EmitJson(doc, -1).size();
    const size_t bound = hop::kMaxJsonBytesPerTextByte * size + kExpandedLimit;
    if (json_bytes > bound) {
      std::fprintf(stderr, "%zu bytes of YAML parsed to %zu bytes of JSON, more than %zu\n", size,
                   json_bytes, bound);
      std::abort();
    }
    const std::string emitted = hop::EmitYamlDocuments(*docs);
    auto back = hop::ParseYamlDocuments(emitted, "emitted");
    if (!back.ok() || back->size() != docs->size()) {
      std::fprintf(stderr, "emitted YAML does not parse back:\n%s\n%s\n", emitted.c_str(),
                   back.ok() ? "(document count differs)" : back.status().ToString().c_str());
      std::abort();
    }
    for (size_t i = 0; i < docs->size(); ++i) {
      // Compare dumps: NaN never equals itself, and dumps compare number spellings too.
      if ((*docs)[i].dump() != (*back)[i].dump()) {
        std::fprintf(stderr, "round trip changed document %zu:\n%s\n", i, emitted.c_str());
        std::abort();
      }
    }
  }
  auto json = hop::ParseJson(text, "fuzz");
  if (json.ok()) (void)hop::EmitJson(*json, 2);
  if (auto fast = hop::resource::FastParseJson(text)) {
    const auto theirs = nlohmann::ordered_json::parse(text, nullptr, false);
    // Dumps compare number spellings too (1 and 1.0 dump differently).
    if (theirs.is_discarded() || fast->dump() != theirs.dump()) {
      std::fprintf(stderr, "the fast JSON parser differs from Json::parse\n");
      std::abort();
    }
  }
  return 0;
}
