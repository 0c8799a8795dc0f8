# `cuzk verify --c1 ...` (src/cli/cmd_fil_verify.c) on the reference's
# 2KiB C2 proof.
add_test(NAME test_cli_fil_verify
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_fil_verify.sh $<TARGET_FILE:cuzk> ${CMAKE_SOURCE_DIR})
set_tests_properties(test_cli_fil_verify PROPERTIES TIMEOUT 120)
