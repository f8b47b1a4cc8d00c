# cws-cg (apps/cg): the runner suite (the real binary as a child process,
# label apps) and the unit oracles of its numerics (label unit).
if(TARGET cg)
  cws_test(test_app_cg SOURCES test_app_cg.cpp LABELS apps)
  target_link_libraries(test_app_cg PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_cg PRIVATE CWS_APP_CG="$<TARGET_FILE:cg>")
  add_dependencies(test_app_cg cg)
endif()
if(TARGET cws_cg_kernels)
  cws_test(test_cg_oracles SOURCES test_cg_oracles.cpp LABELS unit)
  target_link_libraries(test_cg_oracles PRIVATE cws_cg_kernels)
endif()
