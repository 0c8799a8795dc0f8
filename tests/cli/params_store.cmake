# The parameter store's guarantees through `cuzk setup/prove/verify`
# (docs/parameters.md): stale cache, truncated params, sidecar, --force,
# missing output directory, interrupted setup.
add_test(NAME test_cli_params_store
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_params_store.sh $<TARGET_FILE:cuzk>)
set_tests_properties(test_cli_params_store PROPERTIES TIMEOUT 300)
