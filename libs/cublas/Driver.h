/// \file
/// The driver API as ferry's cuBLAS reaches it: the shared loader of
/// libs/common/Driver.h, and cuBLAS's own log line.
#pragma once

#include "libs/common/Driver.h"

namespace ferry::cublas {

using libs::driver;
using libs::DriverTable;
using libs::ensureContext;

/// One line on stderr, prefixed "ferry cublas:", for failures and
/// not-implemented calls (libs may not link ferry's spdlog loggers).
void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace ferry::cublas
