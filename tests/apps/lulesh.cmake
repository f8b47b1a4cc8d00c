# cws-lulesh (apps/lulesh): the parts (mesh, Sedov deposit, symmetry, time
# step, verification, LULESH 2.0's published result at size 5; label unit)
# and the program (label apps: every variant verified on 1, 2 and 4
# synthetic workers under both recursions, hinted counters, locality on 4
# synthetic nodes, the error conventions).
if(TARGET cws_lulesh_kernels)
  cws_test(test_lulesh_parts SOURCES test_lulesh_parts.cpp LABELS unit)
  target_link_libraries(test_lulesh_parts PRIVATE cws_lulesh_kernels)
  target_include_directories(test_lulesh_parts PRIVATE ${PROJECT_SOURCE_DIR}/apps)
endif()
if(TARGET lulesh)
  cws_test(test_app_lulesh SOURCES test_app_lulesh.cpp LABELS apps)
  target_link_libraries(test_app_lulesh PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_lulesh PRIVATE CWS_APP_LULESH="$<TARGET_FILE:lulesh>")
  add_dependencies(test_app_lulesh lulesh)
endif()
