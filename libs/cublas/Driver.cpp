/// \file
/// cuBLAS's log line (see Driver.h); the driver loader is libs/common's.
#include "libs/cublas/Driver.h"

#include <cstdarg>

namespace ferry::cublas {

void logMessage(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  libs::vlogMessage("cublas", Fmt, Ap);
  va_end(Ap);
}

} // namespace ferry::cublas
