# make install: headers, both libraries, pkg-config file, CMake package config.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/basalt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS basalt_shared EXPORT basaltTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS basalt_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS basalt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The launcher looks for the CLI at ../libexec/basalt/basalt-cli from bin/.
install(TARGETS basalt_cli RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/basalt)

# The .pc file finds the prefix relative to itself, so the installed tree can be moved.
file(RELATIVE_PATH BASALT_PC_PREFIX_FROM_PCDIR
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/basalt.pc.in ${PROJECT_BINARY_DIR}/basalt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/basalt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(EXPORT basaltTargets NAMESPACE basalt::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/basalt)
configure_package_config_file(cmake/basaltConfig.cmake.in
    ${PROJECT_BINARY_DIR}/basaltConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/basalt)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/basaltConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/basaltConfig.cmake
              ${PROJECT_BINARY_DIR}/basaltConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/basalt)
