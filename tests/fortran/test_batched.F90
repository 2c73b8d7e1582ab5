! minv_mod's batched routines in both kinds: every matrix of a batch against the LAPACK-tester
! ratio, in place, solves, float storage with double compute, leading blocks (sizes) and
! subsets (index, count), members that fail alone, sections, reports and shape errors.
module test_batched_impl
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use minv_mod
  use test_util
  implicit none
  private
  public :: run_r32, run_r64

contains

#define T_RK real32
#define T_RUN run_r32
#include "test_batched.inc"
#undef T_RK
#undef T_RUN

#define T_RK real64
#define T_RUN run_r64
#include "test_batched.inc"

end module test_batched_impl

program test_batched
  use minv_mod
  use test_batched_impl
  use test_util, only: test_finish
  implicit none
  type(minv_context) :: ctx

  call minv_init(ctx)
  call run_r32(ctx, 'real32')
  call run_r64(ctx, 'real64')
  call minv_finalize(ctx)
  call test_finish('test_batched')
end program test_batched
