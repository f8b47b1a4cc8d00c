# cws_add_library(<name>
#                 SOURCES <file>...
#                 [OUTPUT_NAME <file name>]       default cws_<name> (lib<OUTPUT_NAME>.a)
#                 [INCLUDE_DIR <dir>]             public headers (<dir>/cws/...), installed to include/
#                 [PRIVATE_INCLUDE_DIR <dir>]     private headers next to the sources
#                 [PUBLIC <dep>...]               needed by users of the headers
#                 [PRIVATE <dep>...]              needed to link (a static library's private
#                                                 deps reach the exported interface as
#                                                 $<LINK_ONLY:...>; cws-config.cmake finds them)
#                 [BUILD_ONLY <dep>...]           needed to compile only (header-only), not exported
#                 [LINK_OPTIONS <option>...])     INTERFACE link options (kept in the export and cws.pc)
#
# Makes the static library cws_<name>, its alias cws::<name> and, when
# CWS_INSTALL is on, installs it in the export set cws-targets as cws::<name>
# (EXPORT_NAME) with its public headers. The warning flags (cws_warnings, and
# -Werror with CWS_STRICT) apply to cws's own compilation only.
function(cws_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_NAME;INCLUDE_DIR;PRIVATE_INCLUDE_DIR"
                        "SOURCES;PUBLIC;PRIVATE;BUILD_ONLY;LINK_OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cws_add_library(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_OUTPUT_NAME)
    set(arg_OUTPUT_NAME cws_${name})
  endif()
  set(target cws_${name})

  add_library(${target} STATIC ${arg_SOURCES})
  add_library(cws::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${arg_OUTPUT_NAME} EXPORT_NAME ${name}
                                             POSITION_INDEPENDENT_CODE ON)
  target_compile_features(${target} PUBLIC cxx_std_20)
  if(arg_INCLUDE_DIR)
    cmake_path(ABSOLUTE_PATH arg_INCLUDE_DIR BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE
               OUTPUT_VARIABLE include_dir)
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${include_dir}>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endif()
  if(arg_PRIVATE_INCLUDE_DIR)
    target_include_directories(${target} PRIVATE ${arg_PRIVATE_INCLUDE_DIR})
  endif()
  set(build_only cws_warnings ${arg_BUILD_ONLY})
  list(TRANSFORM build_only PREPEND "$<BUILD_INTERFACE:")
  list(TRANSFORM build_only APPEND ">")
  target_link_libraries(${target} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE} ${build_only})
  if(arg_LINK_OPTIONS)
    target_link_options(${target} INTERFACE ${arg_LINK_OPTIONS})
  endif()

  if(CWS_INSTALL)
    install(TARGETS ${target} EXPORT cws-targets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
    if(arg_INCLUDE_DIR)
      install(DIRECTORY ${include_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel
              FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
    endif()
  endif()
  set_property(GLOBAL APPEND PROPERTY CWS_LIBRARIES ${target})
endfunction()
