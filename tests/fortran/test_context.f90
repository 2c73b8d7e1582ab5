! Contexts and everything around the array routines: every option of minv_init, finalize and
! re-init, options through each kind of value, the progress callback, names, and reports.
module test_context_progress
  use, intrinsic :: iso_fortran_env, only: real64
  implicit none
  private
  public :: on_progress, calls, bad_fraction, stages

  integer :: calls = 0
  logical :: bad_fraction = .false.
  character(32) :: last_stage = ''
  character(256) :: stages = '' ! each stage once, in order

contains

  subroutine on_progress(stage, fraction)
    character(*), intent(in) :: stage
    real(real64), intent(in) :: fraction
    calls = calls + 1
    if (fraction < 0 .or. fraction > 1) bad_fraction = .true.
    if (stage /= last_stage) stages = trim(stages) // ' ' // stage
    last_stage = stage
  end subroutine on_progress
end module test_context_progress

program test_context
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  use minv_mod
  use test_util
  use test_context_progress
  implicit none
  integer, parameter :: n = 30
  type(minv_context) :: ctx
  type(minv_report) :: rep
  type(rng_t) :: rng
  real(real64) :: a(n, n), x(n, n), r64
  real(real32) :: r32
  integer(int32) :: i32
  integer(int64) :: i64
  integer :: stat, u, seen
  character(200) :: msg, line
  character(:), allocatable :: v

  ! ---- minv_init with every option, finalize, init again ----
  msg = 'untouched'
  call minv_init(ctx, backend=MINV_BACKEND_CPU, device=0, device_memory=2_int64**30, &
                 cpu_threads=2, ndevices=1, devices=[0], stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS .and. msg == '', 'init with every option: errmsg blank')
  call check(minv_context_backend(ctx) == MINV_BACKEND_CPU, 'backend CPU as asked')
  call minv_finalize(ctx, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS .and. msg == '', 'finalize with stat and errmsg: errmsg blank')
  call minv_finalize(ctx)
  call minv_init(ctx, devices=[0, 1], stat=stat)
  call check(stat == MINV_SUCCESS, 'init with devices only (ndevices from its size)')
  call minv_finalize(ctx)
  call minv_init(ctx, ndevices=-1, stat=stat)
  call check(stat == MINV_SUCCESS, 'init with ndevices = -1 (all)')
  call minv_finalize(ctx)
  call minv_init(ctx)
  call check(any(minv_context_backend(ctx) == [MINV_BACKEND_CPU, MINV_BACKEND_GPU]), &
             'AUTO resolves to the CPU or the GPU')

  ! ---- options: set through each kind of value, read back through each ----
  call minv_set_option(ctx, MINV_OPT_MAX_ITERATIONS, 50_int32)
  call minv_get_option(ctx, MINV_OPT_MAX_ITERATIONS, i32)
  call check(i32 == 50, 'int32 option round trip')
  call minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 128_int64, stat=stat, errmsg=msg)
  call minv_get_option(ctx, MINV_OPT_BLOCK_SIZE, i64, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS .and. i64 == 128, 'int64 option round trip')
  call minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 1e-6_real32)
  call minv_get_option(ctx, MINV_OPT_SYMMETRY_TOL, r32)
  call check(r32 == 1e-6_real32, 'real32 option round trip')
  call minv_set_option(ctx, MINV_OPT_TOLERANCE, 1e-11_real64)
  call minv_get_option(ctx, MINV_OPT_TOLERANCE, r64)
  call check(r64 == 1e-11_real64, 'real64 option round trip')
  call minv_set_option(ctx, MINV_OPT_MAX_ITERATIONS, 100)
  call minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 0)
  call minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 0)
  call minv_set_option(ctx, MINV_OPT_TOLERANCE, 0)
  call minv_set_option(ctx, MINV_OPT_TILE_SIZE, 256)
  call minv_set_option(ctx, MINV_OPT_INITIAL_GUESS, MINV_GUESS_TRANSPOSE)
  call minv_set_option(ctx, MINV_OPT_ITERATION, MINV_ITERATION_HYPERPOWER8)
  call minv_set_option(ctx, MINV_OPT_MIXED_PRECISION, 0)
  call minv_set_option(ctx, MINV_OPT_RESIDUAL, 2)
  call minv_get_option(ctx, MINV_OPT_ITERATION, i32)
  call check(i32 == MINV_ITERATION_HYPERPOWER8, 'iteration option')

  ! ---- progress: the callback sees the stages of an iterative inversion, then no more ----
  call spd_matrix(rng, a)
  call minv_set_progress(ctx, on_progress, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS, 'set_progress with stat')
  call minv_invert(ctx, a, x, method=MINV_METHOD_ITERATIVE, report=rep)
  call check(calls > 0 .and. .not. bad_fraction, 'progress called with fractions in [0, 1]')
  call check(stages == ' analysis iterate residual', 'progress stages analysis, iterate, residual:' // &
             trim(stages))
  call check(rep%residual_kind == 2, 'MINV_OPT_RESIDUAL = 2: the full residual')
  call check(inverse_ratio(a, x, epsilon(1.0_real64)) < 30, 'the iterative inverse holds')
  seen = calls
  call minv_set_progress(ctx)
  call minv_invert(ctx, a, x, method=MINV_METHOD_ITERATIVE)
  call check(calls == seen, 'no progress after switching it off')
  call check(inverse_ratio(a, x, epsilon(1.0_real64)) < 30, 'the inverse holds without progress too')

  ! ---- names and reports ----
  call check(minv_status_string(MINV_ERR_SINGULAR) == 'matrix is singular', 'status string')
  call check(minv_status_string(MINV_SUCCESS) == 'success', 'success string')
  call check(minv_method_name(MINV_METHOD_CHOLESKY) == 'cholesky', 'method name')
  call check(minv_backend_name(MINV_BACKEND_GPU) == 'gpu', 'backend name')
  v = minv_version()
  call check(len(v) >= 5 .and. index(v, '.') > 1, 'version "' // v // '"')
  deallocate (v) ! main-program allocatables outlive the leak check otherwise
  call minv_invert(ctx, a, x, report=rep)
  call check(len(minv_report_reason(rep)) > 0 .and. len(minv_report_reason(rep)) < MINV_REASON_LEN, &
             'reason up to its NUL')
  open (newunit=u, status='scratch', action='readwrite')
  call minv_print_report(rep, unit=u)
  rewind (u)
  read (u, '(a)') line
  close (u)
  call check(index(line, 'cholesky on ') == 1 .and. index(line, 'n 30, nrhs 0') > 0, &
             'print_report: ' // trim(line))
  call check(inverse_ratio(a, x, epsilon(1.0_real64)) < 30, 'the reported inverse holds')
  call minv_finalize(ctx)
  call test_finish('test_context')
end program test_context
