/// \file
/// What ferry's libcusparse does with an entry it does not implement: the
/// symbol exists, the call answers CUSPARSE_STATUS_NOT_SUPPORTED, and one log
/// line names it (once, however often it is called). Run under ferry by
/// tests/cusparse (cusparse.not-supported), which checks the log.
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>

#include <cstdio>

int main() {
  cusparseHandle_t H;
  if (cusparseCreate(&H) != CUSPARSE_STATUS_SUCCESS) {
    std::printf("FAIL: no handle\n");
    return 1;
  }
  int Bad = 0, Colors = 0;
  for (int I = 0; I < 3; ++I) {
    cusparseStatus_t S = cusparseScsrcolor(H, 4, 0, nullptr, nullptr, nullptr, nullptr, nullptr, &Colors, nullptr,
                                           nullptr, nullptr);
    Bad += S != CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  cusparseDestroy(H);
  std::printf("%s\n", Bad ? "FAIL: not NOT_SUPPORTED" : "CusparseNotSupported: PASS");
  return Bad ? 1 : 0;
}
