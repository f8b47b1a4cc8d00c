# cws-sor (apps/sor) as a program: every variant verifies bit for bit on 1, 2
# and 4 synthetic workers for both recursions, the faithful update stays
# finite, the JSON envelope and hinted counters, locality on a synthetic
# 4-node machine, trace files, errors.
if(TARGET sor)
  cws_test(test_app_sor SOURCES test_app_sor.cpp LABELS apps)
  target_link_libraries(test_app_sor PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_sor PRIVATE CWS_APP_SOR="$<TARGET_FILE:sor>")
  add_dependencies(test_app_sor sor)
endif()
