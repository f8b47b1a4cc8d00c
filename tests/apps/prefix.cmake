# cws-prefix (apps/prefix) as a program: every variant verifies on 1, 2 and 4
# synthetic workers and on edge sizes, the scan passes replay the init pass's
# template (audit: each block on its first toucher), a different recursion is
# reported as diverged, locality on a synthetic 4-node machine, errors.
if(TARGET prefix)
  cws_test(test_app_prefix SOURCES test_app_prefix.cpp LABELS apps)
  target_link_libraries(test_app_prefix PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_prefix PRIVATE CWS_APP_PREFIX="$<TARGET_FILE:prefix>")
  add_dependencies(test_app_prefix prefix)
endif()
