# Run at every build (target minv_commit): the commit the build was made from, for the
# benchmarks' result headers and scripts/gpu-suite.sh's evidence file, which are produced on
# a machine without the git checkout. Files are rewritten only when the commit changes.
#   cmake -DSRC=<source dir> -DOUT=<build dir> -P commit.cmake
cmake_minimum_required(VERSION 3.24)
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD RESULT_VARIABLE rc OUTPUT_VARIABLE commit
                ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  set(commit "unknown (not a git checkout)")
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no OUTPUT_VARIABLE changes ERROR_QUIET)
  if(changes)
    string(APPEND commit " with uncommitted changes")
  endif()
endif()
file(CONFIGURE OUTPUT "${OUT}/commit.txt" CONTENT "@commit@\n" @ONLY)
file(CONFIGURE OUTPUT "${OUT}/include/minv_commit.h" CONTENT "#define MINV_COMMIT \"@commit@\"\n" @ONLY)
