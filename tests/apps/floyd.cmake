# cws-floyd (apps/floyd) as a program: every variant equals the serial triple
# loop on 1, 2 and 4 synthetic workers with uneven tiles, PolyBench's
# checksums, the JSON envelope and fields, evolve settles on stows, locality
# on a synthetic 4-node machine, trace files, errors.
if(TARGET floyd)
  cws_test(test_app_floyd SOURCES test_app_floyd.cpp LABELS apps)
  target_link_libraries(test_app_floyd PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_floyd PRIVATE CWS_APP_FLOYD="$<TARGET_FILE:floyd>")
  add_dependencies(test_app_floyd floyd)
endif()
