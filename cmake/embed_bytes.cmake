# cmake -DIN=file.bin -DOUT=file.c -P embed_bytes.cmake: writes the bytes of IN as
# `const unsigned char czk__descset[]` and its length, so no xxd is needed at build time.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN}. */\n#include <stddef.h>\n"
     "const unsigned char czk__descset[] = {${body}};\nconst size_t czk__descset_len = ${len};\n")
