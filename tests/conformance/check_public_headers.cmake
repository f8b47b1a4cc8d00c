# cmake -DROOT=<source dir> -DFILES=<a|b|...> -P check_public_headers.cmake
#
# Fails when any of FILES, or a test header one of them includes (followed
# transitively, relative to the including file or to tests/), includes a
# private header: a file under lib/src, <component>/src or apps/common, named
# by path ("../lib/src/worker.hpp", "src/records.hpp") or by bare name
# ("worker.hpp", found through the tests' include path). Public headers are
# spelled <cws/...> / "cws/..." and are not followed.

cmake_minimum_required(VERSION 3.20)

if(NOT ROOT OR NOT FILES)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -DFILES=<a|b|...> -P check_public_headers.cmake")
endif()
string(REPLACE "|" ";" files "${FILES}")

set(private_names)
foreach(dir lib/src platform/src schedulers/src steal-tree/src traces/src apps/common tools/cws-trace)
  file(GLOB hs ${ROOT}/${dir}/*.hpp ${ROOT}/${dir}/*.h)
  foreach(h IN LISTS hs)
    get_filename_component(n ${h} NAME)
    list(APPEND private_names ${n})
  endforeach()
endforeach()

set(queue ${files})
set(seen)
set(bad)
while(queue)
  list(POP_FRONT queue f)
  if(f IN_LIST seen)
    continue()
  endif()
  list(APPEND seen ${f})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "${f}: no such file")
  endif()
  get_filename_component(d ${f} DIRECTORY)
  file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
      continue()
    endif()
    set(inc ${CMAKE_MATCH_1})
    if(inc MATCHES "^cws/")
      continue()  # public
    endif()
    get_filename_component(n ${inc} NAME)
    if(inc MATCHES "(^|/)(src|common)/" OR n IN_LIST private_names)
      file(RELATIVE_PATH rel ${ROOT} ${f})
      list(APPEND bad "${rel}: #include ${inc}")
      continue()
    endif()
    foreach(base ${d} ${ROOT}/tests)
      if(EXISTS ${base}/${inc} AND NOT IS_DIRECTORY ${base}/${inc})
        get_filename_component(p ${base}/${inc} REALPATH)
        list(APPEND queue ${p})
        break()
      endif()
    endforeach()
  endforeach()
endwhile()

list(LENGTH seen count)
if(bad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "conformance suites must use public headers only; private includes:\n  ${text}")
endif()
message(STATUS "${count} files of the conformance suites include public headers only")
