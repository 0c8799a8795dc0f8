# cz_layer(NAME [DEPS lib...] [EXTRA_LIBS lib...])
#   Static library from every *.c in the calling directory. Public headers
#   come from include/, layer-internal headers from src/ (so "ff/mont.h").
function(cz_layer name)
  cmake_parse_arguments(A "" "" "DEPS;EXTRA_LIBS" ${ARGN})
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.c)
  add_library(${name} STATIC ${_srcs})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR}/include
                                     PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${A_DEPS} ${A_EXTRA_LIBS} Threads::Threads m)
endfunction()

# cz_test(NAME SOURCES src... [LIBS lib...] [TIMEOUT s] [LABELS l...] [ARGS a...])
#   One ctest test per executable; every test has a TIMEOUT (default 300 s).
#   Label "threads": also run under ThreadSanitizer. Label "nosan": skipped
#   in sanitizer builds (too slow there; the plain build still runs it).
function(cz_test name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  if(CUZK_SANITIZE AND "nosan" IN_LIST A_LABELS)
    return()
  endif()
  add_executable(${name} ${A_SOURCES})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/testutil)
  target_link_libraries(${name} PRIVATE cz_testutil ${A_LIBS})
  add_test(NAME ${name} COMMAND ${name} ${A_ARGS})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT}
    ENVIRONMENT "CZ_VECTORS=${CMAKE_SOURCE_DIR}/tests/vectors;CZ_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  if(A_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}")
  endif()
endfunction()

# cz_fuzz(NAME SOURCES src... LIBS lib...)
#   A libFuzzer target (only in the CUZK_FUZZ build) and a ctest test that
#   runs it briefly (label "fuzz"): new inputs go to a scratch directory in
#   the build tree, the committed corpus fuzz/corpus/NAME is read-only.
#   CZ_FUZZ_SECONDS (default 15) bounds each run.
function(cz_fuzz name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(${name} PRIVATE ${A_LIBS})
  if(NOT DEFINED CZ_FUZZ_SECONDS)
    set(CZ_FUZZ_SECONDS 15)
  endif()
  set(_scratch ${CMAKE_CURRENT_BINARY_DIR}/corpus-${name})
  file(MAKE_DIRECTORY ${_scratch})
  add_test(NAME ${name}
           COMMAND ${name} -max_total_time=${CZ_FUZZ_SECONDS} -timeout=10 -rss_limit_mb=4096
                   -print_final_stats=1 ${_scratch} ${CMAKE_SOURCE_DIR}/fuzz/corpus/${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS fuzz)
endfunction()
