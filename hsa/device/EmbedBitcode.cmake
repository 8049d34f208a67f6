# Writes the bytes of INPUT as a C initialiser list ("0x42,0x43,...") to
# OUTPUT, for hsa/LowerTexture.cpp to #include into an array. Run with
# cmake -DINPUT=... -DOUTPUT=... -P EmbedBitcode.cmake (portable: no xxd).
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp" "${bytes}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
