/// \file
/// Logger set-up. The loggers are created together on first use with one
/// shared sink, so lines from different subsystems interleave whole.
#include "support/Log.h"

#include "support/Settings.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ferry::log {

static constexpr std::array<const char *, size_t(Category::Count)> Names = {
    "api", "module", "ptx", "jit", "host", "hsa", "cache", "tool"};

const char *name(Category C) { return Names[size_t(C)]; }

namespace {
struct Registry {
  std::array<std::shared_ptr<spdlog::logger>, size_t(Category::Count)> Loggers;
};
} // namespace

static std::optional<spdlog::level::level_enum> parseLevel(std::string_view S) {
  static const std::pair<const char *, spdlog::level::level_enum> Levels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
      {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
      {"err", spdlog::level::err},     {"critical", spdlog::level::critical},
      {"off", spdlog::level::off},     {"none", spdlog::level::off}};
  for (auto &[N, L] : Levels)
    if (S == N)
      return L;
  return std::nullopt;
}

static bool applySpec(Registry &R, std::string_view Spec);

static Registry &registry() {
  static Registry *R = [] {
    auto *Reg = new Registry(); // Leaked on purpose: loggers outlive statics.
    const std::string &File = Settings::get().getString(SettingKey::LogFile);
    spdlog::sink_ptr Sink;
    if (!File.empty()) {
      try {
        Sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(File);
      } catch (const std::exception &E) {
        std::fprintf(stderr, "ferry: cannot open FERRY_LOG_FILE '%s': %s\n", File.c_str(),
                     E.what());
      }
    }
    if (!Sink)
      Sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    for (size_t I = 0; I < Names.size(); ++I) {
      auto L = std::make_shared<spdlog::logger>(std::string("ferry.") + Names[I], Sink);
      L->set_pattern("ferry[%n] %l: %v");
      L->set_level(spdlog::level::warn);
      L->flush_on(spdlog::level::warn);
      Reg->Loggers[I] = L;
    }
    const std::string &Spec = Settings::get().getString(SettingKey::Log);
    if (!applySpec(*Reg, Spec))
      std::fprintf(stderr, "ferry: ignoring malformed FERRY_LOG='%s'\n", Spec.c_str());
    return Reg;
  }();
  return *R;
}

bool configure(std::string_view Spec) { return applySpec(registry(), Spec); }

static bool applySpec(Registry &R, std::string_view Spec) {
  std::array<spdlog::level::level_enum, size_t(Category::Count)> Levels;
  Levels.fill(spdlog::level::warn);
  size_t Pos = 0;
  while (Pos <= Spec.size() && !Spec.empty()) {
    size_t Comma = Spec.find(',', Pos);
    std::string_view Item =
        Spec.substr(Pos, Comma == std::string_view::npos ? std::string_view::npos : Comma - Pos);
    if (!Item.empty()) {
      size_t Eq = Item.find('=');
      if (Eq == std::string_view::npos) {
        auto L = parseLevel(Item);
        if (!L)
          return false;
        Levels.fill(*L);
      } else {
        auto Cat = Item.substr(0, Eq);
        auto L = parseLevel(Item.substr(Eq + 1));
        if (!L)
          return false;
        bool Found = false;
        for (size_t I = 0; I < Names.size(); ++I)
          if (Cat == Names[I]) {
            Levels[I] = *L;
            Found = true;
          }
        if (!Found)
          return false;
      }
    }
    if (Comma == std::string_view::npos)
      break;
    Pos = Comma + 1;
  }
  for (size_t I = 0; I < Names.size(); ++I)
    R.Loggers[I]->set_level(Levels[I]);
  return true;
}

spdlog::logger &get(Category C) { return *registry().Loggers[size_t(C)]; }

} // namespace ferry::log
