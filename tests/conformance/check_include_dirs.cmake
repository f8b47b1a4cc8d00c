# cmake -DROOT=<source dir> -DDIRS_FILE=<file> -P check_include_dirs.cmake
#
# DIRS_FILE has a line per conformance suite, "<target>: <dir>;<dir>;...": its
# include path as the compiler gets it (tests/suites.cmake writes it). Fails
# when a folder of private headers is on one: lib/src or <component>/src, the
# apps' folders (apps/common and the apps' kernels), the tools' sources. With
# none of them there, the compiler itself rejects a private include.

cmake_minimum_required(VERSION 3.20)

if(NOT ROOT OR NOT DIRS_FILE)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -DDIRS_FILE=<file> -P check_include_dirs.cmake")
endif()

file(STRINGS ${DIRS_FILE} lines)
set(bad)
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^([^:]+): (.*)$")
    continue()
  endif()
  set(suite ${CMAKE_MATCH_1})
  set(dirs "${CMAKE_MATCH_2}")
  foreach(dir IN LISTS dirs)
    cmake_path(NORMAL_PATH dir)
    string(REGEX REPLACE "/$" "" dir "${dir}")
    cmake_path(IS_PREFIX ROOT "${dir}" NORMALIZE under_root)
    if(dir MATCHES "/src$" OR (under_root AND dir MATCHES "^${ROOT}/(apps|tools)(/|$)"))
      list(APPEND bad "${suite}: ${dir}")
    endif()
  endforeach()
endforeach()

list(LENGTH lines count)
if(bad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "conformance suites must see public headers only; private folders on their include path:\n  ${text}")
endif()
message(STATUS "the ${count} conformance suites have no private folder on their include path")
