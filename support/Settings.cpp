/// \file
/// Reads the settings table from the environment. Malformed values fall back
/// to the default with a warning on standard error (logging may not be up
/// yet, since the log level is itself a setting).
#include "support/Settings.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace ferry {

const std::vector<SettingInfo> &Settings::table() {
  static const std::vector<SettingInfo> Table = {
#define FERRY_SETTING(Id, Env, Type, Default, Doc) {#Id, Env, SettingType::Type, Default, Doc},
#include "support/Settings.def"
#undef FERRY_SETTING
  };
  return Table;
}

static bool parseBool(const std::string &S, bool &Out) {
  if (S == "1" || S == "true" || S == "yes" || S == "on" || S == "TRUE" || S == "ON") {
    Out = true;
    return true;
  }
  if (S == "0" || S == "false" || S == "no" || S == "off" || S == "FALSE" || S == "OFF" ||
      S.empty()) {
    Out = false;
    return true;
  }
  return false;
}

static bool parseInt(const std::string &S, int64_t &Out) {
  if (S.empty())
    return false;
  char *End = nullptr;
  long long V = std::strtoll(S.c_str(), &End, 0);
  if (*End != '\0')
    return false;
  Out = V;
  return true;
}

Settings::Settings() {
  const auto &T = table();
  Values.resize(T.size());
  Set.resize(T.size());
  for (size_t I = 0; I < T.size(); ++I) {
    const char *Env = std::getenv(T[I].EnvName);
    Set[I] = Env != nullptr;
    std::string V = Env ? Env : T[I].Default;
    bool B;
    int64_t N;
    bool Ok = T[I].Type == SettingType::String ||
              (T[I].Type == SettingType::Bool && parseBool(V, B)) ||
              (T[I].Type == SettingType::Int && parseInt(V, N));
    if (!Ok) {
      std::fprintf(stderr, "ferry: ignoring %s='%s' (not a valid %s); using '%s'\n",
                   T[I].EnvName, V.c_str(),
                   T[I].Type == SettingType::Bool ? "boolean" : "integer", T[I].Default);
      V = T[I].Default;
    }
    Values[I] = V;
  }
}

static std::unique_ptr<Settings> &instance() {
  static std::unique_ptr<Settings> S;
  return S;
}
static std::once_flag InitOnce;

const Settings &Settings::get() {
  std::call_once(InitOnce, [] { instance().reset(new Settings()); });
  return *instance();
}

void Settings::reload() {
  get();
  instance().reset(new Settings());
}

bool Settings::getBool(Key K) const {
  bool B = false;
  parseBool(Values[size_t(K)], B);
  return B;
}

int64_t Settings::getInt(Key K) const {
  int64_t N = 0;
  parseInt(Values[size_t(K)], N);
  return N;
}

const std::string &Settings::getString(Key K) const { return Values[size_t(K)]; }

bool Settings::isSet(Key K) const { return Set[size_t(K)]; }

} // namespace ferry
