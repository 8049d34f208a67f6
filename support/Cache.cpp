/// \file
/// CodeCache: one file per entry, `<dir>/<key[0:2]>/<key>.bin`, holding a
/// 48-byte header (magic, format version, payload size, SHA-256 of the
/// payload) then the payload.
#include "support/Cache.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include "support/Log.h"
#include "support/Settings.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>
#include <vector>

namespace ferry {

namespace {
constexpr char Magic[8] = {'F', 'E', 'R', 'R', 'Y', 'C', 'C', '1'};
struct Header {
  char Magic[8];
  uint64_t Size;
  uint8_t Digest[32];
};
static_assert(sizeof(Header) == 48);
} // namespace

CodeCache::CodeCache(std::string Dir, uint64_t MaxBytes) : Dir(std::move(Dir)), MaxBytes(MaxBytes) {}

const std::string &CodeCache::buildIdentity() {
  static const std::string Id = [] {
    Dl_info Info{};
    if (!dladdr(reinterpret_cast<void *>(&CodeCache::buildIdentity), &Info) || !Info.dli_fname)
      return std::string("unknown-build");
    struct stat St {};
    std::string Out = Info.dli_fname;
    if (stat(Info.dli_fname, &St) == 0)
      Out += ":" + std::to_string(St.st_size) + ":" + std::to_string(St.st_mtim.tv_sec) + "." +
             std::to_string(St.st_mtim.tv_nsec);
    // Settings that change what the lowering produces.
    if (Settings::get().getBool(SettingKey::ExactF64Nan))
      Out += ";exact-f64-nan";
    return Out;
  }();
  return Id;
}

CodeCache &CodeCache::fromSettings() {
  static CodeCache *C = [] {
    const Settings &S = Settings::get();
    if (S.getBool(SettingKey::CacheDisable))
      return new CodeCache("", 0);
    std::string Dir = S.getString(SettingKey::CachePath);
    if (Dir.empty()) {
      if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
        Dir = std::string(Xdg) + "/ferry";
      else if (const char *Home = std::getenv("HOME"); Home && *Home)
        Dir = std::string(Home) + "/.cache/ferry";
    }
    int64_t Max = S.getInt(SettingKey::CacheMaxSize);
    return new CodeCache(Dir, Max > 0 ? uint64_t(Max) : 0);
  }();
  return *C;
}

CodeCache::KeyBuilder &CodeCache::KeyBuilder::add(std::string_view Part) {
  uint64_t N = Part.size(); // Length-prefixed, so ("ab","c") != ("a","bc").
  H.update(&N, sizeof(N));
  H.update(Part);
  return *this;
}

std::string CodeCache::KeyBuilder::finish() { return Sha256::hex(H.finish()); }

std::string CodeCache::pathFor(const std::string &Key) const {
  return Dir + "/" + Key.substr(0, 2) + "/" + Key + ".bin";
}

static bool makeDirs(const std::string &Path) {
  for (size_t I = 1; I <= Path.size(); ++I) {
    if (I == Path.size() || Path[I] == '/') {
      std::string Sub = Path.substr(0, I);
      if (mkdir(Sub.c_str(), 0755) != 0 && errno != EEXIST)
        return false;
    }
  }
  return true;
}

std::optional<std::string> CodeCache::load(const std::string &Key) {
  if (!enabled() || Key.size() < 2)
    return std::nullopt;
  std::string Path = pathFor(Key);
  FILE *F = std::fopen(Path.c_str(), "rb");
  if (!F) {
    ++Counters.Misses;
    return std::nullopt;
  }
  Header H;
  std::string Data;
  bool Ok = std::fread(&H, sizeof(H), 1, F) == 1 && std::memcmp(H.Magic, Magic, 8) == 0 &&
            H.Size < (uint64_t(1) << 34);
  if (Ok) {
    Data.resize(H.Size);
    Ok = std::fread(Data.data(), 1, H.Size, F) == H.Size && std::fgetc(F) == EOF;
  }
  std::fclose(F);
  if (Ok) {
    auto D = Sha256::of(Data);
    Ok = std::memcmp(D.data(), H.Digest, 32) == 0;
  }
  if (!Ok) {
    ++Counters.Corrupt;
    ++Counters.Misses;
    log::cache().warn("discarding corrupt cache entry {}", Path);
    unlink(Path.c_str());
    return std::nullopt;
  }
  ++Counters.Hits;
  utime(Path.c_str(), nullptr); // Recently used: keep it through eviction.
  return Data;
}

void CodeCache::store(const std::string &Key, std::string_view Data) {
  if (!enabled() || Key.size() < 2)
    return;
  std::string Path = pathFor(Key);
  std::string Parent = Path.substr(0, Path.rfind('/'));
  if (!makeDirs(Parent)) {
    log::cache().warn("cannot create cache directory {}: {}", Parent, std::strerror(errno));
    return;
  }
  static std::atomic<unsigned> Counter{0};
  std::string Tmp = Path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(Counter++);
  int Fd = open(Tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (Fd < 0) {
    log::cache().warn("cannot write cache entry {}: {}", Tmp, std::strerror(errno));
    return;
  }
  Header H;
  std::memcpy(H.Magic, Magic, 8);
  H.Size = Data.size();
  auto D = Sha256::of(Data);
  std::memcpy(H.Digest, D.data(), 32);
  bool Ok = write(Fd, &H, sizeof(H)) == ssize_t(sizeof(H));
  size_t Done = 0;
  while (Ok && Done < Data.size()) {
    ssize_t N = write(Fd, Data.data() + Done, Data.size() - Done);
    if (N <= 0)
      Ok = false;
    else
      Done += size_t(N);
  }
  Ok = close(Fd) == 0 && Ok;
  if (!Ok || rename(Tmp.c_str(), Path.c_str()) != 0) {
    log::cache().warn("cannot write cache entry {}: {}", Path, std::strerror(errno));
    unlink(Tmp.c_str());
    return;
  }
  ++Counters.Stores;
  evictIfNeeded();
}

void CodeCache::evictIfNeeded() {
  if (MaxBytes == 0)
    return;
  struct Entry {
    std::string Path;
    time_t MTime;
    uint64_t Size;
  };
  std::vector<Entry> Entries;
  uint64_t Total = 0;
  DIR *Top = opendir(Dir.c_str());
  if (!Top)
    return;
  while (dirent *Sub = readdir(Top)) {
    if (Sub->d_name[0] == '.')
      continue;
    std::string SubPath = Dir + "/" + Sub->d_name;
    DIR *D = opendir(SubPath.c_str());
    if (!D)
      continue;
    while (dirent *E = readdir(D)) {
      std::string P = SubPath + "/" + E->d_name;
      struct stat St;
      if (E->d_name[0] != '.' && stat(P.c_str(), &St) == 0 && S_ISREG(St.st_mode)) {
        Entries.push_back({P, St.st_mtime, uint64_t(St.st_size)});
        Total += uint64_t(St.st_size);
      }
    }
    closedir(D);
  }
  closedir(Top);
  if (Total <= MaxBytes)
    return;
  std::sort(Entries.begin(), Entries.end(),
            [](const Entry &A, const Entry &B) { return A.MTime < B.MTime; });
  for (const Entry &E : Entries) {
    if (Total <= MaxBytes)
      break;
    if (unlink(E.Path.c_str()) == 0)
      Total -= E.Size;
  }
}

} // namespace ferry
