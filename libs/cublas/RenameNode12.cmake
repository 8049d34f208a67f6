# cmake -DIN=libcublas.map -DOUT=libcublas12.map -P RenameNode12.cmake
# Renames the version node libcublas.so.13 to libcublas.so.12.
file(READ ${IN} Text)
string(REPLACE "libcublas.so.13 {" "libcublas.so.12 {" Text "${Text}")
file(WRITE ${OUT} "${Text}")
