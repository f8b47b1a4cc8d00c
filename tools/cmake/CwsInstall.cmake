# Install rules of the package (included by the top-level CMakeLists.txt when
# CWS_INSTALL is on; the libraries install themselves in cws_add_library, the
# apps and cws-trace in their own directories):
#   lib/cmake/cws/   cws-config.cmake, cws-config-version.cmake, cws-targets*.cmake
#                    (find_package(cws) -> cws::cws, cws::core, cws::steal_tree,
#                    cws::schedulers, cws::traces)
#   lib/pkgconfig/   cws.pc (pkg-config --cflags --libs cws)
# and, at top level, CPack (cpack -G DEB).
include(CMakePackageConfigHelpers)

set(CWS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cws)
install(EXPORT cws-targets NAMESPACE cws:: FILE cws-targets.cmake DESTINATION ${CWS_CMAKE_DIR} COMPONENT devel)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cws-config.cmake.in
                              ${PROJECT_BINARY_DIR}/cws-config.cmake INSTALL_DESTINATION ${CWS_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cws-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cws-config.cmake ${PROJECT_BINARY_DIR}/cws-config-version.cmake
        DESTINATION ${CWS_CMAKE_DIR} COMPONENT devel)

# ---- cws.pc ------------------------------------------------------------------
# Relocatable (prefix from ${pcfiledir}), like the CMake package: it stays
# right under cmake --install --prefix DIR and DESTDIR. The libraries are
# static, so Libs carries what they link (hwloc, numa and fmt through
# Requires) in link order, and their interface link options: -u keeps the
# registration object of libcws_cws.a, --export-dynamic-symbol exports the
# interposed pthread functions.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(FATAL_ERROR "cws.pc needs CMAKE_INSTALL_LIBDIR and CMAKE_INSTALL_INCLUDEDIR relative to the prefix")
endif()
file(RELATIVE_PATH CWS_PC_TO_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
string(REGEX REPLACE "/$" "" CWS_PC_TO_PREFIX "${CWS_PC_TO_PREFIX}")
set(CWS_PC_LIBS "")
set(link_options "")
foreach(target cws_cws cws_traces cws_schedulers cws_steal_tree cws_core cws_platform)
  get_target_property(name ${target} OUTPUT_NAME)
  string(APPEND CWS_PC_LIBS " -l${name}")
  get_target_property(options ${target} INTERFACE_LINK_OPTIONS)
  if(options)
    list(APPEND link_options ${options})
  endif()
endforeach()
list(TRANSFORM link_options REPLACE "^LINKER:" "-Wl,")
list(JOIN link_options " " link_options)
string(APPEND CWS_PC_LIBS " -lboost_serialization")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND CWS_PC_LIBS " -l${lib}")
endforeach()
set(CWS_PC_LIBS "${link_options}${CWS_PC_LIBS} -pthread")
set(CWS_PC_CFLAGS "-std=c++20 -pthread")
set(CWS_PC_REQUIRES_XML "")
if(CWS_HAVE_LIBXML2)
  set(CWS_PC_REQUIRES_XML ", libxml-2.0")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/cws.pc.in ${PROJECT_BINARY_DIR}/cws.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cws.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)

# ---- CPack: cpack -G DEB (from the build directory) ----------------------------
if(PROJECT_IS_TOP_LEVEL)
  set(CPACK_PACKAGE_NAME cws)
  set(CPACK_PACKAGE_VENDOR "cws")
  set(CPACK_PACKAGE_CONTACT "cws maintainers <cws@localhost>")
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
  # Static libraries: a user links hwloc, libnuma, fmt and Boost.Serialization
  # too (the -dev packages); the apps need TBB and OpenMP at run time.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libhwloc-dev (>= 2.0), libnuma-dev, libfmt-dev, libboost-serialization-dev (>= 1.74), pkg-config, libtbb12, libgomp1")
  if(CWS_HAVE_LIBXML2)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libxml2-dev")
  endif()
  include(CPack)
endif()
