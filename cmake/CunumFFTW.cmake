# FFTW 3, the CPU backend of poisson_fft and the external truth its GPU tests are held
# to: double and float, each with its OpenMP threads library. Debian: libfftw3-dev.
# CMAKE_PREFIX_PATH (or FFTW_ROOT) may point at a carried copy (scripts/device-deps puts
# one in .deps/fftw). Required: sets FFTW_INCLUDE_DIR and FFTW_LIBRARIES (full paths,
# threads libraries first, as they call into the base libraries).
find_path(FFTW_INCLUDE_DIR fftw3.h HINTS ${FFTW_ROOT} ENV FFTW_ROOT PATH_SUFFIXES include)
set(FFTW_LIBRARIES "")
foreach(_cunum_fftw_name fftw3_omp fftw3f_omp fftw3 fftw3f)
  find_library(FFTW_${_cunum_fftw_name}_LIBRARY NAMES ${_cunum_fftw_name}
               HINTS ${FFTW_ROOT} ENV FFTW_ROOT PATH_SUFFIXES lib lib64)
  if(NOT FFTW_${_cunum_fftw_name}_LIBRARY)
    message(FATAL_ERROR "FFTW 3 library ${_cunum_fftw_name} not found (Debian: apt-get install libfftw3-dev; "
                        "elsewhere: CMAKE_PREFIX_PATH or FFTW_ROOT naming its prefix)")
  endif()
  list(APPEND FFTW_LIBRARIES ${FFTW_${_cunum_fftw_name}_LIBRARY})
endforeach()
if(NOT FFTW_INCLUDE_DIR)
  message(FATAL_ERROR "fftw3.h not found (Debian: apt-get install libfftw3-dev)")
endif()
# The same libraries as linker flags, for the pkg-config file of a static libcunum.
set(CUNUM_FFTW_PC_LIBS "")
foreach(_cunum_fftw_library ${FFTW_LIBRARIES})
  get_filename_component(_cunum_fftw_dir ${_cunum_fftw_library} DIRECTORY)
  get_filename_component(_cunum_fftw_file ${_cunum_fftw_library} NAME_WE)
  string(REGEX REPLACE "^lib" "" _cunum_fftw_file ${_cunum_fftw_file})
  string(APPEND CUNUM_FFTW_PC_LIBS " -L${_cunum_fftw_dir} -Wl,-rpath,${_cunum_fftw_dir} -l${_cunum_fftw_file}")
endforeach()
list(REMOVE_DUPLICATES FFTW_LIBRARIES)
message(STATUS "FFTW: ${FFTW_LIBRARIES}")
