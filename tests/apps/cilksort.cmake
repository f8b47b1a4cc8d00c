# cws-cilksort (apps/cilksort) as a program: every variant sorts correctly on
# 1, 2 and 4 synthetic workers (sizes below the cutoff, not a power of two,
# mostly duplicates), a damaged output is caught, the JSON envelope and the
# hinted counters, locality on a synthetic 4-node machine, replay of the
# data-dependent tree, trace files, errors.
if(TARGET cilksort)
  cws_test(test_app_cilksort SOURCES test_app_cilksort.cpp LABELS apps)
  target_link_libraries(test_app_cilksort PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_cilksort PRIVATE CWS_APP_CILKSORT="$<TARGET_FILE:cilksort>")
  add_dependencies(test_app_cilksort cilksort)
endif()
