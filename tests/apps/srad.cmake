# cws-srad (apps/srad) as a program: every variant verifies bit for bit on 1,
# 2 and 4 synthetic workers for both recursions, the serial program against a
# textbook SRAD v1, --iters, the JSON envelope and hinted counters, locality
# on a synthetic 4-node machine, errors.
if(TARGET srad)
  cws_test(test_app_srad SOURCES test_app_srad.cpp LABELS apps)
  target_link_libraries(test_app_srad PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_srad PRIVATE CWS_APP_SRAD="$<TARGET_FILE:srad>")
  add_dependencies(test_app_srad srad)
endif()
