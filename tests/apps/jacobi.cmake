# cws-jacobi (apps/jacobi), the app written on the common variant runner, as a
# program: every variant equals the serial program on non-square grids on 1, 2
# and 4 synthetic workers, the JSON envelope, schedule follows data, the table
# and its iteration lines, errors.
if(TARGET jacobi)
  cws_test(test_app_jacobi SOURCES test_app_jacobi.cpp LABELS apps)
  target_link_libraries(test_app_jacobi PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_jacobi PRIVATE CWS_APP_JACOBI="$<TARGET_FILE:jacobi>")
  add_dependencies(test_app_jacobi jacobi)
endif()
