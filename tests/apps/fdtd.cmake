# cws-fdtd (apps/fdtd) as a program: every variant verifies bit for bit on 1,
# 2 and 4 synthetic workers, the serial program's checksums are PolyBench's,
# the JSON envelope and the two step phases' schedules (h replays e's
# template), evolve settles on stows, locality on a synthetic 4-node machine,
# trace files, errors.
if(TARGET fdtd)
  cws_test(test_app_fdtd SOURCES test_app_fdtd.cpp LABELS apps)
  target_link_libraries(test_app_fdtd PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_fdtd PRIVATE CWS_APP_FDTD="$<TARGET_FILE:fdtd>")
  add_dependencies(test_app_fdtd fdtd)
endif()
