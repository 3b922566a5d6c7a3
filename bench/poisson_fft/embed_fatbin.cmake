# cmake -DFATBIN=... -DNAME=... -DHEADER=... -P embed_fatbin.cmake
# Writes HEADER, a C array NAME holding the bytes of FATBIN (what bin2c does, with
# CMake alone, so that the build needs no other tool of the toolkit).
file(READ ${FATBIN} bytes HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${bytes}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n"
       bytes "${bytes}")
file(WRITE ${HEADER} "// Generated from ${FATBIN} by embed_fatbin.cmake.\nalignas(16) static const unsigned char ${NAME}[] = {\n${bytes}};\n")
