# cuzkd's gRPC API through a real cuzkd, with Python's grpcio (Debian's
# python3-grpcio + python3-grpc-tools, stubs generated from the proto at
# test time) as the independent client. Debian's interpreter by path: a
# python3 earlier in PATH (pyenv) does not see Debian's modules.
set(CZ_DEBIAN_PYTHON /usr/bin/python3)
add_test(NAME test_grpc_api
         COMMAND ${CZ_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_grpc.py api $<TARGET_FILE:cuzkd> ${CMAKE_SOURCE_DIR})
set_tests_properties(test_grpc_api PROPERTIES TIMEOUT 600 LABELS threads)

# The Filecoin parameter fixture (plain build only, like its users).
if(TARGET cz_prover AND NOT CUZK_SANITIZE)
  set(_fix ${CMAKE_BINARY_DIR}/fixture-cache)
  foreach(_c porep-2k snap-2k)
    string(REPLACE "-" "" _f ${_c})
    add_test(NAME fixture_${_f}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fixture_params.sh $<TARGET_FILE:cuzk> ${_fix} ${_c})
    set_tests_properties(fixture_${_f} PROPERTIES TIMEOUT 1800 FIXTURES_SETUP ${_f} LABELS nosan)
  endforeach()
  set_tests_properties(test_daemon_filecoin PROPERTIES FIXTURES_REQUIRED porep2k)
  add_test(NAME test_grpc_porep
           COMMAND ${CZ_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_grpc.py porep $<TARGET_FILE:cuzkd>
                   ${CMAKE_SOURCE_DIR} $<TARGET_FILE:cuzk> ${_fix})
  set_tests_properties(test_grpc_porep PROPERTIES TIMEOUT 900 FIXTURES_REQUIRED porep2k LABELS nosan)
  # WinningPoSt, WindowPoSt and SnapDeals through cuzkd's gRPC API on the
  # real prover: 2KiB sectors sealed and their vanilla proofs made by
  # `cuzk seal` / `cuzk post` / `cuzk snap`, proofs verified by `cuzk verify`.
  add_test(NAME test_grpc_post
           COMMAND ${CZ_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_grpc.py post $<TARGET_FILE:cuzkd>
                   ${CMAKE_SOURCE_DIR} $<TARGET_FILE:cuzk> ${_fix})
  set_tests_properties(test_grpc_post PROPERTIES TIMEOUT 900 FIXTURES_REQUIRED snap2k LABELS nosan)
endif()
