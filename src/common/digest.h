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

// Incremental hashers: Update any number of times, then Final once. The four share the
// Merkle-Damgard frame: input is buffered into blocks for `Derived::Compress`, and Final pads the
// last block with the message's length in bits (`kLengthBytes` of it, big-endian or, for MD5,
// little-endian) before `Derived::Output` writes the state out.
template <typename Derived, size_t kBlockBytes, size_t kDigestBytes, size_t kLengthBytes,
          bool kBigEndian>
class BlockHash {
 public:
  static constexpr size_t kSize = kDigestBytes;
  static constexpr size_t kBlock = kBlockBytes;
  void Update(std::string_view data);
  std::array<uint8_t, kSize> Final();

 private:
  uint8_t buffer_[kBlock];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes; messages of 2^61 bytes or more are not hashed here
};

class Md5 : public BlockHash<Md5, 64, 16, 8, false> {
 public:
  Md5();

 private:
  friend BlockHash;
  void Compress(const uint8_t* block);
  void Output(uint8_t* out) const;
  uint32_t state_[4];
};

class Sha1 : public BlockHash<Sha1, 64, 20, 8, true> {
 public:
  Sha1();

 private:
  friend BlockHash;
  void Compress(const uint8_t* block);
  void Output(uint8_t* out) const;
  uint32_t state_[5];
};

class Sha256 : public BlockHash<Sha256, 64, 32, 8, true> {
 public:
  Sha256();

 private:
  friend BlockHash;
  void Compress(const uint8_t* block);
  void Output(uint8_t* out) const;
  uint32_t state_[8];
};

class Sha512 : public BlockHash<Sha512, 128, 64, 16, true> {
 public:
  Sha512();

 private:
  friend BlockHash;
  void Compress(const uint8_t* block);
  void Output(uint8_t* out) const;
  uint64_t state_[8];
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
