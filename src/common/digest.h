// The hashes hop computes itself: dependency label keys (SHA-256), the SQL md5/sha1/sha256
// functions, SCRAM-SHA-256 and md5 passwords for pgwire, and the OpenAPI v3 hashes (SHA-512).
// They are hop's own so that no command maps libcrypto for them (docs/architecture.md, "Start-up");
// digest_test.cc checks them against published test vectors and against OpenSSL.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hop::digest {

// Incremental hashers: Update any number of times, then Final once.
class Md5 {
 public:
  static constexpr size_t kSize = 16;
  static constexpr size_t kBlock = 64;
  Md5();
  void Update(std::string_view data);
  std::array<uint8_t, kSize> Final();

 private:
  void Compress(const uint8_t* block);
  uint32_t state_[4];
  uint8_t buffer_[kBlock];
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

class Sha1 {
 public:
  static constexpr size_t kSize = 20;
  static constexpr size_t kBlock = 64;
  Sha1();
  void Update(std::string_view data);
  std::array<uint8_t, kSize> Final();

 private:
  void Compress(const uint8_t* block);
  uint32_t state_[5];
  uint8_t buffer_[kBlock];
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

class Sha256 {
 public:
  static constexpr size_t kSize = 32;
  static constexpr size_t kBlock = 64;
  Sha256();
  void Update(std::string_view data);
  std::array<uint8_t, kSize> Final();

 private:
  void Compress(const uint8_t* block);
  uint32_t state_[8];
  uint8_t buffer_[kBlock];
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

class Sha512 {
 public:
  static constexpr size_t kSize = 64;
  static constexpr size_t kBlock = 128;
  Sha512();
  void Update(std::string_view data);
  std::array<uint8_t, kSize> Final();

 private:
  void Compress(const uint8_t* block);
  uint64_t state_[8];
  uint8_t buffer_[kBlock];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes; messages of 2^61 bytes or more are not hashed here
};

// One-shot forms, as raw bytes.
template <typename Hash>
std::string Of(std::string_view data) {
  Hash h;
  h.Update(data);
  const auto out = h.Final();
  return std::string(reinterpret_cast<const char*>(out.data()), out.size());
}

// HMAC-SHA-256 (RFC 2104) of `data` under `key`, raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);

// PBKDF2 with HMAC-SHA-256 (RFC 8018), one 32-byte block: SCRAM-SHA-256's SaltedPassword.
std::string Pbkdf2HmacSha256(std::string_view password, std::string_view salt, int iterations);

// Lower-case hex of raw bytes (upper-case when asked).
std::string Hex(std::string_view bytes, bool upper = false);

// Compares without stopping at the first difference, so the time taken says nothing about where
// a secret and a guess differ (only whether their lengths do).
bool ConstantTimeEqual(std::string_view a, std::string_view b);

}  // namespace hop::digest
