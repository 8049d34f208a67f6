# cmake -DIN=lib.map -DOUT=lib12.map [-DFROM=node -DTO=node] -P RenameNode12.cmake
# Renames a version node (default libcublas.so.13 -> libcublas.so.12).
if(NOT FROM)
  set(FROM libcublas.so.13)
  set(TO libcublas.so.12)
endif()
file(READ ${IN} Text)
string(REPLACE "${FROM} {" "${TO} {" Text "${Text}")
file(WRITE ${OUT} "${Text}")
