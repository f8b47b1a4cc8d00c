# How a test suite is declared (included first by tests/CMakeLists.txt). A
# suite says once what it is; its include path, links, programs and ctest
# labels follow from that.
#
# Kinds (KIND, required):
#   conformance  black-box: only public headers (<cws/...>) and the test
#                helpers (tests/support, the suite's own folder) are on its
#                include path, so the compiler rejects a private include. It
#                tests what a program can see and must keep passing across
#                internal rewrites. ctest label `conformance`.
#   internal     white-box: lib/src, platform/src and the PRIVATE_HEADERS folders are on its
#                include path too; it tests the implementation and may change
#                with it. ctest label `internal`.
# ctest labels besides the kind's (LABELS):
#   unit    fast functional tests
#   stress  concurrency stress (long loops, many seeds)
#   tsan    the concurrency suites, run in the ThreadSanitizer build
#   apps    the benchmark apps run as programs
include(GoogleTest)

set(CWS_TESTS_DIR ${CMAKE_CURRENT_LIST_DIR})
# Suites that run programs of this build are skipped without them: the apps
# and the cws-trace CLI are optional (CWS_BUILD_APPS, CWS_BUILD_TOOLS).

# cws_test(<name> KIND conformance|internal
#          SOURCES <file>... LABELS <label>...
#          [TIMEOUT <s>]                 default 900: a limit for hangs, not a time
#                                        (the stress suites passed 300 s beside a parallel build)
#          [LIBRARIES <target>...]       beside cws::cws and fmt
#          [CORE_ONLY]                   links cws::core alone instead of cws::cws and fmt
#          [PRIVATE_HEADERS <dir>...]    internal only: more private folders than lib/src
#          [RUNS <MACRO>=<target>...]    programs the suite runs: each is built before the
#                                        suite, its path is the macro MACRO; without one of
#                                        them the suite is not declared
#          [RUNS_IF_BUILT <MACRO>=<target>...]  the same, for programs the suite can do without
#          [DEFINITIONS <def>...]        more compile definitions
#          [NO_KIND_LABEL])              keeps the suite out of `ctest -L <kind>`
function(cws_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "CORE_ONLY;NO_KIND_LABEL" "KIND;TIMEOUT"
                        "SOURCES;LABELS;LIBRARIES;PRIVATE_HEADERS;RUNS;RUNS_IF_BUILT;DEFINITIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cws_test(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_KIND MATCHES "^(conformance|internal)$")
    message(FATAL_ERROR "cws_test(${name}): KIND conformance or KIND internal")
  endif()
  if(arg_PRIVATE_HEADERS AND arg_KIND STREQUAL "conformance")
    message(FATAL_ERROR "cws_test(${name}): a conformance suite sees no private header")
  endif()
  set(programs)  # MACRO;target pairs
  foreach(run IN LISTS arg_RUNS)
    string(REPLACE "=" ";" pair "${run}")
    list(GET pair 1 program)
    if(NOT TARGET ${program})
      message(STATUS "cws tests: ${name} skipped (it runs ${program}, which this configuration does not build)")
      return()
    endif()
    list(APPEND programs ${pair})
  endforeach()
  foreach(run IN LISTS arg_RUNS_IF_BUILT)
    string(REPLACE "=" ";" pair "${run}")
    list(GET pair 1 program)
    if(TARGET ${program})
      list(APPEND programs ${pair})
    endif()
  endforeach()

  add_executable(${name} ${arg_SOURCES})
  _cws_test_compile_as(${name} ${arg_KIND} "${arg_CORE_ONLY}" "${arg_PRIVATE_HEADERS}")
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main ${arg_LIBRARIES})
  target_compile_definitions(${name} PRIVATE ${arg_DEFINITIONS})
  while(programs)
    list(POP_FRONT programs macro program)
    target_compile_definitions(${name} PRIVATE ${macro}="$<TARGET_FILE:${program}>")
    add_dependencies(${name} ${program})
  endwhile()

  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 900)
  endif()
  set(labels ${arg_LABELS})
  if(NOT arg_NO_KIND_LABEL)
    list(APPEND labels ${arg_KIND})
  endif()
  # Labels are set by a file ctest reads after the discovered tests, because a
  # label *list* does not survive gtest_discover_tests' PROPERTIES forwarding.
  # CWS_EVOLVE_CONTENTION=0, CWS_REPLAY_GRACE_US=0: a converged evolve would
  # leave its strict replay, and a strict replay's spawner run its late
  # thief's task, whenever ctest -j's other tests take the cores; the tests
  # of those reactions set them up themselves (test_evolve_restart,
  # test_replay_grace).
  gtest_discover_tests(${name} TEST_LIST ${name}_tests PROPERTIES TIMEOUT ${arg_TIMEOUT} DISCOVERY_TIMEOUT 60
                       ENVIRONMENT "CWS_EVOLVE_CONTENTION=0;CWS_REPLAY_GRACE_US=0")
  set(labels_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  file(WRITE ${labels_file}
       "if(${name}_tests)\n  set_tests_properties(\${${name}_tests} PROPERTIES LABELS \"${labels}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${labels_file})
  if(arg_KIND STREQUAL "conformance")
    set_property(GLOBAL APPEND PROPERTY CWS_CONFORMANCE_TARGETS ${name})
  endif()
endfunction()

# The include path and links of a suite of kind `kind` (also those of the
# fixture that shows a conformance suite cannot include a private header).
function(_cws_test_compile_as target kind core_only private_headers)
  if(core_only)
    target_link_libraries(${target} PRIVATE cws::core cws_warnings)
  else()
    target_link_libraries(${target} PRIVATE cws::cws fmt::fmt cws_warnings)
  endif()
  target_include_directories(${target} PRIVATE ${CWS_TESTS_DIR})
  if(kind STREQUAL "internal")
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/lib/src ${PROJECT_SOURCE_DIR}/platform/src
                                                ${private_headers})
  endif()
endfunction()

# cws_app_test(<app> [more cws_test arguments]): the suite test_app_<app> of
# the app apps/<app> run as a program (tests/apps/test_app_<app>.cpp, label
# apps, the JSON parser), the binary's path in CWS_APP_<APP>. Not declared
# when the app is not built.
function(cws_app_test app)
  string(TOUPPER ${app} macro)
  cws_test(test_app_${app} KIND conformance SOURCES test_app_${app}.cpp LABELS apps
           LIBRARIES nlohmann_json::nlohmann_json RUNS CWS_APP_${macro}=${app} ${ARGN})
endfunction()

# Black-box enforcement. The compiler does it: a conformance suite has no
# private folder on its include path. Two tests keep that so:
#   conformance.public_headers_only                  no conformance suite's include path (its own
#                                                    and its libraries', as the compiler sees it)
#                                                    names a private folder, even one added to a
#                                                    suite after its cws_test line;
#   conformance.public_headers_only_catches_private  a source that includes a private header of
#                                                    the core, compiled as a conformance suite is,
#                                                    fails on that include.
# The include paths are written once every suite is declared (at the end of
# the calling directory, which adds the components' folders).
function(cws_conformance_checks)
  set(dirs_file ${CMAKE_CURRENT_BINARY_DIR}/conformance_include_dirs_$<CONFIG>.txt)
  # (A deferred call reads its arguments' variables when it runs: the path goes in as text.)
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _cws_write_conformance_include_dirs [[${dirs_file}]])")
  add_test(NAME conformance.public_headers_only
           COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -DDIRS_FILE=${dirs_file}
                   -P ${CWS_TESTS_DIR}/conformance/check_include_dirs.cmake)

  add_library(cws_conformance_private_include OBJECT EXCLUDE_FROM_ALL
              ${CWS_TESTS_DIR}/conformance/fixtures/includes_private.cpp)
  _cws_test_compile_as(cws_conformance_private_include conformance "" "")
  add_test(NAME conformance.public_headers_only_catches_private
           COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --config $<CONFIG>
                   --target cws_conformance_private_include)
  # Passes only on the compiler's complaint about the private header (GCC:
  # "worker.hpp: No such file", Clang: "'worker.hpp' file not found").
  set_tests_properties(conformance.public_headers_only_catches_private PROPERTIES
                       PASS_REGULAR_EXPRESSION "worker\\.hpp(: No such file|' file not found)")
  set_tests_properties(conformance.public_headers_only conformance.public_headers_only_catches_private
                       PROPERTIES LABELS "unit;conformance")
endfunction()

function(_cws_write_conformance_include_dirs dirs_file)
  get_property(targets GLOBAL PROPERTY CWS_CONFORMANCE_TARGETS)
  set(content)
  foreach(t IN LISTS targets)
    string(APPEND content "${t}: $<TARGET_PROPERTY:${t},INCLUDE_DIRECTORIES>\n")
  endforeach()
  file(GENERATE OUTPUT ${dirs_file} CONTENT "${content}")
endfunction()
