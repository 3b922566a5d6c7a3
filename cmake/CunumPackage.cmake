# Packages of the install tree (cmake/CunumInstall.cmake): `cmake --build build --target
# package` writes a Debian package and a .tar.gz into build/, with the development and
# programs components (the benches stay out). The .deb installs under /usr; the .tar.gz
# is the same tree under one top directory. The CUDA toolkit is named by no Debian
# package here (NVIDIA's are versioned; a runfile install has none), so the package
# depends on what Debian names: FFTW and pkg-config (cunumConfig.cmake and cunum.pc find
# FFTW through them) and the OpenMP runtime.
set(CPACK_PACKAGE_NAME cunum)
set(CPACK_PACKAGE_VENDOR cunum)
set(CPACK_PACKAGE_CONTACT "cunum developers <dev@cunum.dev>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "C++17/CUDA numerical library with OpenMP CPU backends")
set(CPACK_PACKAGE_DESCRIPTION
    "Static library, headers, CMake package and pkg-config files of cunum (reduce, brownian_bridge, black_scholes, monte_carlo, random, poisson_fft, himeno, access_model, divergence), and the cunum-himeno and cunum-demo programs. Needs the CUDA toolkit ${CUDAToolkit_VERSION_MAJOR} or later.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_COMPONENTS_ALL development programs)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfftw3-dev, pkg-config | pkgconf, libgomp1")
get_property(_cunum_packaged_mpi_libraries GLOBAL PROPERTY CUNUM_MPI_LIBRARIES)
if(_cunum_packaged_mpi_libraries)
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libopenmpi-dev | mpi-default-dev")
endif()
include(CPack)
