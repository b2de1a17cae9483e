# cmake --install: headers, the SDK library, the mlprof binary and a CMake package so that
# a user's project does find_package(mlprof) and target_link_libraries(app mlprof::mlprof).
include(CMakePackageConfigHelpers)

install(DIRECTORY include/mlprof DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mlprof EXPORT mlprofTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The profiler server (mlprof/server.h) as mlprof::rpc, when gRPC was found.
if(TARGET mlprof_rpc)
  install(TARGETS mlprof_rpc EXPORT mlprofTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET mlprof_cli)
  install(TARGETS mlprof_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT mlprofTargets NAMESPACE mlprof:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mlprof)

configure_package_config_file(cmake/mlprofConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mlprofConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mlprof)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mlprofConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mlprofConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/mlprofConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mlprof)

# A program linked by hand against libmlprof.so.0 finds it at run time: in a folder the dynamic
# linker searches (/usr/lib, /usr/local/lib) once its cache is refreshed, which installing into
# the system does (as root; a staged install, DESTDIR=..., leaves that to the package).
# Elsewhere (a prefix of one's own) the program needs -Wl,-rpath,<prefix>/lib or LD_LIBRARY_PATH;
# find_package(mlprof) users get the rpath from CMake.
install(CODE [[
  if("$ENV{DESTDIR}" STREQUAL "")
    find_program(MLPROF_LDCONFIG ldconfig PATHS /sbin /usr/sbin NO_CACHE)
    if(MLPROF_LDCONFIG)
      execute_process(COMMAND ${MLPROF_LDCONFIG} OUTPUT_QUIET ERROR_QUIET)
    endif()
  endif()
]])
