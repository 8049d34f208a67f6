// Tests of support/: Expected, settings, log configuration, hashing.
#include "support/Expected.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "support/Settings.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace ferry;

static Expected<int> half(int X) {
  if (X % 2)
    return makeError(CUDA_ERROR_INVALID_VALUE, "odd input " + std::to_string(X));
  return X / 2;
}

TEST(Expected, CarriesValueOrError) {
  auto A = half(8);
  ASSERT_TRUE(bool(A));
  EXPECT_EQ(*A, 4);
  EXPECT_EQ(A.code(), CUDA_SUCCESS);
  auto B = half(3);
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(B.code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(B.error().message(), "odd input 3");
}

TEST(Expected, StatusDefaultsToOk) {
  Status S;
  EXPECT_TRUE(bool(S));
  Status F = makeError(CUDA_ERROR_NOT_SUPPORTED, "nope");
  EXPECT_FALSE(bool(F));
  EXPECT_EQ(F.code(), CUDA_ERROR_NOT_SUPPORTED);
}

TEST(Settings, ReadsEnvironmentAndFallsBackOnGarbage) {
  setenv("FERRY_SM", "90", 1);
  setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
  setenv("FERRY_HOST_THREADS", "lots", 1);
  Settings::reload();
  const auto &S = Settings::get();
  EXPECT_EQ(S.getInt(SettingKey::Sm), 90);
  EXPECT_TRUE(S.getBool(SettingKey::LaunchBlocking));
  EXPECT_EQ(S.getInt(SettingKey::HostThreads), 0); // the default
  unsetenv("FERRY_SM");
  unsetenv("CUDA_LAUNCH_BLOCKING");
  unsetenv("FERRY_HOST_THREADS");
  Settings::reload();
  EXPECT_EQ(Settings::get().getInt(SettingKey::Sm), 86);
  EXPECT_FALSE(Settings::get().isSet(SettingKey::Sm));
}

TEST(Settings, TableRowsAreComplete) {
  for (const auto &Row : Settings::table()) {
    EXPECT_NE(std::string(Row.EnvName), "");
    EXPECT_GT(std::string(Row.Doc).size(), 10u) << Row.EnvName;
  }
}

TEST(Log, ConfigureAcceptsCategoriesAndRejectsGarbage) {
  EXPECT_TRUE(log::configure("warn,api=trace,jit=debug"));
  EXPECT_EQ(log::api().level(), spdlog::level::trace);
  EXPECT_EQ(log::jit().level(), spdlog::level::debug);
  EXPECT_EQ(log::host().level(), spdlog::level::warn);
  EXPECT_FALSE(log::configure("api=loud"));
  EXPECT_EQ(log::api().level(), spdlog::level::trace); // unchanged
  EXPECT_FALSE(log::configure("nosuchcat=debug"));
  EXPECT_TRUE(log::configure("error"));
  EXPECT_EQ(log::cache().level(), spdlog::level::err);
}

TEST(Hash, Sha256KnownVectors) {
  // Both the SHA-extension blocks (where the CPU has them) and the
  // portable ones.
  for (bool Ext : {true, false}) {
    SCOPED_TRACE(Ext ? "cpu extensions" : "portable");
    Sha256::useCpuExtensions(Ext);
    EXPECT_EQ(Sha256::hex(Sha256::of("")),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(Sha256::hex(Sha256::of("abc")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    std::string Million(1000000, 'a');
    EXPECT_EQ(Sha256::hex(Sha256::of(Million)),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    // Incremental updates agree with one-shot hashing across block boundaries.
    Sha256 Inc;
    for (size_t I = 0; I < Million.size(); I += 999)
      Inc.update(Million.data() + I, std::min<size_t>(999, Million.size() - I));
    EXPECT_EQ(Sha256::hex(Inc.finish()), Sha256::hex(Sha256::of(Million)));
  }
  Sha256::useCpuExtensions(true);
}

TEST(Hash, Fnv1a) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_NE(fnv1a64("ab"), fnv1a64("ba"));
}

#include "support/Cache.h"

#include <filesystem>
#include <fstream>

namespace {
struct TempDir {
  std::filesystem::path Path;
  TempDir() {
    Path = std::filesystem::temp_directory_path() /
           ("ferry-cache-test-" + std::to_string(::getpid()) + "-" +
            std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::remove_all(Path);
  }
  ~TempDir() { std::filesystem::remove_all(Path); }
};
} // namespace

TEST(Cache, KeysSeparateTheirParts) {
  auto K1 = CodeCache::KeyBuilder().add("ab").add("c").finish();
  auto K2 = CodeCache::KeyBuilder().add("a").add("bc").finish();
  auto K3 = CodeCache::KeyBuilder().add("ab").add("c").finish();
  EXPECT_NE(K1, K2);
  EXPECT_EQ(K1, K3);
  EXPECT_EQ(K1.size(), 64u);
}

TEST(Cache, StoresLoadsAndRejectsCorruption) {
  TempDir T;
  CodeCache C(T.Path.string(), 0);
  auto Key = CodeCache::KeyBuilder().add("ptx").add("x86-64").finish();
  EXPECT_FALSE(C.load(Key).has_value());
  std::string Blob(10000, '\0');
  for (size_t I = 0; I < Blob.size(); ++I)
    Blob[I] = char(I * 7);
  C.store(Key, Blob);
  auto Got = C.load(Key);
  ASSERT_TRUE(Got.has_value());
  EXPECT_EQ(*Got, Blob);
  EXPECT_EQ(C.stats().Hits, 1u);
  // Flip one payload byte on disk: the entry must be rejected and removed.
  auto File = T.Path / Key.substr(0, 2) / (Key + ".bin");
  {
    std::fstream F(File, std::ios::in | std::ios::out | std::ios::binary);
    F.seekp(48 + 5000);
    F.put('X');
  }
  EXPECT_FALSE(C.load(Key).has_value());
  EXPECT_EQ(C.stats().Corrupt, 1u);
  EXPECT_FALSE(std::filesystem::exists(File));
  // Truncated entry: also a miss.
  C.store(Key, Blob);
  std::filesystem::resize_file(File, 100);
  EXPECT_FALSE(C.load(Key).has_value());
  EXPECT_EQ(C.stats().Corrupt, 2u);
}

TEST(Cache, EvictsLeastRecentlyUsedPastTheLimit) {
  TempDir T;
  CodeCache C(T.Path.string(), 3 * (1000 + 48));
  std::vector<std::string> Keys;
  for (int I = 0; I < 5; ++I) {
    Keys.push_back(CodeCache::KeyBuilder().add(std::to_string(I)).finish());
    C.store(Keys.back(), std::string(1000, char('a' + I)));
  }
  int Present = 0;
  for (auto &K : Keys)
    Present += std::filesystem::exists(T.Path / K.substr(0, 2) / (K + ".bin"));
  EXPECT_LE(Present, 3);
  EXPECT_GE(Present, 1);
}

TEST(Cache, DisabledCacheDoesNothing) {
  CodeCache C("", 0);
  EXPECT_FALSE(C.enabled());
  C.store("abcdef", "data");
  EXPECT_FALSE(C.load("abcdef").has_value());
}
