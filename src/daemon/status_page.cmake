# Turns a file into a C array (cmake -P; no xxd/ld tricks, so it works with
# nothing but CMake). Usage:
#   cmake -DIN=page.html -DOUT=page.c -DNAME=cz_status_page_html -P status_page.cmake
# Defines `const unsigned char NAME[]` (the file's bytes, plus a NUL that
# NAME_len does not count) and `const size_t NAME_len`.
file(READ "${IN}" _hex HEX)
string(LENGTH "${_hex}" _n)
math(EXPR _len "${_n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _arr "${_hex}")
# a line break every 16 bytes keeps the generated file readable by tools
# (CMake's regex has no {n} quantifier: spell the 16 out)
string(REPEAT "0x[0-9a-f][0-9a-f]," 16 _row)
string(REGEX REPLACE "(${_row})" "\\1\n" _arr "${_arr}")
file(WRITE "${OUT}.tmp"
  "/* generated from ${IN} by status_page.cmake: do not edit */\n"
  "#include <stddef.h>\n"
  "const unsigned char ${NAME}[] = {\n${_arr}0x00};\n"
  "const size_t ${NAME}_len = ${_len};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
