# Install + export so that another project can find_package(cclx CONFIG REQUIRED).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS cclx cclx_core EXPORT cclxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cclx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cclxTargets NAMESPACE cclx:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cclxConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cclxConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cclxConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cclxConfig.cmake ${PROJECT_BINARY_DIR}/cclxConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)
