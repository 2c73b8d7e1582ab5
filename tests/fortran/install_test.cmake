# cmake -DBUILD_DIR=... -DCONSUMER=... -DWORK=... -DC_COMPILER=... -DFortran_COMPILER=...
#       [-DSANITIZE=address,...] -P install_test.cmake
# Installs minv from BUILD_DIR into WORK/prefix, then builds and runs the consumer program the
# three ways the README gives: find_package against the install (the installed .mod files and
# minv::minv are all it needs), find_package against the build tree, and a bare compiler line
# with pkg-config's flags. The installed command line must run from there as it is.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)
file(GLOB mods ${WORK}/prefix/include/minv/*/minv_mod.mod)
if(NOT mods)
  message(FATAL_ERROR "no minv_mod.mod under ${WORK}/prefix/include/minv/<compiler>/")
endif()
# A sanitized libminv needs its runtime first in the consumer too.
if(SANITIZE)
  set(san_flags -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER} ${san_flags})
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/consumer)
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/build-tree -Dminv_DIR=${BUILD_DIR}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER} ${san_flags})
run(${CMAKE_COMMAND} --build ${WORK}/build-tree)
run(${WORK}/build-tree/consumer)
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pcs ${WORK}/prefix/lib*/pkgconfig/minv.pc ${WORK}/prefix/lib/*/pkgconfig/minv.pc) # lib, lib64, lib/<triplet>
get_filename_component(pcdir "${pcs}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs minv OUTPUT_VARIABLE pc_flags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs minv failed in ${pcdir}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
if(SANITIZE)
  set(san_link -fsanitize=${SANITIZE})
endif()
run(${Fortran_COMPILER} ${CONSUMER}/consumer.f90 -o ${WORK}/consumer-pc ${pc_flags} ${san_link})
run(${WORK}/consumer-pc)
if(EXISTS ${WORK}/prefix/bin/minv)
  run(${WORK}/prefix/bin/minv --version)
endif()
