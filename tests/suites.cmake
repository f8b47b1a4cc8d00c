# Black-box and white-box suites (included at the end of tests/CMakeLists.txt).
#
# conformance  suites that use only the public headers (<cws/...>, the test
#              helpers in tests/support): they test what a program can see and
#              must keep passing across internal rewrites.
# internal     suites that include private headers (lib/src, <component>/src,
#              apps/common): they test the implementation and may change with it.
#
# Every suite below gets the label in addition to those of its cws_test line
# (ctest -L conformance, ctest -L internal). The test
# `conformance.public_headers_only` fails when a conformance suite's sources,
# or a test header they include, include a private header; classify a new
# suite here when you add it.

set(CWS_CONFORMANCE_SUITES
    test_conformance        # tests/conformance: relws take-back, evolve switch, steals happen
    test_config test_schedule_names test_placement test_numa test_core test_phase_allocations test_phase_timeline test_deep_recursion test_sched_stress
    test_core_only test_umbrella_wiring test_spawn_exceptions
    test_steal_tree test_steal_tree_stress test_steal_tree_coarsen test_recorder_memory
    test_locality_replay test_schedulers_stress test_schedulers_cli test_history_allocs test_history_memory
    test_elision test_evolve_balance test_evolve_stress test_plan_replay test_cws_trace_plan test_app_pcg_mpi
    test_apps test_app_fdtd test_app_floyd test_app_prefix test_app_cg test_app_mg test_app_pcg test_app_bench
    test_place_tree test_find_place test_numa_shapes test_hinted test_hinted_stress
    test_app_sor test_app_srad test_app_cilksort test_app_lulesh)
set(CWS_INTERNAL_SUITES
    test_topology           # pinning.hpp, topology_xml.hpp
    test_locality           # page_homes_cache.hpp
    test_phase_protocol     # caller_binding.hpp
    test_caller_binding     # caller_binding.hpp
    test_deque_stress       # wsq.hpp
    test_schedulers         # replay_policy.hpp (the scripted stall watch)
    test_traces             # payload_io.hpp
    test_trace_stream       # payload_io.hpp, records.hpp
    test_cws_trace_cli      # payload_io.hpp
    test_app_rounds         # apps/common/rounds.hpp
    test_cg_oracles         # apps/cg: randlc, makea
    test_mg_oracles         # apps/mg: zran3, per-iteration norms
    test_pcg_parts          # apps/pcg: matrix, preconditioners, schedule file
    test_hinted_protocol    # the hinted policies' steal order and HET, scripted (schedulers/src)
    test_policy_kinds       # evolve_controller.hpp (schedulers/src)
    test_lulesh_parts)      # apps/lulesh: mesh, kernels

# The black-box suite of tests/conformance (new files go here; public headers only).
cws_test(test_conformance
  SOURCES conformance/test_relws_take_back.cpp conformance/test_evolve_switch.cpp conformance/test_steals_happen.cpp
  LABELS "unit;tsan")

# cws_suite_label(LABEL TARGETS...): adds LABEL to every discovered test of
# each existing target. The labels of a cws_test target are set by the file it
# wrote (<binary dir>/<name>_labels.cmake, read by ctest after discovery), and
# ctest cannot append to a property, so this writes a later file that sets
# those labels plus LABEL. Targets not built in this configuration are skipped.
function(cws_suite_label label)
  foreach(name IN LISTS ARGN)
    if(NOT TARGET ${name})
      continue()
    endif()
    get_target_property(dir ${name} BINARY_DIR)
    get_target_property(src_dir ${name} SOURCE_DIR)
    set(labels unit)  # gtest_discover_tests(... PROPERTIES LABELS unit) targets (test_core_only)
    set(list_var ${name}_TESTS)
    if(EXISTS ${dir}/${name}_labels.cmake)
      file(READ ${dir}/${name}_labels.cmake text)
      if(text MATCHES "LABELS \"([^\"]*)\"")
        set(labels "${CMAKE_MATCH_1}")
      endif()
      set(list_var ${name}_tests)
    endif()
    list(APPEND labels ${label})
    set(file ${dir}/${name}_suite_label.cmake)
    file(WRITE ${file}
         "if(${list_var})\n  set_tests_properties(\${${list_var}} PROPERTIES LABELS \"${labels}\")\nendif()\n")
    set_property(DIRECTORY ${src_dir} APPEND PROPERTY TEST_INCLUDE_FILES ${file})
  endforeach()
endfunction()

cws_suite_label(conformance ${CWS_CONFORMANCE_SUITES})
cws_suite_label(internal ${CWS_INTERNAL_SUITES})

# Keeps the classification honest: the sources of every conformance suite
# (and the test headers they include, transitively) include no private header.
set(conformance_sources)
foreach(name IN LISTS CWS_CONFORMANCE_SUITES)
  if(TARGET ${name})
    get_target_property(srcs ${name} SOURCES)
    get_target_property(src_dir ${name} SOURCE_DIR)
    foreach(s IN LISTS srcs)
      if(NOT IS_ABSOLUTE ${s})
        set(s ${src_dir}/${s})
      endif()
      list(APPEND conformance_sources ${s})
    endforeach()
  endif()
endforeach()
string(REPLACE ";" "|" conformance_sources_arg "${conformance_sources}")
add_test(NAME conformance.public_headers_only
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${conformance_sources_arg}"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/conformance/check_public_headers.cmake)
# The check itself must catch a private include (a fixture that has one): it
# passes only when the script names the fixture's private include.
add_test(NAME conformance.public_headers_only_catches_private
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}
                 -DFILES=${CMAKE_CURRENT_SOURCE_DIR}/conformance/fixtures/includes_private.hpp
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/conformance/check_public_headers.cmake)
set_tests_properties(conformance.public_headers_only conformance.public_headers_only_catches_private
                     PROPERTIES LABELS "unit;conformance")
set_tests_properties(conformance.public_headers_only_catches_private PROPERTIES
                     PASS_REGULAR_EXPRESSION "includes_private.hpp: #include worker.hpp")
