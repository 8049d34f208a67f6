/// \file
/// Named loggers per subsystem (STYLE.md item 9), configured by FERRY_LOG:
/// a default level and optional per-category levels, e.g.
/// `FERRY_LOG=warn,api=trace,jit=debug`. Loggers write to standard error
/// (or FERRY_LOG_FILE) and are safe to use from any thread.
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

namespace ferry::log {

enum class Category { Api, Module, Ptx, Jit, Host, Hsa, Cache, Tool, Count };

/// The logger of one subsystem. Cheap after the first call.
spdlog::logger &get(Category C);
const char *name(Category C);

/// Parses a FERRY_LOG-style spec and applies it; returns false (and changes
/// nothing) when the spec is malformed.
bool configure(std::string_view Spec);

inline spdlog::logger &api() { return get(Category::Api); }
inline spdlog::logger &module() { return get(Category::Module); }
inline spdlog::logger &ptx() { return get(Category::Ptx); }
inline spdlog::logger &jit() { return get(Category::Jit); }
inline spdlog::logger &host() { return get(Category::Host); }
inline spdlog::logger &hsa() { return get(Category::Hsa); }
inline spdlog::logger &cache() { return get(Category::Cache); }
inline spdlog::logger &tool() { return get(Category::Tool); }

} // namespace ferry::log
