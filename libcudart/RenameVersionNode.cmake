# cmake -DIN=libcudart.map -DOUT=libcudart12.map -P RenameVersionNode.cmake
# Renames the version node libcudart.so.13 to libcudart.so.12.
file(READ ${IN} Text)
string(REPLACE "libcudart.so.13 {" "libcudart.so.12 {" Text "${Text}")
file(WRITE ${OUT} "${Text}")
