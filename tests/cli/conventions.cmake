# Unix conventions of the `cuzk` command line (docs/cli.md): strict option
# parsing, --help, --version, exit statuses, `-o -`, and `cuzk client`'s
# job-failed / timeout exits against a cuzkd with the test back-end.
add_test(NAME test_cli_conventions
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_conventions.sh $<TARGET_FILE:cuzk> $<TARGET_FILE:cuzkd>
                 ${CMAKE_SOURCE_DIR})
set_tests_properties(test_cli_conventions PROPERTIES TIMEOUT 300)
