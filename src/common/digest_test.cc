#include "common/digest.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <random>

namespace hop::digest {
namespace {

template <typename Hash>
std::string HexOf(std::string_view data) {
  return Hex(Of<Hash>(data));
}

TEST(DigestTest, PublishedVectors) {
  EXPECT_EQ(HexOf<Md5>(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(HexOf<Md5>("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(HexOf<Md5>(
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
  EXPECT_EQ(HexOf<Sha1>("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(HexOf<Sha1>("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(HexOf<Sha256>(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(HexOf<Sha256>("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HexOf<Sha256>("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(HexOf<Sha512>("abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  // RFC 4231, test case 2.
  EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // RFC 7914, section 11 (PBKDF2-HMAC-SHA-256).
  EXPECT_EQ(Hex(Pbkdf2HmacSha256("passwd", "salt", 1)),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc");
}

TEST(DigestTest, MatchesOpenSslAtEveryLengthAndSplit) {
  std::mt19937 random(7);
  std::string data;
  for (size_t n = 0; n <= 300; ++n) {
    data.push_back(static_cast<char>(random()));
    const size_t split = n == 0 ? 0 : random() % (n + 1);
    auto check = [&](auto hash, const EVP_MD* md) {
      hash.Update(std::string_view(data).substr(0, split));
      hash.Update(std::string_view(data).substr(split));
      const auto ours = hash.Final();
      unsigned char theirs[EVP_MAX_MD_SIZE];
      unsigned int size = 0;
      ASSERT_EQ(EVP_Digest(data.data(), data.size(), theirs, &size, md, nullptr), 1);
      ASSERT_EQ(size, ours.size());
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(ours.data()), ours.size()),
                std::string(reinterpret_cast<const char*>(theirs), size))
          << "length " << data.size() << ", split at " << split;
    };
    check(Md5(), EVP_md5());
    check(Sha1(), EVP_sha1());
    check(Sha256(), EVP_sha256());
    check(Sha512(), EVP_sha512());
  }
}

TEST(DigestTest, HmacAndPbkdf2MatchOpenSslForKeysOfEveryLength) {
  std::mt19937 random(11);
  for (size_t key_size : {0, 1, 31, 32, 63, 64, 65, 200}) {
    std::string key, salt, data;
    for (size_t i = 0; i < key_size; ++i) key.push_back(static_cast<char>(random()));
    for (int i = 0; i < 16; ++i) salt.push_back(static_cast<char>(random()));
    for (int i = 0; i < 100; ++i) data.push_back(static_cast<char>(random()));
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &size);
    EXPECT_EQ(HmacSha256(key, data), std::string(reinterpret_cast<const char*>(mac), size));
    unsigned char derived[32];
    PKCS5_PBKDF2_HMAC(key.data(), static_cast<int>(key.size()),
                      reinterpret_cast<const unsigned char*>(salt.data()),
                      static_cast<int>(salt.size()), 4096, EVP_sha256(), sizeof derived, derived);
    EXPECT_EQ(Pbkdf2HmacSha256(key, salt, 4096),
              std::string(reinterpret_cast<const char*>(derived), sizeof derived));
  }
}

TEST(DigestTest, HexAndConstantTimeEqual) {
  EXPECT_EQ(Hex(std::string("\x00\xab\xff", 3)), "00abff");
  EXPECT_EQ(Hex(std::string("\x00\xab\xff", 3), /*upper=*/true), "00ABFF");
  EXPECT_TRUE(ConstantTimeEqual("secret", "secret"));
  EXPECT_FALSE(ConstantTimeEqual("secret", "secreT"));
  EXPECT_FALSE(ConstantTimeEqual("secret", "secrets"));
  EXPECT_TRUE(ConstantTimeEqual("", ""));
}

}  // namespace
}  // namespace hop::digest
