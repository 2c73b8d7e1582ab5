# End-to-end tests of the minv command, run by `cmake -P` with
#   -DMINV=<the minv executable> -DWORK=<an empty folder> -DFIXTURES=<nct_fixtures>
#   [-DNCGEN=<ncgen>] [-DNCDUMP=<ncdump>] [-DTRUNCATE=<truncate>]
# Every success must exit 0 with nothing on stderr (no progress bar when stderr is not a
# terminal); every failure must exit non-zero with exactly one line "minv: error: ..." naming
# what is wrong, and leave no output, no temporary file and the input as it was.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run)
  execute_process(COMMAND "${MINV}" ${ARGN} WORKING_DIRECTORY "${WORK}"
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

# ---- help and version ----
ok(ARGS --help EXPECT "usage: minv COMMAND" "generate")
ok(ARGS --version EXPECT "^minv [0-9]+\\.[0-9]+")
foreach(cmd invert solve info generate)
  ok(ARGS ${cmd} --help EXPECT "usage: minv ${cmd}" "--help")
endforeach()
ok(ARGS invert --help EXPECT "minv invert IN.nc OUT.nc\\[:VAR\\] --tridiagonal DL,D,DU" "--tridiagonal-algorithm")

# ---- generate, info, invert, solve ----
ok(ARGS generate soar 400 soar.nc:B EXPECT "minv generate: soar 400 x 400 -> 'soar.nc':B")
ok(ARGS info soar.nc:B
   EXPECT "variable +NC_DOUBLE B\\(n=400, n=400\\) in netCDF-4" "read +[0-9.]+ MB in .*MB/s" "symmetric +yes"
          "diagonal +min 1, max 1 \\(positive\\)" "auto +cholesky" "rcond +[0-9.]+e-[0-9]+ \\(LAPACK")
ok(ARGS invert soar.nc:B soar_inv.nc
   EXPECT "method +cholesky" "why +AUTO: symmetric" "backend +(cpu|gpu)" "n +400\n" "time +[0-9.]+ s"
          "rate +[0-9.]+ GFLOP/s" "rcond +[0-9.]+e" "read +[0-9.]+ MB in [0-9.]+ s \\([0-9]+ MB/s\\)" "wrote +")
residual_ok()
ok(ARGS invert soar.nc:B ridge.nc --recondition ridge --target-condition 50
   EXPECT "reconditioned by ridge: delta = [0-9.e+-]+ added to the diagonal")
if(NCDUMP)
  execute_process(COMMAND "${NCDUMP}" -h ridge.nc WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE header)
  if(NOT header MATCHES "B_inv:minv_reason = \"reconditioned by ridge")
    message(SEND_ERROR "ridge.nc does not record the reconditioning:\n${header}")
  endif()
endif()
fails(CODE 2 ARGS invert soar.nc:B r.nc --recondition lasso MESSAGE "expected none, ridge or floor" OUTPUT r.nc)
ok(ARGS generate general 400 --cols 5 --seed 3 rhs.nc:Y)
ok(ARGS solve soar.nc:B rhs.nc:Y x.nc EXPECT "nrhs +5" "method +cholesky")
residual_ok()
ok(ARGS solve soar.nc:B rhs.nc:Y x.nc:Z --method lu --precision single --residual full --quiet
   EXPECT "method +lu" "residual .*full")
residual_ok()
if(NCDUMP)
  execute_process(COMMAND "${NCDUMP}" -h soar_inv.nc WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE header)
  foreach(re "double B_inv\\(n, n\\)" "B_inv:minv_method = \"cholesky\"" "B_inv:minv_source_file = \"soar.nc\""
             "B_inv:minv_rcond = " "B_inv:minv_reason = \"AUTO: symmetric" ":history = \".*minv")
    if(NOT header MATCHES "${re}")
      message(SEND_ERROR "soar_inv.nc lacks /${re}/:\n${header}")
    endif()
  endforeach()
  execute_process(COMMAND "${NCDUMP}" -h x.nc WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE header)
  if(NOT header MATCHES "double X\\(n, rhs\\)" OR NOT header MATCHES "float Z\\(n, rhs\\)")
    message(SEND_ERROR "x.nc: X and Z with B's dimensions expected:\n${header}")
  endif()
endif()

# ---- one right-hand side as a 1-D variable, and variables inside netCDF-4 groups ----
execute_process(COMMAND "${FIXTURES}" WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE fixtures_rc)
if(NOT fixtures_rc EQUAL 0)
  message(FATAL_ERROR "nct_fixtures failed: ${fixtures_rc}")
endif()
ok(ARGS solve cli_vec.nc:A cli_vec.nc:v xv.nc EXPECT "minv solve: A = 'cli_vec.nc':A, B = 'cli_vec.nc':v -> 'xv.nc':X"
        "n +40\n" "nrhs +1\n" "method +lu")
residual_ok()
ok(ARGS solve cli_vec.nc:A cli_vec.nc:v xv.nc:XF --fortran-order --precision single EXPECT "nrhs +1\n")
residual_ok()
ok(ARGS invert cli_grp.nc:analysis/M grp_inv.nc EXPECT "-> 'grp_inv.nc':M_inv" "method +cholesky")
residual_ok()
ok(ARGS invert cli_grp.nc:/analysis/inner/M grp_inv.nc:inner_inv EXPECT "method +cholesky")
residual_ok()
ok(ARGS solve cli_grp.nc:analysis/M cli_grp.nc:/analysis/v grp_x.nc EXPECT "nrhs +1\n" "method +cholesky")
residual_ok()
ok(ARGS info cli_grp.nc:analysis/inner/M EXPECT "NC_DOUBLE analysis/inner/M\\(n=40, n=40\\)" "symmetric +yes")
ok(ARGS invert cli_grp.nc grp_bands.nc --tridiagonal analysis/DL,analysis/D,analysis/DU
   EXPECT "-> 'grp_bands.nc':D_inv" "method +tridiagonal")
residual_ok()
if(NCDUMP)
  execute_process(COMMAND "${NCDUMP}" -h xv.nc WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE header)
  foreach(re "double X\\(n\\)" "float XF\\(n\\)" "X:minv_rhs_variable = \"v\"" "X:minv_residual_kind = \"\\|\\|b - A x\\|\\|_inf")
    if(NOT header MATCHES "${re}")
      message(SEND_ERROR "xv.nc lacks /${re}/:\n${header}")
    endif()
  endforeach()
  execute_process(COMMAND "${NCDUMP}" -h grp_inv.nc WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE header)
  foreach(re "double M_inv\\(n, n\\)" "double inner_inv\\(n, n\\)" "M_inv:minv_source_variable = \"analysis/M\"")
    if(NOT header MATCHES "${re}")
      message(SEND_ERROR "grp_inv.nc lacks /${re}/:\n${header}")
    endif()
  endforeach()
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
ok(ARGS generate gaussian 50 --grid 1d --length 1 --type float --format 64bit-offset g.nc:G)
ok(ARGS invert g.nc:G g_inv.nc --precision single --residual full --threads 1 EXPECT "residual .*full")
ok(ARGS generate tridiagonal 30 --dims x,y --seed 9 --type int --scale 1e-6 t.nc:T)
ok(ARGS invert t.nc:T t_inv.nc --method lu --fortran-order EXPECT "method +lu")
residual_ok()
ok(ARGS invert t.nc:T t_auto.nc EXPECT "method +tridiagonal" "why +AUTO: tridiagonal" "why +tridiagonal: each entry written once")
residual_ok()
ok(ARGS invert t.nc:T t_sm.nc --tridiagonal-algorithm sherman-morrison --precision single
   EXPECT "method +tridiagonal" "why +tridiagonal: the paper's recursive Sherman-Morrison")
residual_ok()
ok(ARGS generate spd 20 --batch 3 --format cdf5 --type int64 --scale 1e-9 batch.nc:cov)
ok(ARGS invert batch.nc:cov batch_inv.nc EXPECT "batch +3 matrices")
ok(ARGS invert batch.nc:cov batch_inv2.nc --batch-chunk 2 EXPECT "batch +3 matrices, the largest residual is matrix [0-2]" "why +batch of 3 matrices in chunks of up to 2")
ok(ARGS invert batch.nc:cov slice_inv.nc --slice 2 --max-iter 50 --tol 1e-10 --device-memory 512M)
ok(ARGS invert soar.nc:B devices_inv.nc --method gauss-jordan --devices all)
ok(ARGS info batch.nc:cov --slice 1 --no-rcond EXPECT "rcond +not estimated \\(--no-rcond\\)")
ok(ARGS generate soar 12 --grid-shape 4x3 --length 1.5 rect.nc)

# ---- failures: one line, the right exit status, nothing left behind ----
fails(CODE 2 ARGS MESSAGE "no command given")
fails(CODE 2 ARGS frobnicate MESSAGE "unknown command 'frobnicate'")
fails(CODE 2 ARGS invert soar.nc:B MESSAGE "expected IN.nc:VAR OUT.nc")
fails(CODE 2 ARGS invert soar.nc o.nc MESSAGE "expected FILE.nc:VARIABLE" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --bogus MESSAGE "unknown option --bogus" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --method qr MESSAGE "--method qr: expected auto" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --device-memory 2X MESSAGE "--device-memory 2X" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --devices 0,x MESSAGE "--devices 0,x" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --devices , MESSAGE "--devices ," OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --slice a MESSAGE "--slice a" OUTPUT o.nc)
fails(CODE 2 ARGS invert soar.nc:B o.nc --tile MESSAGE "--tile needs a value" OUTPUT o.nc)
fails(CODE 2 ARGS generate soar 10 sq.nc MESSAGE "N = 10 is not a perfect square" OUTPUT sq.nc)
fails(CODE 2 ARGS generate blob 10 sq.nc MESSAGE "unknown kind 'blob'" OUTPUT sq.nc)
fails(CODE 1 ARGS invert missing.nc:A o.nc MESSAGE "cannot open 'missing.nc' to read variable 'A': No such file" OUTPUT o.nc)
fails(CODE 1 ARGS invert soar.nc:Z o.nc MESSAGE "'soar.nc' has no variable 'Z' \\(its variables: B\\)" OUTPUT o.nc INPUT soar.nc)
fails(CODE 1 ARGS invert rhs.nc:Y o.nc MESSAGE "'rhs.nc', variable Y\\(n=400, rhs=5\\) is a 400 x 5 matrix, not square"
      OUTPUT o.nc INPUT rhs.nc)
fails(CODE 1 ARGS invert batch.nc:cov o.nc --slice 9 MESSAGE "slice index 9 is outside dimension Time" OUTPUT o.nc)
fails(CODE 1 ARGS info batch.nc:cov MESSAGE "has rank 3: give 1 slice index \\(for Time\\)")
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
file(GLOB left "${WORK}/keep.nc.tmp.*")
if(left)
  message(SEND_ERROR "temporary files left: ${left}")
endif()
# methods or backends that this build or machine lacks fail with the library's clear line
foreach(args "--method;gauss-jordan" "--backend;gpu")
  run(invert soar.nc:B opt.nc ${args})
  if(NOT rc EQUAL 0 AND NOT err MATCHES "^minv: error: [^\n]*(not implemented|GPU)[^\n]*\n$")
    message(SEND_ERROR "minv invert ${args}: exit ${rc}, stderr: ${err}")
  endif()
  file(REMOVE "${WORK}/opt.nc")
endforeach()

if(TRUNCATE)
  ok(ARGS generate kms 100 --format classic trunc.nc)
  execute_process(COMMAND "${TRUNCATE}" -s 20000 trunc.nc WORKING_DIRECTORY "${WORK}")
  fails(CODE 1 ARGS invert trunc.nc:A o.nc MESSAGE "'trunc.nc' is truncated" OUTPUT o.nc INPUT trunc.nc)
  ok(ARGS generate kms 100 trunc4.nc)
  execute_process(COMMAND "${TRUNCATE}" -s 20000 trunc4.nc WORKING_DIRECTORY "${WORK}")
  fails(CODE 1 ARGS invert trunc4.nc:A o.nc MESSAGE "trunc4.nc" OUTPUT o.nc INPUT trunc4.nc)
endif()

if(NCGEN)
  file(WRITE "${WORK}/bad.cdl" "netcdf bad {\ndimensions:\n  a = 2 ;\n  b = 2 ;\n  n = 3 ;\nvariables:\n"
       "  double F(n, n) ;\n    F:_FillValue = -999. ;\n  double N(n, n) ;\n  double W(a, b, n, n) ;\n"
       "data:\n  F = 1, 0, 0, 0, 1, _, 0, 0, 1 ;\n  N = 1, 0, 0, 0, 1, 0, NaN, 0, 1 ;\n}\n")
  execute_process(COMMAND "${NCGEN}" -k nc4 -o bad.nc bad.cdl WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE gen_rc)
  if(NOT gen_rc EQUAL 0)
    message(SEND_ERROR "ncgen failed on bad.cdl")
  endif()
  fails(CODE 1 ARGS invert bad.nc:F o.nc MESSAGE "'bad.nc', variable 'F': entry \\(2, 3\\) \\(row, column, 1-based.* _FillValue -999"
        OUTPUT o.nc INPUT bad.nc)
  fails(CODE 1 ARGS invert bad.nc:N o.nc MESSAGE "'bad.nc', variable 'N': entry \\(3, 1\\) .*is NaN" OUTPUT o.nc INPUT bad.nc)
  fails(CODE 1 ARGS invert bad.nc:W o.nc MESSAGE "has rank 4: give 2 slice indices \\(for a, b\\)" OUTPUT o.nc)
  fails(CODE 1 ARGS invert bad.nc:W o.nc --slice 1 MESSAGE "holds no matrices|is empty|missing|fill" OUTPUT o.nc)
  ok(ARGS info bad.nc:N EXPECT "finite +no: the first NaN or Inf is at \\(3, 1\\)" "rcond +not estimated")

  # a tridiagonal matrix as its three bands: A = [2 0; 1 2], so A^-1 = [0.5 0; -0.25 0.5]
  file(WRITE "${WORK}/bands.cdl" "netcdf bands {\ndimensions:\n  n = 2 ;\n  m = 1 ;\n  k = 3 ;\nvariables:\n"
       "  double DL(m) ;\n  double D(n) ;\n  float DU(m) ;\n  double E(k) ;\n  double F(n, n) ;\n  double Z(n) ;\n"
       "  double G(n) ;\n    G:_FillValue = -999. ;\n"
       "data:\n  DL = 1 ;\n  D = 2, 2 ;\n  DU = 0 ;\n  E = 1, 2, 3 ;\n  F = 1, 2, 3, 4 ;\n  Z = 0, 0 ;\n  G = 2, _ ;\n}\n")
  execute_process(COMMAND "${NCGEN}" -k nc4 -o bands.nc bands.cdl WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE gen_rc)
  if(NOT gen_rc EQUAL 0)
    message(SEND_ERROR "ncgen failed on bands.cdl")
  endif()
  ok(ARGS invert bands.nc bands_inv.nc --tridiagonal DL,D,DU
     EXPECT "minv invert: 'bands.nc':bands DL,D,DU -> 'bands_inv.nc':D_inv" "method +tridiagonal" "n +2\n"
            "why +tridiagonal: each entry written once" "read +.*the three bands whole" "wrote +")
  residual_ok()
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
    ok(ARGS invert bands.nc bands_inv.nc:X --tridiagonal DL,D,DU --tridiagonal-algorithm ${algorithm} --precision single
       EXPECT "method +tridiagonal")
    residual_ok()
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
