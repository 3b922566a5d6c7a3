# Find module for the FFTW 3 that poisson_fft's CPU backend uses: double and float, from
# their pkg-config files (fftw3.pc, fftw3f.pc; Debian: libfftw3-dev), and their OpenMP
# threads libraries (fftw3_omp, fftw3f_omp), which have no pkg-config file and are
# looked for beside them. Used by cunum's build and, installed beside cunumConfig.cmake,
# on the consumer's machine, so that no path of the build machine is installed.
# PKG_CONFIG_PATH, or a prefix in CMAKE_PREFIX_PATH, may name another FFTW.
#
# Defines CunumFFTW_FOUND and the imported target CunumFFTW::FFTW (the threads
# libraries, then PkgConfig::CunumFFTW, the two pkg-config modules).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CunumFFTW QUIET IMPORTED_TARGET fftw3 fftw3f)
endif()

set(_cunum_fftw_dirs "")
foreach(_cunum_fftw_library IN LISTS CunumFFTW_LINK_LIBRARIES)
  get_filename_component(_cunum_fftw_dir "${_cunum_fftw_library}" DIRECTORY)
  list(APPEND _cunum_fftw_dirs "${_cunum_fftw_dir}")
endforeach()
set(_cunum_fftw_threads fftw3_omp fftw3f_omp)
foreach(_cunum_fftw_name IN LISTS _cunum_fftw_threads)
  find_library(CunumFFTW_${_cunum_fftw_name}_LIBRARY NAMES ${_cunum_fftw_name} HINTS ${_cunum_fftw_dirs})
  mark_as_advanced(CunumFFTW_${_cunum_fftw_name}_LIBRARY)
endforeach()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CunumFFTW
  REQUIRED_VARS CunumFFTW_LINK_LIBRARIES CunumFFTW_fftw3_omp_LIBRARY CunumFFTW_fftw3f_omp_LIBRARY
  VERSION_VAR CunumFFTW_fftw3_VERSION
  REASON_FAILURE_MESSAGE "FFTW 3 is found through pkg-config (fftw3.pc and fftw3f.pc) with its OpenMP threads libraries beside it. Debian: apt-get install libfftw3-dev pkg-config, elsewhere PKG_CONFIG_PATH or CMAKE_PREFIX_PATH naming its prefix.")

if(CunumFFTW_FOUND AND NOT TARGET CunumFFTW::FFTW)
  add_library(CunumFFTW::FFTW INTERFACE IMPORTED)
  foreach(_cunum_fftw_name IN LISTS _cunum_fftw_threads)
    add_library(CunumFFTW::${_cunum_fftw_name} UNKNOWN IMPORTED)
    set_target_properties(CunumFFTW::${_cunum_fftw_name} PROPERTIES
                          IMPORTED_LOCATION "${CunumFFTW_${_cunum_fftw_name}_LIBRARY}")
    # The threads libraries call into the base libraries: they come first.
    target_link_libraries(CunumFFTW::FFTW INTERFACE CunumFFTW::${_cunum_fftw_name})
  endforeach()
  target_link_libraries(CunumFFTW::FFTW INTERFACE PkgConfig::CunumFFTW)
endif()
