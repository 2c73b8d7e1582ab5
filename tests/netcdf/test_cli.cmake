# End-to-end tests of the minv command, run by `cmake -P` with
#   -DMINV=<the minv executable> -DWORK=<an empty folder> -DFIXTURES=<nct_fixtures>
#   -DRESIDUAL=<nct_residual> -DLIBRARY_CRASH=<a file on which HDF5 itself crashes>
#   [-DNCGEN=<ncgen>] [-DNCDUMP=<ncdump>] [-DTRUNCATE=<truncate>]
# Every success must exit 0 with nothing on stderr (no progress bar when stderr is not a
# terminal); every failure must exit non-zero with exactly one line "minv: error: ..." naming
# what is wrong, and leave no output, no temporary file and the input as it was.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run)
  execute_process(COMMAND "${MINV}" ${ARGN} WORKING_DIRECTORY "${WORK}" TIMEOUT 300
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# ok(ARGS ... [EXPECT regex ...]): exit 0, empty stderr, stdout matching every regex.
function(ok)
  cmake_parse_arguments(T "" "" "ARGS;EXPECT" ${ARGN})
  run(${T_ARGS})
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(SEND_ERROR "minv ${T_ARGS}: exit ${rc}, stderr: ${err}")
  endif()
  foreach(re IN LISTS T_EXPECT)
    if(NOT out MATCHES "${re}")
      message(SEND_ERROR "minv ${T_ARGS}: stdout lacks /${re}/:\n${out}")
    endif()
  endforeach()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# fails(CODE c ARGS ... MESSAGE regex [OUTPUT file] [INPUT file]): exit c, one error line
# matching regex, OUTPUT absent with no temporary file beside it, INPUT unchanged.
function(fails)
  cmake_parse_arguments(T "" "CODE;MESSAGE;OUTPUT;INPUT" "ARGS" ${ARGN})
  if(T_INPUT AND EXISTS "${WORK}/${T_INPUT}")
    file(SHA256 "${WORK}/${T_INPUT}" before)
  endif()
  run(${T_ARGS})
  if(NOT rc EQUAL T_CODE)
    message(SEND_ERROR "minv ${T_ARGS}: exit ${rc}, expected ${T_CODE}; stderr: ${err}")
  endif()
  if(NOT err MATCHES "^minv: error: [^\n]*\n$")
    message(SEND_ERROR "minv ${T_ARGS}: stderr is not one 'minv: error:' line:\n${err}")
  endif()
  if(NOT err MATCHES "${T_MESSAGE}")
    message(SEND_ERROR "minv ${T_ARGS}: stderr lacks /${T_MESSAGE}/: ${err}")
  endif()
  if(T_OUTPUT)
    file(GLOB left "${WORK}/${T_OUTPUT}" "${WORK}/${T_OUTPUT}.tmp.*")
    if(left)
      message(SEND_ERROR "minv ${T_ARGS}: left behind: ${left}")
    endif()
  endif()
  if(T_INPUT)
    file(SHA256 "${WORK}/${T_INPUT}" after)
    if(NOT before STREQUAL after)
      message(SEND_ERROR "minv ${T_ARGS}: the input ${T_INPUT} changed")
    endif()
  endif()
endfunction()

# The residual in eps (the report's "residual  r (x eps, ...)") must be below 30.
function(residual_ok)
  if(NOT out MATCHES "residual +[-+.e0-9]+ \\(([-+.e0-9]+) eps")
    message(SEND_ERROR "no residual in:\n${out}")
  elseif(NOT CMAKE_MATCH_1 LESS 30)
    message(SEND_ERROR "residual of ${CMAKE_MATCH_1} eps in:\n${out}")
  endif()
endfunction()

# file_ok([--fortran-order] [--slice K] [--bands] A X [B]): what the command wrote, read back
# through NetCDF-C by nct_residual, has LAPACK's residual ratio below 30 (||I - A X|| or
# ||B - A X||, per member of a batch).
function(file_ok)
  execute_process(COMMAND "${RESIDUAL}" ${ARGN} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE frc OUTPUT_VARIABLE fout
                  ERROR_VARIABLE ferr)
  if(NOT frc EQUAL 0)
    message(SEND_ERROR "nct_residual ${ARGN}: exit ${frc}: ${fout}${ferr}")
  endif()
endfunction()

# ncgen(NAME TEXT...): NAME.nc (netCDF-4) from the CDL text, by ncgen.
function(ncgen name)
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 1 ${last}) # ARGV<i>, not ARGN: the CDL's semicolons would split a list
    string(APPEND cdl "${ARGV${i}}")
  endforeach()
  file(WRITE "${WORK}/${name}.cdl" "${cdl}")
  execute_process(COMMAND "${NCGEN}" -k nc4 -o ${name}.nc ${name}.cdl WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE gen_rc)
  if(NOT gen_rc EQUAL 0)
    message(SEND_ERROR "ncgen failed on ${name}.cdl")
  endif()
endfunction()

# header_check(FILE f [HAS regex ...] [LACKS regex ...]): `ncdump -h f` matches every HAS and
# no LACKS (regexes without ';', which would split the list).
function(header_check)
  cmake_parse_arguments(H "" "FILE" "HAS;LACKS" ${ARGN})
  execute_process(COMMAND "${NCDUMP}" -h ${H_FILE} WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE header)
  foreach(re IN LISTS H_HAS)
    if(NOT header MATCHES "${re}")
      message(SEND_ERROR "${H_FILE} lacks /${re}/:\n${header}")
    endif()
  endforeach()
  foreach(re IN LISTS H_LACKS)
    if(header MATCHES "${re}")
      message(SEND_ERROR "${H_FILE} has /${re}/:\n${header}")
    endif()
  endforeach()
endfunction()

# ---- help and version ----
ok(ARGS --help EXPECT "usage: minv COMMAND" "generate")
ok(ARGS --version EXPECT "^minv [0-9]+\\.[0-9]+")
fails(CODE 2 ARGS --version extra MESSAGE "--version takes no arguments, got 'extra'")
foreach(cmd invert solve info generate)
  ok(ARGS ${cmd} --help EXPECT "usage: minv ${cmd}" "--help")
endforeach()
ok(ARGS invert --help EXPECT "minv invert IN.nc OUT.nc\\[:VAR\\] --tridiagonal DL,D,DU" "--tridiagonal-algorithm")
ok(ARGS solve --help EXPECT "-O: replace an output file that is not netCDF or whose only variable is VAR"
   "overwrite VAR where it has the result's shape and *type and no packing, fill or valid-range attributes, else refuse")

# ---- generate, info, invert, solve ----
ok(ARGS generate soar 400 soar.nc:B EXPECT "minv generate: soar 400 x 400 -> 'soar.nc':B")
ok(ARGS info soar.nc:B
   EXPECT "variable +NC_DOUBLE B\\(n=400, n=400\\) in netCDF-4" "read +[0-9.]+ MB in .*MB/s" "symmetric +yes"
          "diagonal +min 1, max 1 \\(positive\\)" "auto +cholesky"
          "rcond +[0-9.]+e-[0-9]+ \\(1 / \\(\\|\\|A\\|\\|_1 \\|\\|A\\^-1\\|\\|_1\\) from the Cholesky inverse")
ok(ARGS invert soar.nc:B soar_inv.nc
   EXPECT "method +cholesky" "why +AUTO: symmetric" "backend +(cpu|gpu)" "n +400\n" "time +[0-9.]+ s"
          "rate +[0-9.]+ GFLOP/s" "rcond +[0-9.]+e" "read +[0-9.]+ MB in [0-9.]+ s \\(([0-9]+|[0-9]\\.[0-9][0-9]) MB/s\\)" "wrote +")
residual_ok()
file_ok(soar.nc:B soar_inv.nc:B_inv)
ok(ARGS invert soar.nc:B ridge.nc --recondition ridge --target-condition 50
   EXPECT "reconditioned by ridge: delta = [0-9.e+-]+ added to the diagonal")
if(NCDUMP)
  header_check(FILE ridge.nc HAS "B_inv:minv_reason = \"reconditioned by ridge")
endif()
# the floor's note holds '; ' within parentheses, one note still; its rcond is 1 / cond_2
ok(ARGS invert soar.nc:B floor.nc --recondition floor --target-condition 50
   EXPECT "\nwhy +the result is V diag\\(1/lambda'\\) V\\^T \\(rcond is 1/cond_2; no residual, A' is not formed\\)\n"
          "rcond +2\\.00e-02 \\(reciprocal 2-norm condition of the reconditioned matrix\\)")
fails(CODE 2 ARGS invert soar.nc:B r.nc --recondition lasso MESSAGE "expected none, ridge or floor" OUTPUT r.nc)
# --symmetry-tol: every command that reads a matrix takes it, within 0 to 1e-5 (issue 19)
ok(ARGS info soar.nc:B --symmetry-tol 0 EXPECT "symmetric +yes")
ok(ARGS invert soar.nc:B sym.nc --symmetry-tol 1e-9 EXPECT "method +cholesky")
fails(CODE 2 ARGS invert soar.nc:B r.nc --symmetry-tol 0.5 MESSAGE "--symmetry-tol 0.5: expected a number from 0 to 1e-5"
      OUTPUT r.nc)
fails(CODE 2 ARGS invert soar.nc:B r.nc --symmetry-tol 1e-4 MESSAGE "--symmetry-tol 1e-4: expected a number from 0 to 1e-5"
      OUTPUT r.nc)
# the eigenvalue floor takes method auto only: a wrong command line, not a failed job
fails(CODE 2 ARGS invert soar.nc:B r.nc --recondition floor --method lu
      MESSAGE "--recondition floor .* takes --method auto only, not --method lu" OUTPUT r.nc)
fails(CODE 2 ARGS solve soar.nc:B soar.nc:B r.nc --recondition floor --method cholesky
      MESSAGE "takes --method auto only, not --method cholesky" OUTPUT r.nc)
fails(CODE 2 ARGS info soar.nc:B --symmetry-tol tiny MESSAGE "--symmetry-tol tiny: expected a number from 0 to 1e-5")
ok(ARGS generate general 400 --cols 5 --seed 3 rhs.nc:Y)
ok(ARGS solve soar.nc:B rhs.nc:Y x.nc EXPECT "nrhs +5" "method +cholesky")
residual_ok()
file_ok(soar.nc:B x.nc:X rhs.nc:Y)
ok(ARGS solve soar.nc:B rhs.nc:Y x.nc:Z --method lu --precision single --residual full --quiet
   EXPECT "method +lu" "residual .*full")
residual_ok()
file_ok(soar.nc:B x.nc:Z rhs.nc:Y)
ok(ARGS solve soar.nc:B rhs.nc:Y xm.nc:Z --precision mixed --quiet
   EXPECT "method +cholesky" "why +mixed precision: .* factors, [0-9]+ steps? to")
residual_ok()
fails(CODE 2 ARGS solve soar.nc:B rhs.nc:Y xq.nc --precision quad MESSAGE "expected double, single or mixed" OUTPUT xq.nc)
# solve takes the methods its --help lists, no more
foreach(m iterative tridiagonal)
  fails(CODE 2 ARGS solve soar.nc:B rhs.nc:Y xq.nc --method ${m} MESSAGE "--method ${m}: expected auto, cholesky, lu or gauss-jordan\n"
        OUTPUT xq.nc)
endforeach()
if(NCDUMP)
  header_check(FILE soar_inv.nc
    HAS "double B_inv\\(n, n\\)" "B_inv:minv_method = \"cholesky\"" "B_inv:minv_source_file = \"soar.nc\""
        "B_inv:minv_rcond = " "B_inv:minv_reason = \"AUTO: symmetric" ":history = \".*minv")
  # with B's dimensions, in the compute precision's type, as --help says
  header_check(FILE x.nc HAS "double X\\(n, rhs\\)" "float Z\\(n, rhs\\)")
endif()

# ---- one right-hand side as a 1-D variable, and variables inside netCDF-4 groups ----
execute_process(COMMAND "${FIXTURES}" WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE fixtures_rc)
if(NOT fixtures_rc EQUAL 0)
  message(FATAL_ERROR "nct_fixtures failed: ${fixtures_rc}")
endif()
ok(ARGS solve cli_vec.nc:A cli_vec.nc:v xv.nc EXPECT "minv solve: A = 'cli_vec.nc':A, B = 'cli_vec.nc':v -> 'xv.nc':X"
        "n +40\n" "nrhs +1\n" "method +lu")
residual_ok()
file_ok(cli_vec.nc:A xv.nc:X cli_vec.nc:v)
ok(ARGS solve cli_vec.nc:A cli_vec.nc:v xv.nc:XF --fortran-order --precision single EXPECT "nrhs +1\n")
residual_ok()
file_ok(--fortran-order cli_vec.nc:A xv.nc:XF cli_vec.nc:v)
ok(ARGS invert cli_grp.nc:analysis/M grp_inv.nc EXPECT "-> 'grp_inv.nc':M_inv" "method +cholesky")
residual_ok()
ok(ARGS invert cli_grp.nc:/analysis/inner/M grp_inv.nc:inner_inv EXPECT "method +cholesky")
residual_ok()
file_ok(cli_grp.nc:analysis/M grp_inv.nc:M_inv)
file_ok(cli_grp.nc:analysis/inner/M grp_inv.nc:inner_inv)
ok(ARGS solve cli_grp.nc:analysis/M cli_grp.nc:/analysis/v grp_x.nc EXPECT "nrhs +1\n" "method +cholesky")
residual_ok()
file_ok(cli_grp.nc:analysis/M grp_x.nc:X cli_grp.nc:analysis/v)
ok(ARGS info cli_grp.nc:analysis/inner/M EXPECT "NC_DOUBLE analysis/inner/M\\(n=40, n=40\\)" "symmetric +yes")
ok(ARGS invert cli_grp.nc grp_bands.nc --tridiagonal analysis/DL,analysis/D,analysis/DU
   EXPECT "-> 'grp_bands.nc':D_inv" "method +tridiagonal")
residual_ok()
file_ok(--bands cli_grp.nc:analysis/DL,analysis/D,analysis/DU grp_bands.nc:D_inv)
if(NCDUMP)
  header_check(FILE xv.nc
    HAS "double X\\(n\\)" "float XF\\(n\\)" "X:minv_rhs_variable = \"v\"" "X:minv_residual_kind = \"\\|\\|b - A x\\|\\|_inf")
  header_check(FILE grp_inv.nc
    HAS "double M_inv\\(n, n\\)" "double inner_inv\\(n, n\\)" "M_inv:minv_source_variable = \"analysis/M\"")
endif()
fails(CODE 1 ARGS solve cli_vec.nc:v cli_vec.nc:v o.nc MESSAGE "'cli_vec.nc', variable 'v' has rank 1: a matrix needs 2 dimensions"
      OUTPUT o.nc INPUT cli_vec.nc)
fails(CODE 1 ARGS solve cli_vec.nc:A cli_vec.nc:w o.nc OUTPUT o.nc INPUT cli_vec.nc
      MESSAGE "variable 'w' has 39 entries \\(along m\\), but A is 40 x 40: a right-hand side vector needs 40")
fails(CODE 1 ARGS invert cli_grp.nc:M o.nc OUTPUT o.nc INPUT cli_grp.nc
      MESSAGE "'cli_grp.nc' has no variable 'M' \\(its variables: none; its groups: analysis: name a variable in a group by its path")
fails(CODE 1 ARGS invert cli_grp.nc:background/M o.nc MESSAGE "no group 'background' in 'cli_grp.nc'; its groups: analysis"
      OUTPUT o.nc)
fails(CODE 1 ARGS invert cli_grp.nc:analysis/outer/M o.nc OUTPUT o.nc
      MESSAGE "no group 'analysis/outer' in 'cli_grp.nc'; the groups of 'analysis': inner")
fails(CODE 1 ARGS invert cli_grp.nc:analysis/B o.nc OUTPUT o.nc
      MESSAGE "has no variable 'analysis/B' \\(the variables of group 'analysis': M, v, DL, D, DU; its groups: inner")
fails(CODE 1 ARGS invert cli_grp.nc:analysis/M o.nc:analysis/M_inv OUTPUT o.nc INPUT cli_grp.nc
      MESSAGE "output variable 'analysis/M_inv' of 'o.nc' names a group: minv writes its outputs to the root group")

# other kinds, types, formats, options
ok(ARGS generate kms 60 --rho 0.7 --type short --scale 0.001 --format classic kms.nc)
ok(ARGS info kms.nc:A EXPECT "NC_SHORT A\\(n=60, n=60\\) in netCDF-3 classic, contiguous, packed")
ok(ARGS invert kms.nc:A kms_inv.nc --tile 16 --deflate 3 EXPECT "as 16 tiles of 16 x 16")
residual_ok()
file_ok(kms.nc:A kms_inv.nc:A_inv)
ok(ARGS generate gaussian 50 --grid 1d --length 1 --type float --format 64bit-offset g.nc:G)
ok(ARGS invert g.nc:G g_inv.nc --precision single --residual full --threads 1 EXPECT "residual .*full")
file_ok(g.nc:G g_inv.nc:G_inv)
ok(ARGS generate tridiagonal 30 --dims x,y --seed 9 --type int --scale 1e-6 t.nc:T)
ok(ARGS invert t.nc:T t_inv.nc --method lu --fortran-order EXPECT "method +lu")
residual_ok()
file_ok(--fortran-order t.nc:T t_inv.nc:T_inv)
ok(ARGS invert t.nc:T t_auto.nc EXPECT "method +tridiagonal" "why +AUTO: tridiagonal" "why +tridiagonal: each entry written once")
residual_ok()
file_ok(t.nc:T t_auto.nc:T_inv)
ok(ARGS invert t.nc:T t_sm.nc --tridiagonal-algorithm sherman-morrison --precision single
   EXPECT "method +tridiagonal" "why +tridiagonal: the paper's recursive Sherman-Morrison")
residual_ok()
file_ok(t.nc:T t_sm.nc:T_inv)
ok(ARGS generate spd 20 --batch 3 --format cdf5 --type int64 --scale 1e-9 batch.nc:cov)
# a batch is matrix 0 scaled by 1 + t/10, random kinds too: matrix 10 is twice matrix 0 (stored
# as round(value / 1e-9), so within 1)
if(NCDUMP)
  foreach(kind spd general tridiagonal)
    ok(ARGS generate ${kind} 4 --batch 11 --type int64 --scale 1e-9 scaled_${kind}.nc)
    execute_process(COMMAND "${NCDUMP}" -v A scaled_${kind}.nc WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE dump)
    string(REGEX REPLACE ".*\n A =|[ \n;}]" "" values "${dump}")
    string(REPLACE "," ";" values "${values}")
    foreach(k RANGE 15)
      math(EXPR k10 "${k} + 160")
      list(GET values ${k} first)
      list(GET values ${k10} tenth)
      math(EXPR off "${tenth} - 2 * ${first}")
      if(off GREATER 1 OR off LESS -1)
        message(SEND_ERROR "generate ${kind} --batch 11: entry ${k} of matrix 10 is ${tenth}, not twice matrix 0's ${first}")
      endif()
    endforeach()
  endforeach()
endif()
ok(ARGS invert batch.nc:cov batch_inv.nc EXPECT "batch +3 matrices")
file_ok(batch.nc:cov batch_inv.nc:cov_inv)
ok(ARGS invert batch.nc:cov batch_inv2.nc --batch-chunk 2 EXPECT "batch +3 matrices, the largest residual is matrix [0-2]" "why +batch of 3 matrices in chunks of up to 2")
file_ok(batch.nc:cov batch_inv2.nc:cov_inv)
ok(ARGS invert batch.nc:cov slice_inv.nc --slice 2 --method iterative --max-iter 50 --tol 1e-10 --device-memory 512M)
file_ok(--slice 2 batch.nc:cov slice_inv.nc:cov_inv)
ok(ARGS invert soar.nc:B devices_inv.nc --method gauss-jordan --devices all EXPECT "method +gauss-jordan")
residual_ok()
file_ok(soar.nc:B devices_inv.nc:B_inv)
ok(ARGS info batch.nc:cov --slice 1 --no-rcond EXPECT "rcond +not estimated: --no-rcond")
# a solve records the slice of A, and of B where B is sliced too, as invert does
ok(ARGS generate general 20 --cols 2 --batch 3 batch_rhs.nc:Y)
ok(ARGS solve batch.nc:cov batch_rhs.nc:Y slice_x.nc --slice 1)
ok(ARGS generate general 20 --cols 3 rhs_20.nc:Y)
ok(ARGS solve batch.nc:cov rhs_20.nc:Y slice_x2.nc --slice 2)
file_ok(--slice 2 batch.nc:cov slice_x2.nc:X rhs_20.nc:Y)
if(NCDUMP)
  header_check(FILE slice_x.nc
    HAS "X:long_name = \"solution X of A X = B, A = cov from batch.nc at Time = 1 \\(0-based\\), B = Y from batch_rhs.nc at Time = 1 \\(0-based\\)\""
        "X:minv_source_slice = \"Time = 1\"" "X:minv_rhs_slice = \"Time = 1\"")
  header_check(FILE slice_x2.nc
    HAS "X:long_name = \"solution X of A X = B, A = cov from batch.nc at Time = 2 \\(0-based\\), B = Y from rhs_20.nc\""
        "X:minv_source_slice = \"Time = 2\"" "X:minv_rhs_slice = \"none\"")
  header_check(FILE slice_inv.nc HAS "cov_inv:minv_source_slice = \"Time = 2\"")
endif()
ok(ARGS generate soar 12 --grid-shape 4x3 --length 1.5 rect.nc)

# ---- existing outputs: replaced only with -O, as cdo does; a FIFO or device never; no URLs ----
file(WRITE "${WORK}/notnc.nc" "hello\n")
fails(CODE 1 ARGS invert kms.nc:A notnc.nc INPUT notnc.nc
      MESSAGE "output 'notnc.nc' exists and is not a netCDF file: minv replaces an existing file only when asked \\(overwrite; -O")
ok(ARGS invert kms.nc:A notnc.nc -O)
fails(CODE 1 ARGS invert kms.nc:A notnc.nc INPUT notnc.nc MESSAGE "output 'notnc.nc' already holds a variable 'A_inv'")
ok(ARGS invert kms.nc:A notnc.nc --overwrite)
ok(ARGS invert kms.nc:A notnc.nc:second)
fails(CODE 1 ARGS generate kms 5 kms.nc INPUT kms.nc MESSAGE "output 'kms.nc' already holds a variable 'A'")
ok(ARGS generate kms 5 kms5.nc)
ok(ARGS generate kms 5 kms5.nc -O)
ok(ARGS invert kms5.nc:A kms5_inv.nc EXPECT "read 'A' as 1 chunk of 5 x 5," "wrote +[0-9.e-]+ MB in [0-9.e-]+ s \\([0-9]+(\\.[0-9][0-9])? MB/s\\)")
find_program(MKFIFO mkfifo)
if(MKFIFO)
  execute_process(COMMAND ${MKFIFO} fifo.nc WORKING_DIRECTORY "${WORK}")
  fails(CODE 1 ARGS invert kms.nc:A fifo.nc -O MESSAGE "output 'fifo.nc' is a FIFO \\(named pipe\\), not a regular file")
  fails(CODE 1 ARGS info fifo.nc:A MESSAGE "'fifo.nc' is a FIFO \\(named pipe\\), not a regular file")
endif()
fails(CODE 1 ARGS invert kms.nc:A /dev/null -O MESSAGE "output '/dev/null' is a character device")
fails(CODE 1 ARGS info http://127.0.0.1:9/kms.nc:A
      MESSAGE "input 'http://127.0.0.1:9/kms.nc' is a URL: minv reads remote data only when asked \\(allow_remote; --allow-remote")
fails(CODE 1 ARGS invert kms.nc:A http://127.0.0.1:9/o.nc:X MESSAGE "output 'http://127.0.0.1:9/o.nc' is a URL")
run(info http://127.0.0.1:9/kms.nc:A --allow-remote) # asked: netCDF-C tries (and fails: nothing listens there)
if(rc EQUAL 0 OR err MATCHES "is a URL")
  message(SEND_ERROR "info --allow-remote: exit ${rc}, ${err}")
endif()

# ---- a colon in a file's name (ISO times): FILE:VAR is parted at the last colon unless the
# colon is the name's own (the whole names a file, or a file suffix follows it) ----
ok(ARGS invert kms.nc:A inv_2026-01-01T06:00.nc EXPECT "-> 'inv_2026-01-01T06:00.nc':A_inv")
file_ok(kms.nc:A inv_2026-01-01T06:00.nc:A_inv)
file(MAKE_DIRECTORY "${WORK}/run:1") # a folder with a colon
ok(ARGS invert kms.nc:A run:1/inv.nc EXPECT "-> 'run:1/inv.nc':A_inv")
ok(ARGS invert inv_2026-01-01T06:00.nc:A_inv back_2026-01-01T06:00.nc:X
   EXPECT "'inv_2026-01-01T06:00.nc':A_inv -> 'back_2026-01-01T06:00.nc':X")
fails(CODE 2 ARGS info inv_2026-01-01T06:00.nc
      MESSAGE "expected FILE.nc:VARIABLE .the variable to read after the colon. `ncdump -h inv_2026-01-01T06:00.nc` lists them")
ok(ARGS invert cli_grp.nc:analysis/M grp_2026-01-01T06:00.nc -O EXPECT "'cli_grp.nc':analysis/M -> 'grp_2026-01-01T06:00.nc':M_inv")

# ---- a file that crashes HDF5 itself: the command's guarded open says so in one line ----
file(COPY "${LIBRARY_CRASH}" DESTINATION "${WORK}")
get_filename_component(crash "${LIBRARY_CRASH}" NAME)
foreach(cmd info invert solve)
  set(args ${crash}:A)
  if(cmd STREQUAL "invert")
    list(APPEND args crash_out.nc)
  elseif(cmd STREQUAL "solve")
    set(args kms.nc:A ${crash}:A crash_out.nc)
  endif()
  fails(CODE 1 ARGS ${cmd} ${args} INPUT ${crash} OUTPUT crash_out.nc
        MESSAGE "'${crash}': NetCDF-C or HDF5 crashed \\([^)]+\\) reading it for variable 'A': the file is corrupt")
endforeach()

# ---- the output's format follows the input's where the result fits it; --format, --deflate ----
if(NCDUMP)
  function(kind_is file expected)
    execute_process(COMMAND "${NCDUMP}" -k ${file} WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE k
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT k STREQUAL expected)
      message(SEND_ERROR "${file} is '${k}', expected '${expected}'")
    endif()
  endfunction()
  ok(ARGS invert kms.nc:A fmt_classic.nc)
  kind_is(fmt_classic.nc "classic")
  ok(ARGS invert g.nc:G fmt_64.nc)
  kind_is(fmt_64.nc "64-bit offset")
  ok(ARGS invert batch.nc:cov fmt_cdf5.nc)
  kind_is(fmt_cdf5.nc "cdf5")
  ok(ARGS invert kms.nc:A fmt_nc4.nc --format netcdf4)
  kind_is(fmt_nc4.nc "netCDF-4")
  ok(ARGS invert soar.nc:B fmt_c.nc --format classic)
  kind_is(fmt_c.nc "classic")
  ok(ARGS invert soar.nc:B fmt_o.nc --format 64bit)
  kind_is(fmt_o.nc "64-bit offset")
  ok(ARGS invert kms.nc:A fmt_deflate.nc --deflate 4
     EXPECT "why +the output is netCDF-4, not netCDF-3 classic as the input: deflation needs netCDF-4")
  kind_is(fmt_deflate.nc "netCDF-4")
  ok(ARGS invert soar.nc:B fmt_nc7.nc --format netcdf4-classic --deflate 2)
  kind_is(fmt_nc7.nc "netCDF-4 classic model")
  ok(ARGS generate general 60 --cols 2 --format classic rhs_c.nc:Y)
  ok(ARGS solve kms.nc:A rhs_c.nc:Y fmt_x.nc)
  kind_is(fmt_x.nc "classic")
  ok(ARGS generate kms 8 --format cdf5 gen_cdf5.nc)
  kind_is(gen_cdf5.nc "cdf5")
endif()
fails(CODE 2 ARGS invert kms.nc:A fmt_bad.nc --format classic --deflate 3 MESSAGE "--deflate needs a netCDF-4 output" OUTPUT fmt_bad.nc)
fails(CODE 2 ARGS invert kms.nc:A fmt_bad.nc --format hdf MESSAGE "--format hdf: expected classic, 64bit" OUTPUT fmt_bad.nc)
fails(CODE 2 ARGS generate kms 8 fmt_bad.nc --format classic --deflate 1 MESSAGE "--deflate needs --format netcdf4" OUTPUT fmt_bad.nc)

# ---- failures: one line, the right exit status, nothing left behind ----
fails(CODE 2 ARGS MESSAGE "no command given")
fails(CODE 2 ARGS frobnicate MESSAGE "unknown command 'frobnicate'")
fails(CODE 2 ARGS invert soar.nc:B MESSAGE "expected IN.nc:VAR OUT.nc")
fails(CODE 2 ARGS invert soar.nc o.nc MESSAGE "expected FILE.nc:VARIABLE .the variable to read after the colon. `ncdump -h soar.nc` lists them" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --bogus MESSAGE "unknown option --bogus" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc -x MESSAGE "unknown option -x \\(see minv invert --help\\)" OUTPUT o.nc)
ok(ARGS invert soar.nc:B quiet.nc -q) # -q: --quiet's short form, not a file name
fails(CODE 2 ARGS invert soar.nc:B o.nc --method qr MESSAGE "--method qr: expected auto" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --device-memory 2X MESSAGE "--device-memory 2X" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --devices 0,x MESSAGE "--devices 0,x" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --devices , MESSAGE "--devices ," OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --slice a MESSAGE "--slice a" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --tile MESSAGE "--tile needs a value" OUTPUT o.nc)
fails(CODE 2 ARGS generate soar 10 sq.nc MESSAGE "N = 10 is not a perfect square" OUTPUT sq.nc)
fails(CODE 2 ARGS generate blob 10 sq.nc MESSAGE "unknown kind 'blob'" OUTPUT sq.nc)
# options that do not apply are refused, saying what they apply to
fails(CODE 2 ARGS invert soar.nc:B o.nc --tol 1e-8 MESSAGE "--tol applies to the iterative method only" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --method lu --max-iter 5 MESSAGE "--max-iter applies to the iterative method only"
      OUTPUT o.nc)
fails(CODE 2 ARGS solve soar.nc:B rhs.nc:Y o.nc --target-condition 50 MESSAGE "--target-condition applies to reconditioning only"
      OUTPUT o.nc)
fails(CODE 2 ARGS generate kms 10 sq.nc --seed 5 MESSAGE "--seed is for the random kinds spd, general and tridiagonal, not kms"
      OUTPUT sq.nc)
fails(CODE 2 ARGS generate soar 16 sq.nc --seed 5 MESSAGE "--seed is for the random kinds" OUTPUT sq.nc)
fails(CODE 2 ARGS generate soar 16 sq.nc --grid 1d --grid-shape 4x4 MESSAGE "--grid-shape 4x4 is a 2-D grid, and --grid 1d a line"
      OUTPUT sq.nc)
fails(CODE 2 ARGS generate spd 16 sq.nc --rho 0.3 MESSAGE "for kms" OUTPUT sq.nc)
# NX * NY overflows a 64-bit integer (undefined behaviour the sanitizer run catches)
fails(CODE 2 ARGS generate soar 12 --grid-shape 4294967296x4294967297 sq.nc MESSAGE "expected NXxNY with NX \\* NY = N = 12"
      OUTPUT sq.nc)
fails(CODE 1 ARGS invert missing.nc:A o.nc MESSAGE "cannot open 'missing.nc' to read variable 'A': No such file" OUTPUT o.nc)
fails(CODE 1 ARGS invert soar.nc:Z o.nc MESSAGE "'soar.nc' has no variable 'Z' \\(its variables: B\\)" OUTPUT o.nc INPUT soar.nc)
fails(CODE 1 ARGS invert rhs.nc:Y o.nc MESSAGE "'rhs.nc', variable Y\\(n=400, rhs=5\\) is a 400 x 5 matrix, not square"
      OUTPUT o.nc INPUT rhs.nc)
fails(CODE 1 ARGS invert batch.nc:cov o.nc --slice 9 MESSAGE "slice index 9 is outside dimension Time" OUTPUT o.nc)
fails(CODE 1 ARGS invert soar.nc:B soar.nc:C MESSAGE "minv never modifies its input" INPUT soar.nc)
fails(CODE 1 ARGS invert soar.nc:B nodir/o.nc MESSAGE "the directory 'nodir' does not exist")
fails(CODE 1 ARGS invert soar.nc:B o.nc --method tridiagonal
      MESSAGE "needs a tridiagonal matrix, and A has lower bandwidth 399 and upper bandwidth 399" OUTPUT o.nc INPUT soar.nc)
fails(CODE 2 ARGS invert soar.nc o.nc --tridiagonal DL,D MESSAGE "--tridiagonal DL,D: expected three variable names" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --tridiagonal DL,D,DU MESSAGE "give IN.nc without a variable" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc o.nc --tridiagonal DL,D,DU --method lu MESSAGE "by the tridiagonal method, not --method lu" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc o.nc --tridiagonal DL,D,DU --slice 1 MESSAGE "--slice, --tile and --fortran-order do not apply" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --tridiagonal-algorithm fast MESSAGE "--tridiagonal-algorithm fast: expected auto" OUTPUT o.nc)
fails(CODE 1 ARGS invert soar.nc o.nc --tridiagonal DL,B,DU MESSAGE "variable 'DL' has rank|has no variable 'DL'" OUTPUT o.nc INPUT soar.nc)
ok(ARGS generate general 7 --cols 3 b7.nc:B)
fails(CODE 1 ARGS solve soar.nc:B b7.nc:B x7.nc MESSAGE "one of B's dimensions must have length 400" OUTPUT x7.nc
      INPUT soar.nc)
# a failed run keeps an existing output as it was
ok(ARGS invert kms.nc:A keep.nc)
fails(CODE 1 ARGS invert rhs.nc:Y keep.nc:A_inv MESSAGE "not square" INPUT keep.nc)
file_ok(kms.nc:A keep.nc:A_inv)
file(GLOB left "${WORK}/keep.nc.tmp.*")
if(left)
  message(SEND_ERROR "temporary files left: ${left}")
endif()
# Gauss-Jordan runs on every backend; the GPU, where this machine has none, fails with the
# library's clear line, and where it has one gives a result that holds
ok(ARGS invert soar.nc:B opt.nc --method gauss-jordan EXPECT "method +gauss-jordan")
residual_ok()
file_ok(soar.nc:B opt.nc:B_inv)
file(REMOVE "${WORK}/opt.nc")
run(invert soar.nc:B opt.nc --backend gpu)
if(rc EQUAL 0)
  if(NOT err STREQUAL "" OR NOT out MATCHES "backend +gpu")
    message(SEND_ERROR "minv invert --backend gpu: stderr: ${err}, stdout:\n${out}")
  endif()
  residual_ok()
  file_ok(soar.nc:B opt.nc:B_inv)
  message(STATUS "--backend gpu: ran on the GPU")
elseif(NOT err MATCHES "^minv: error: [^\n]*GPU[^\n]*\n$")
  message(SEND_ERROR "minv invert --backend gpu: exit ${rc}, stderr: ${err}")
else()
  message(STATUS "--backend gpu: no GPU here (${err})")
endif()
file(REMOVE "${WORK}/opt.nc")

if(TRUNCATE)
  ok(ARGS generate kms 100 --format classic trunc.nc)
  execute_process(COMMAND "${TRUNCATE}" -s 20000 trunc.nc WORKING_DIRECTORY "${WORK}")
  fails(CODE 1 ARGS invert trunc.nc:A o.nc MESSAGE "'trunc.nc' is truncated" OUTPUT o.nc INPUT trunc.nc)
  ok(ARGS generate kms 100 trunc4.nc)
  execute_process(COMMAND "${TRUNCATE}" -s 20000 trunc4.nc WORKING_DIRECTORY "${WORK}")
  fails(CODE 1 ARGS invert trunc4.nc:A o.nc MESSAGE "trunc4.nc" OUTPUT o.nc INPUT trunc4.nc)
endif()

if(NCGEN)
  ncgen(bad "netcdf bad {\ndimensions:\n  a = 2 ;\n  b = 2 ;\n  n = 3 ;\nvariables:\n"
        "  double F(n, n) ;\n    F:_FillValue = -999. ;\n  double N(n, n) ;\n  double W(a, b, n, n) ;\n"
        "data:\n  F = 1, 0, 0, 0, 1, _, 0, 0, 1 ;\n  N = 1, 0, 0, 0, 1, 0, NaN, 0, 1 ;\n}\n")
  fails(CODE 1 ARGS invert bad.nc:F o.nc MESSAGE "'bad.nc', variable 'F': entry \\(2, 3\\) \\(row, column, 1-based.* _FillValue -999"
        OUTPUT o.nc INPUT bad.nc)
  fails(CODE 1 ARGS invert bad.nc:N o.nc MESSAGE "'bad.nc', variable 'N': entry \\(3, 1\\) .*is NaN" OUTPUT o.nc INPUT bad.nc)
  fails(CODE 1 ARGS invert bad.nc:W o.nc MESSAGE "has rank 4: give 2 slice indices \\(for a, b\\)" OUTPUT o.nc)
  fails(CODE 1 ARGS invert bad.nc:W o.nc --slice 1 MESSAGE "holds no matrices|is empty|missing|fill" OUTPUT o.nc)
  ok(ARGS info bad.nc:N EXPECT "finite +no: the first NaN or Inf is at \\(3, 1\\)" "invert +not run: the matrix is not finite\n"
                              "rcond +not estimated")

  # ---- what the output carries over: global attributes, history (NCO's way), units ----
  file(WRITE "${WORK}/meta.cdl" "netcdf meta {\ndimensions:\n  n = 2 ;\n  m = 1 ;\nvariables:\n"
       "  double B(n, n) ;\n    B:units = \"K2\" ;\n    B:long_name = \"background error covariance\" ;\n"
       "    B:standard_name = \"air_temperature\" ;\n    B:comment = \"from the ensemble\" ;\n"
       "    B:coordinates = \"lat lon\" ;\n    B:valid_range = 0., 100. ;\n    B:_FillValue = -999. ;\n"
       "  double Y(n) ;\n    Y:units = \"m s-1\" ;\n  double T(n) ;\n    T:units = \"days since 2000-01-01\" ;\n"
       "  double DL(m) ;\n  double D(n) ;\n    D:units = \"s-1\" ;\n  double DU(m) ;\n"
       "  double S(n, n) ;\n    string S:units = \"m2\" ;\n    S:counts = 1LL, 2LL ;\n    string S:labels = \"a\", \"b\" ;\n"
       "    S:flag = 1UB ;\n    string S:comment = \"one string\" ;\n"
       "  string :source = \"a string attribute\" ;\n  :title = \"3D-Var test case\" ;\n  :Conventions = \"CF-1.8\" ;\n"
       "  :history = \"Mon Jan  1 00:00:00 2024: ncks -O raw.nc meta.nc\" ;\n"
       "data:\n  B = 2, 0, 0, 4 ;\n  S = 2, 0, 0, 4 ;\n  Y = 1, 1 ;\n  T = 1, 2 ;\n  DL = 1 ;\n  D = 2, 2 ;\n  DU = 0 ;\n}\n")
  execute_process(COMMAND "${NCGEN}" -k nc4 -o meta.nc meta.cdl WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE gen_rc)
  ok(ARGS invert meta.nc:B meta_inv.nc EXPECT "time +[0-9.e+-]+ s, ")
  ok(ARGS solve meta.nc:B meta.nc:Y meta_x.nc)
  ok(ARGS invert meta.nc meta_bands.nc --tridiagonal DL,D,DU)
  ok(ARGS solve meta.nc:B meta.nc:T meta_t.nc)
  ok(ARGS invert meta.nc:B meta_classic.nc --format classic)
  ok(ARGS invert meta.nc:S meta_s.nc) # units as a netCDF-4 string attribute (h5py and h5netcdf write them)
  ok(ARGS invert meta.nc:S meta_s_classic.nc --format classic)
  if(NCDUMP)
    header_check(FILE meta_inv.nc
      HAS "B_inv:units = \"K-2\"" "B_inv:comment = \"from the ensemble\"" ":title = \"3D-Var test case\""
          "B_inv:minv_not_carried = \"standard_name, coordinates, valid_range, _FillValue \\(not true of the result\\)\""
          ":Conventions = \"CF-1.8\"" "string :source = \"a string attribute\""
          ":history = \"[A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]+ [0-9]+: minv invert meta.nc:B meta_inv.nc \\(minv [0-9.]+: inversion of meta.nc:B written as B_inv[^\n]*\\)\\\\nMon Jan  1 00:00:00 2024: ncks -O raw.nc meta.nc\""
      LACKS "B_inv:standard_name" "B_inv:coordinates" "B_inv:valid_range" "B_inv:_FillValue")
    # a solve's units are B's over A's; units that do not divide are dropped, and said so
    header_check(FILE meta_x.nc HAS "X:units = \"m s-1 K-2\"" ":title = \"3D-Var test case\"")
    header_check(FILE meta_t.nc LACKS "X:units"
      HAS "X:minv_not_carried = \"units .+days since 2000-01-01.+ over .+K2.+ \\(minv cannot divide them\\)\"")
    # a single string goes to a classic file as text; string arrays, int64 and ubyte cannot go
    header_check(FILE meta_classic.nc HAS ":source = \"a string attribute\"" ":title = \"3D-Var test case\""
                 LACKS "lacks the type")
    header_check(FILE meta_s_classic.nc HAS "S_inv:comment = \"one string\"" "S_inv:units = \"m-2\""
                 "S_inv:minv_not_carried = \"counts, labels, flag \\(the format lacks the type: netCDF-3 classic\\)\""
                 LACKS "S_inv:counts" "S_inv:labels" "S_inv:flag" "not true of the result")
    header_check(FILE meta_s.nc HAS "S_inv:counts = 1LL, 2LL" "string S_inv:labels = \"a\", \"b\"" LACKS "minv_not_carried")
    header_check(FILE meta_bands.nc HAS "D_inv:units = \"s\"")
    header_check(FILE meta_s.nc HAS "S_inv:units = \"m-2\"")
  endif()

  # a tridiagonal matrix as its three bands: A = [2 0; 1 2], so A^-1 = [0.5 0; -0.25 0.5]
  ncgen(bands "netcdf bands {\ndimensions:\n  n = 2 ;\n  m = 1 ;\n  k = 3 ;\nvariables:\n"
        "  double DL(m) ;\n  double D(n) ;\n  float DU(m) ;\n  double E(k) ;\n  double F(n, n) ;\n  double Z(n) ;\n"
        "  double G(n) ;\n    G:_FillValue = -999. ;\n"
        "data:\n  DL = 1 ;\n  D = 2, 2 ;\n  DU = 0 ;\n  E = 1, 2, 3 ;\n  F = 1, 2, 3, 4 ;\n  Z = 0, 0 ;\n  G = 2, _ ;\n}\n")
  ok(ARGS invert bands.nc bands_inv.nc --tridiagonal DL,D,DU
     EXPECT "minv invert: 'bands.nc':bands DL,D,DU -> 'bands_inv.nc':D_inv" "method +tridiagonal" "n +2\n"
            "why +tridiagonal: each entry written once" "read +.*the three bands whole" "wrote +")
  residual_ok()
  file_ok(--bands bands.nc:DL,D,DU bands_inv.nc:D_inv)
  if(NCDUMP)
    execute_process(COMMAND "${NCDUMP}" bands_inv.nc WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE dump)
    foreach(re "double D_inv\\(n, n\\)" "D_inv:minv_source_variable = \"DL,D,DU\"" "D_inv:minv_method = \"tridiagonal\""
               "D_inv =[ \n]+0.5, -?0,[ \n]+-0.25, 0.5 ;")
      if(NOT dump MATCHES "${re}")
        message(SEND_ERROR "bands_inv.nc lacks /${re}/:\n${dump}")
      endif()
    endforeach()
  endif()
  foreach(algorithm write-once sherman-morrison pivoted)
    ok(ARGS invert bands.nc bands_inv.nc:X -O --tridiagonal DL,D,DU --tridiagonal-algorithm ${algorithm} --precision single
       EXPECT "method +tridiagonal")
    residual_ok()
    file_ok(--bands bands.nc:DL,D,DU bands_inv.nc:X)
  endforeach()
  fails(CODE 1 ARGS invert bands.nc o.nc --tridiagonal E,D,DU OUTPUT o.nc INPUT bands.nc
        MESSAGE "variable 'E' has 3 entries, but the sub-diagonal of a tridiagonal matrix of order 2 \\(the length of 'D'\\) has 1")
  fails(CODE 1 ARGS invert bands.nc o.nc --tridiagonal DL,F,DU OUTPUT o.nc
        MESSAGE "variable 'F' has rank 2: a band of a tridiagonal matrix needs 1 dimension")
  fails(CODE 1 ARGS invert bands.nc o.nc --tridiagonal DL,D,Q MESSAGE "'bands.nc' has no variable 'Q'" OUTPUT o.nc)
  fails(CODE 1 ARGS invert bands.nc o.nc --tridiagonal DL,G,DU OUTPUT o.nc
        MESSAGE "variable 'G': entry 2 \\(1-based; the first bad one\\) is the _FillValue -999")
  fails(CODE 1 ARGS invert bands.nc o.nc --tridiagonal DL,Z,DU OUTPUT o.nc INPUT bands.nc
        MESSAGE "'bands.nc', bands DL,Z,DU: .*singular")
endif()

# ---- each subcommand's help lists its own options, with its own text ----
# help(CMD HAS opt ... LACKS opt ...): the options section of `minv CMD --help`.
function(help cmd)
  cmake_parse_arguments(T "" "" "HAS;LACKS" ${ARGN})
  ok(ARGS ${cmd} --help)
  string(REGEX REPLACE "^.*\noptions:\n" "" listed "${out}")
  foreach(opt IN LISTS T_HAS)
    if(NOT listed MATCHES "\n  --${opt}[ \n]" AND NOT listed MATCHES "^  --${opt}[ \n]")
      message(SEND_ERROR "minv ${cmd} --help lacks --${opt}:\n${out}")
    endif()
  endforeach()
  foreach(opt IN LISTS T_LACKS)
    if(listed MATCHES "--${opt}[ \n]")
      message(SEND_ERROR "minv ${cmd} --help lists --${opt}, which ${cmd} does not take:\n${out}")
    endif()
  endforeach()
endfunction()
help(info HAS method backend precision slice tile fortran-order no-rcond json quiet help
     LACKS batch-chunk recondition target-condition tol max-iter residual deflate tridiagonal devices length)
help(solve HAS method backend residual recondition slice deflate quiet
     LACKS batch-chunk tridiagonal tridiagonal-algorithm tol max-iter no-rcond length)
help(invert HAS method batch-chunk tridiagonal tridiagonal-algorithm tol max-iter residual deflate
     LACKS no-rcond json length cols)
help(generate HAS length grid rho seed cols batch type scale format dims deflate quiet
     LACKS method backend slice batch-chunk no-rcond)
# --format lists the same spellings everywhere, those cli_parse_format takes
foreach(cmd invert solve generate)
  ok(ARGS ${cmd} --help EXPECT "--format FORMAT +classic, 64bit \\(or 64bit-offset\\), cdf5, netcdf4 or netcdf4-classic")
endforeach()
ok(ARGS generate --help EXPECT "n,rhs for *general --cols K")
foreach(cmd invert solve)
  ok(ARGS ${cmd} --help EXPECT "compute precision, whatever the type on disk, and the output's type: double, or float for single")
endforeach()
ok(ARGS generate general 6 --cols 2 dims.nc:Y --format 64bit)
ok(ARGS generate general 6 dims.nc:G --format 64bit-offset)
if(NCDUMP)
  header_check(FILE dims.nc HAS "double Y\\(n, rhs\\)" "double G\\(row, col\\)")
endif()
run(solve --help)
if(out MATCHES "invert N whole matrices" OR NOT out MATCHES "--method auto\\|cholesky\\|lu\\|gauss-jordan\n")
  message(SEND_ERROR "minv solve --help speaks of inverting, or offers methods solve lacks:\n${out}")
endif()
fails(CODE 2 ARGS info soar.nc:B --batch-chunk 2 MESSAGE "info: unknown option --batch-chunk \\(see minv info --help\\)")
fails(CODE 2 ARGS solve soar.nc:B rhs.nc:Y o.nc --tridiagonal DL,D,DU MESSAGE "solve: unknown option --tridiagonal"
      OUTPUT o.nc)

# ---- the progress of the computation on a terminal (a pseudo-terminal by `script`),
#      between the read and write bars: each phase with its percentage and the seconds so far ----
find_program(SCRIPT script)
if(SCRIPT)
  # tty(ARGS ...): runs minv on a terminal; `tty` is everything it drew there.
  function(tty)
    set(line "'${MINV}'")
    foreach(a IN LISTS ARGN)
      string(APPEND line " '${a}'")
    endforeach()
    execute_process(COMMAND "${SCRIPT}" -qec "${line}" /dev/null WORKING_DIRECTORY "${WORK}" INPUT_FILE /dev/null
                    RESULT_VARIABLE rc OUTPUT_VARIABLE drawn ERROR_VARIABLE drawn)
    if(NOT rc EQUAL 0)
      message(SEND_ERROR "minv ${ARGN} on a terminal: exit ${rc}:\n${drawn}")
    endif()
    set(tty "${drawn}" PARENT_SCOPE)
  endfunction()
  foreach(m cholesky lu)
    tty(invert soar.nc:B tty_${m}.nc --method ${m} --residual full)
    foreach(stage read analysis "${m} factor" "${m} invert" residual write)
      if(NOT tty MATCHES "\r${stage} +\\[[# ]+\\] +[0-9]+% +[0-9]+\\.[0-9] s")
        message(SEND_ERROR "minv invert --method ${m} on a terminal: no '${stage}' progress line in:\n${tty}")
      endif()
    endforeach()
    if(NOT tty MATCHES "method +${m}")
      message(SEND_ERROR "minv invert --method ${m} on a terminal: no report:\n${tty}")
    endif()
  endforeach()
  tty(solve soar.nc:B rhs.nc:Y tty_x.nc)
  foreach(stage read analysis "cholesky factor" "cholesky solve" residual write)
    if(NOT tty MATCHES "\r${stage} +\\[")
      message(SEND_ERROR "minv solve on a terminal: no '${stage}' progress line in:\n${tty}")
    endif()
  endforeach()
  tty(invert soar.nc:B tty_q.nc --quiet)
  if(tty MATCHES "\\[[# ]+\\] +[0-9]+%" OR NOT tty MATCHES "method +cholesky")
    message(SEND_ERROR "minv invert --quiet on a terminal drew progress:\n${tty}")
  endif()
endif()

# ---- minv info says what invert would do, batches included, and --json ----
# json_is(KEY... EQUALS value | TYPE type): the member of the last `out` (which must be valid
# JSON) at that path, or its type (NULL, NUMBER, STRING, BOOLEAN, ARRAY, OBJECT).
function(json_is)
  cmake_parse_arguments(T "" "EQUALS;TYPE" "" ${ARGN})
  if(DEFINED T_TYPE)
    string(JSON got ERROR_VARIABLE bad TYPE "${out}" ${T_UNPARSED_ARGUMENTS})
    set(T_EQUALS "${T_TYPE}")
  else()
    string(JSON got ERROR_VARIABLE bad GET "${out}" ${T_UNPARSED_ARGUMENTS})
  endif()
  if(bad OR NOT got STREQUAL "${T_EQUALS}")
    message(SEND_ERROR "info --json: ${T_UNPARSED_ARGUMENTS} is '${got}' (${bad}), expected '${T_EQUALS}':\n${out}")
  endif()
endfunction()
find_program(PYTHON3 python3)
function(json_valid what)
  if(PYTHON3)
    file(WRITE "${WORK}/info.json" "${out}")
    execute_process(COMMAND "${PYTHON3}" -m json.tool info.json WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE bad
                    OUTPUT_QUIET ERROR_VARIABLE why)
    if(bad)
      message(SEND_ERROR "info --json ${what}: python3 -m json.tool rejects it (${why}):\n${out}")
    endif()
  endif()
endfunction()
if(NCGEN)
  # M: a batch of an SPD matrix, a symmetric indefinite one with a positive diagonal (AUTO's
  # Cholesky fails, LU takes it) and a non-symmetric one; N: a NaN in its matrix 1; I: the
  # indefinite one alone, not tridiagonal
  ncgen(mix "netcdf mix {\ndimensions:\n  k = 3 ;\n  n = 3 ;\nvariables:\n"
        "  double M(k, n, n) ;\n  double N(k, n, n) ;\n  double I(n, n) ;\ndata:\n"
        "  M = 4, 1, 0, 1, 3, 0, 0, 0, 2,  1, 2, 2, 2, 1, 2, 2, 2, 1,  1, 2, 0, 0, 1, 0, 0, 0, 1 ;\n"
        "  N = 4, 1, 0, 1, 3, 0, 0, 0, 2,  1, 0, 0, 0, NaN, 0, 0, 0, 1,  2, 0, 0, 0, 2, 0, 0, 0, 2 ;\n"
        "  I = 1, 2, 2, 2, 1, 2, 2, 2, 1 ;\n}\n")
  # AUTO says Cholesky; invert falls back to LU, and so does the estimate, saying so
  ok(ARGS info mix.nc:I
     EXPECT "auto +cholesky\n"
            "invert +lu \\(AUTO: symmetric with a positive diagonal, so Cholesky; not positive definite at column 2, so LU instead\\)"
            "rcond +1\\.43e-01 \\(1 / \\(\\|\\|A\\|\\|_1 \\|\\|A\\^-1\\|\\|_1\\) from the LU inverse")
  ok(ARGS invert mix.nc:I mix_inv.nc EXPECT "method +lu" "not positive definite at column 2, so LU instead")
  ok(ARGS info mix.nc:I --json)
  json_valid("of a matrix")
  json_is(schema EQUALS "minv-info/1")
  json_is(kind EQUALS "matrix")
  json_is(n EQUALS 3)
  json_is(symmetric EQUALS ON)
  json_is(auto EQUALS "cholesky")
  json_is(invert method EQUALS "lu")
  json_is(invert notes 1 EQUALS "not positive definite at column 2, so LU instead")
  json_is(rcond method EQUALS "lu")
  json_is(rcond value TYPE NUMBER)
  json_is(rcond singular EQUALS OFF)
  json_is(rcond_skipped TYPE NULL)
  # a batch: counts over its matrices and what invert does with each
  ok(ARGS info mix.nc:M
     EXPECT "batch +3 matrices of order 3 along k" "finite +3 of 3" "symmetric +2 of 3, 2 of them with a positive diagonal"
            "auto +the SPD path for 2, the general path for 1" "invert +cholesky for 1, lu for 2 on the "
            "spd +1 of 3" "failed +none" "rcond +worst [0-9.e+-]+ \\(matrix [0-2], 0-based\\), best")
  ok(ARGS info mix.nc:M --json)
  json_valid("of a batch")
  json_is(kind EQUALS "batch")
  json_is(count EQUALS 3)
  json_is(dimension EQUALS "k")
  json_is(counts symmetric EQUALS 2)
  json_is(counts spd_candidates EQUALS 2)
  json_is(auto spd_path EQUALS 2)
  json_is(invert methods cholesky EQUALS 1)
  json_is(invert methods lu EQUALS 2)
  json_is(invert spd EQUALS 1)
  json_is(invert failed EQUALS 0)
  ok(ARGS info mix.nc:M --method cholesky EXPECT "failed +2: the first is matrix 1 \\(0-based\\): the leading minor of order 2")
  ok(ARGS info mix.nc:N EXPECT "finite +2 of 3: the first NaN or Inf is in matrix 1 \\(0-based\\) at \\(2, 2\\)"
                               "invert +not run: matrix 1 \\(0-based\\) is not finite")
  ok(ARGS info mix.nc:N --json)
  json_valid("of a batch with a NaN")
  json_is(first_non_finite matrix EQUALS 1)
  json_is(first_non_finite row EQUALS 2)
  json_is(invert TYPE NULL)
  ok(ARGS info mix.nc:M --slice 1 EXPECT "invert +lu \\(AUTO")
  # invert refuses a matrix with a NaN, whatever AUTO would choose: info says so
  ok(ARGS info mix.nc:N --slice 1 --json)
  json_is(invert TYPE NULL)
  json_is(rcond_skipped EQUALS "the matrix is not finite")
  # AUTO's Cholesky falls back to LU, which finds A singular too: LU ran last, and both say so
  ncgen(ones "netcdf ones {\ndimensions:\n  n = 3 ;\nvariables:\n  double A(n, n) ;\ndata:\n  A = 1, 1, 1, 1, 1, 1, 1, 1, 1 ;\n}\n")
  ok(ARGS info ones.nc:A EXPECT "invert +lu \\(AUTO: .*so LU instead\\)" "rcond +not estimated: .*singular")
  ok(ARGS info ones.nc:A --json)
  json_is(invert method EQUALS "lu")
  json_is(invert notes 1 EQUALS "not positive definite at column 2, so LU instead")
endif()
ok(ARGS info batch.nc:cov EXPECT "batch +3 matrices of order 20 along Time" "spd +3 of 3" "invert +cholesky for 3")
ok(ARGS info batch.nc:cov --no-rcond --json)
json_valid("with --no-rcond")
json_is(invert TYPE NULL)
json_is(rcond_skipped EQUALS "--no-rcond")
ok(ARGS info t.nc:T EXPECT "auto +tridiagonal" "invert +tridiagonal" "from the tridiagonal inverse")
# names that JSON must escape (HDF5 refuses a backslash in a file name)
file(COPY_FILE "${WORK}/soar.nc" "${WORK}/q\"b\tc.nc")
ok(ARGS info "q\"b\tc.nc:B" --json --method lu)
json_valid("of a file name with a quote and a tab")
json_is(file EQUALS "q\"b\tc.nc")
json_is(invert method EQUALS "lu")
json_is(rcond estimate EQUALS "1 / (||A||_1 ||A^-1||_1) from the LU inverse")
