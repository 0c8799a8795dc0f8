# Embeds the schema migrations (migrations/NNNN_name.sql) into a C file, so
# that a cuzk binary carries the exact schema it was built for (cmake -P;
# nothing but CMake needed). Usage:
#   cmake -DDIR=src/store/migrations -DOUT=store_migrations.c -P embed_migrations.cmake
# Defines cz_store_migrations[] (store/migrations.h) in version order. The
# build fails on a file name that is not NNNN_name.sql or on versions that
# do not run 1, 2, 3, ... without a gap: the version is the order of
# application and the number recorded in cuzk_schema_migrations.
file(GLOB _files RELATIVE "${DIR}" "${DIR}/*.sql")
list(SORT _files)
set(_body "")
set(_table "")
set(_expect 1)
foreach(_f ${_files})
  if(NOT _f MATCHES "^([0-9][0-9][0-9][0-9])_([a-z0-9_]+)\\.sql$")
    message(FATAL_ERROR "store migration '${DIR}/${_f}': the name must be NNNN_name.sql (four digits, then [a-z0-9_])")
  endif()
  set(_num "${CMAKE_MATCH_1}")
  set(_name "${CMAKE_MATCH_2}")
  math(EXPR _ver "1${_num} - 10000")  # "0007" -> 7 without octal surprises
  if(NOT _ver EQUAL _expect)
    message(FATAL_ERROR "store migration '${DIR}/${_f}': version ${_ver} where ${_expect} was expected (versions run 1, 2, 3, ... without gaps)")
  endif()
  math(EXPR _expect "${_expect} + 1")
  file(READ "${DIR}/${_f}" _hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _arr "${_hex}")
  string(REPEAT "0x[0-9a-f][0-9a-f]," 16 _row)
  string(REGEX REPLACE "(${_row})" "\\1\n" _arr "${_arr}")
  string(APPEND _body "/* ${_f} */\nstatic const char m_${_num}[] = {\n${_arr}0x00};\n")
  string(APPEND _table "    {${_ver}, \"${_name}\", m_${_num}},\n")
endforeach()
if(_expect EQUAL 1)
  message(FATAL_ERROR "store migrations: no NNNN_name.sql file in '${DIR}'")
endif()
math(EXPR _count "${_expect} - 1")
file(WRITE "${OUT}.tmp"
  "/* generated from ${DIR} by embed_migrations.cmake: do not edit */\n"
  "#include \"store/migrations.h\"\n"
  "${_body}"
  "const cz_store_migration cz_store_migrations[] = {\n${_table}};\n"
  "const size_t cz_store_migrations_count = ${_count};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
