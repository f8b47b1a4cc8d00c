# The benchmark harness (tools/bench, Debian's /usr/bin/python3 with matplotlib):
#   test_app_bench       the quick suite over the apps built here, into a temporary
#                        directory, then the report (PNG charts, summary.md) and its
#                        check; skipped (exit 77) when matplotlib is missing
#   test_app_bench_unit  unittest of the harness's pure parts (suites, figures, summary)
# The harness runs whatever cws-* binaries exist in this build directory: build the
# apps first (ctest does not build them).
# The quick suite takes about a minute alone; beside a parallel build it took
# over 300 s, so the limit only catches a hang.
set(CWS_BENCH_PYTHON /usr/bin/python3)
if(EXISTS ${CWS_BENCH_PYTHON})
  execute_process(COMMAND ${CWS_BENCH_PYTHON} -c "import matplotlib" RESULT_VARIABLE cws_bench_no_matplotlib
                  OUTPUT_QUIET ERROR_QUIET)
  if(cws_bench_no_matplotlib)
    message(STATUS "cws: test_app_bench will be skipped: no matplotlib for ${CWS_BENCH_PYTHON} "
                   "(apt install python3-matplotlib)")
  endif()
  add_test(NAME test_app_bench
           COMMAND ${CWS_BENCH_PYTHON} ${PROJECT_SOURCE_DIR}/tools/bench/bench.py ci --suite quick
                   --build ${CMAKE_BINARY_DIR})
  set_tests_properties(test_app_bench PROPERTIES LABELS apps SKIP_RETURN_CODE 77 TIMEOUT 900
                                                  ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
  add_test(NAME test_app_bench_unit
           COMMAND ${CWS_BENCH_PYTHON} -m unittest discover -s ${PROJECT_SOURCE_DIR}/tools/bench -p "test_*.py")
  set_tests_properties(test_app_bench_unit PROPERTIES LABELS "unit;apps" ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
else()
  message(STATUS "cws: test_app_bench skipped: ${CWS_BENCH_PYTHON} not found (apt install python3)")
endif()
