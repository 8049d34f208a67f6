/// \file
/// Typed access to the settings table in Settings.def. Values are read from
/// the environment once, on first use, and are then immutable; tests may
/// call Settings::reload() after changing the environment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ferry {

enum class SettingType { Bool, Int, String };

struct SettingInfo {
  const char *Id;
  const char *EnvName;
  SettingType Type;
  const char *Default;
  const char *Doc;
};

class Settings {
public:
#define FERRY_SETTING(Id, Env, Type, Default, Doc) Id,
  enum class Key {
#include "support/Settings.def"
    Count
  };
#undef FERRY_SETTING

  static const Settings &get();
  /// Re-reads the environment (tests only; not thread-safe with readers).
  static void reload();

  bool getBool(Key K) const;
  int64_t getInt(Key K) const;
  const std::string &getString(Key K) const;
  /// True when the environment set this variable (even to the default).
  bool isSet(Key K) const;

  static const std::vector<SettingInfo> &table();

private:
  Settings();
  std::vector<std::string> Values;
  std::vector<bool> Set;
};

using SettingKey = Settings::Key;

} // namespace ferry
