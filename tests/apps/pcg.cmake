# cws-pcg (apps/pcg): the parts (matrix, preconditioners, solver, schedule
# file; label unit), the program (label apps: every policy and preconditioner
# against serial, schedule file round trip and rejections, Matrix Market,
# locality on 2 synthetic nodes) and cws-pcg-mpi on 2 ranks (label mpi;
# skipped, visibly, without MPI).
if(TARGET cws_pcg_solver)
  cws_test(test_pcg_parts SOURCES test_pcg_parts.cpp LABELS unit)
  target_link_libraries(test_pcg_parts PRIVATE cws_pcg_solver)
endif()
if(TARGET pcg)
  cws_test(test_app_pcg SOURCES test_app_pcg.cpp LABELS apps)
  target_link_libraries(test_app_pcg PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_pcg PRIVATE CWS_APP_PCG="$<TARGET_FILE:pcg>")
  add_dependencies(test_app_pcg pcg)
endif()
if(TARGET pcg_mpi AND MPIEXEC_EXECUTABLE)
  cws_test(test_app_pcg_mpi SOURCES test_app_pcg.cpp LABELS mpi)
  target_link_libraries(test_app_pcg_mpi PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_app_pcg_mpi PRIVATE CWS_PCG_MPI_TEST CWS_APP_PCG_MPI="$<TARGET_FILE:pcg_mpi>"
                                                      CWS_MPIEXEC="${MPIEXEC_EXECUTABLE}")
  add_dependencies(test_app_pcg_mpi pcg_mpi)
else()
  # Visible in ctest -L mpi as "Skipped", not silently absent.
  add_test(NAME test_app_pcg_mpi.skipped_without_mpi
           COMMAND sh -c "echo 'cws-pcg-mpi not built: MPI (C++) not found (apt install libopenmpi-dev openmpi-bin)'; exit 77")
  set_tests_properties(test_app_pcg_mpi.skipped_without_mpi PROPERTIES LABELS mpi SKIP_RETURN_CODE 77)
endif()
