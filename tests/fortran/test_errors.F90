! Every error path of minv_mod with stat present: the status code, the message (routine,
! status text, the detail that locates the problem), reports after a refusal, errmsg left
! blank on success and truncated when short. test_stop covers the same without stat.
module test_errors_impl
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf
  use minv_mod
  use test_util
  implicit none
  private
  public :: run_r32, run_r64

contains

#define T_RK real32
#define T_RUN run_r32
#include "test_errors.inc"
#undef T_RK
#undef T_RUN

#define T_RK real64
#define T_RUN run_r64
#include "test_errors.inc"

end module test_errors_impl

program test_errors
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use minv_mod
  use test_errors_impl
  use test_util
  implicit none
  type(minv_context) :: ctx, none
  type(minv_report) :: rep
  type(minv_analysis) :: an
  real(real64) :: a(2, 2), x(2, 2), value
  integer :: stat, devices(MINV_MAX_DEVICES + 1)
  character(400) :: msg ! minv_init's messages give the options asked for, then why

  a = reshape([2, 1, 1, 2], [2, 2])

  ! ---- contexts ----
  call minv_init(ctx, device=-1, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_init: invalid argument: could not create &
                  &a context with backend auto, device -1', 'init bad device')
  call minv_init(ctx, backend=99, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'backend unknown', 'init bad backend')
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'backend = 99 is not MINV_BACKEND_AUTO', &
                  'init bad backend: why')
  call minv_init(ctx, device_memory=-1_int64, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'device_memory -1', 'init bad device_memory')
  call minv_init(ctx, cpu_threads=-2, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'cpu_threads -2', 'init bad cpu_threads')
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'cpu_threads = -2 must be >= 0', &
                  'init bad cpu_threads: why')
  call minv_init(ctx, ndevices=MINV_MAX_DEVICES + 1, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'ndevices 17', 'init bad ndevices')
  devices = 0
  call minv_init(ctx, devices=devices, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'devices has 17 entries, at most &
                  &MINV_MAX_DEVICES = 16 allowed', 'init too many devices')
  call minv_init(ctx, backend=MINV_BACKEND_GPU, stat=stat, errmsg=msg)
  if (stat == MINV_SUCCESS) then ! a machine with a GPU
    call check(minv_context_backend(ctx) == MINV_BACKEND_GPU, 'init GPU: runs on the GPU')
    call minv_finalize(ctx)
  else
    call check_stat(stat, MINV_ERR_NO_GPU, msg, 'minv_init: no usable GPU', 'init GPU without one')
  end if

  ! ---- an uninitialised context: every routine says so ----
  call minv_invert(none, a, x, report=rep, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_invert: invalid argument: ctx is not &
                  &initialised: call minv_init(ctx) first', 'uninitialised invert')
  call check(rep%n == 2 .and. rep%info == 0 .and. rep%rcond == -1, 'uninitialised: report')
  call minv_invert_inplace(none, x, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_invert_inplace: invalid argument: ctx &
                  &is not initialised', 'uninitialised invert_inplace')
  call minv_invert_warm(none, a, a, x, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_invert_warm: invalid argument: ctx is &
                  &not initialised', 'uninitialised invert_warm')
  call minv_solve(none, a, a, x, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_solve: invalid argument: ctx is not &
                  &initialised', 'uninitialised solve')
  call minv_analyze(none, a, an, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_analyze: invalid argument: ctx is not &
                  &initialised', 'uninitialised analyze')
  call minv_set_option(none, MINV_OPT_RESIDUAL, 2, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_set_option: invalid argument: ctx is &
                  &not initialised', 'uninitialised set_option')
  call minv_get_option(none, MINV_OPT_RESIDUAL, value, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_get_option: invalid argument: ctx is &
                  &not initialised', 'uninitialised get_option')
  call minv_set_progress(none, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_set_progress: invalid argument: ctx is &
                  &not initialised', 'uninitialised set_progress')
  call check(minv_context_backend(none, stat=stat, errmsg=msg) == -1, 'uninitialised backend: -1')
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_context_backend: invalid argument: ctx &
                  &is not initialised', 'uninitialised context_backend')
  call minv_finalize(none, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS, 'finalising an uninitialised context does nothing')

  ! ---- a context: initialised again (allowed), options ----
  call minv_init(ctx, backend=MINV_BACKEND_CPU)
  call minv_init(ctx, backend=MINV_BACKEND_CPU, device=-1, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_init: invalid argument: could not create &
                  &a context', 'init again with bad options')
  call check(minv_initialized(ctx) .and. minv_context_backend(ctx) == MINV_BACKEND_CPU, &
             'the first context survives a failed init')
  call minv_set_option(ctx, MINV_OPT_RESIDUAL, 7, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_set_option: invalid argument: residual &
                  &mode must be 0, 1 or 2, got 7', 'set_option bad value')
  call minv_set_option(ctx, 99, 1.0_real64, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'unknown option 99', 'set_option bad option')
  call minv_get_option(ctx, 99, value, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, &
                  'minv_get_option: invalid argument: option 99 is not a MINV_OPT_* constant', &
                  'get_option bad option')

  call run_r32(ctx, 'real32')
  call run_r64(ctx, 'real64')

  ! ---- after all these failures a call succeeds, and errmsg is blank ----
  msg = 'untouched'
  call minv_invert(ctx, a, x, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS .and. msg == '', 'success after failures: errmsg blank')
  call minv_finalize(ctx)
  call test_finish('test_errors')
end program test_errors
