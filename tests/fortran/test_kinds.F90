! minv_mod's array routines in both kinds: results against LAPACK-tester ratios, every
! optional argument, reports, and non-contiguous sections (the same bits as contiguous).
module test_kinds_impl
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use minv_mod
  use test_util
  implicit none
  private
  public :: run_r32, run_r64

contains

#define T_RK real32
#define T_RUN run_r32
#include "test_kinds.inc"
#undef T_RK
#undef T_RUN

#define T_RK real64
#define T_RUN run_r64
#include "test_kinds.inc"

end module test_kinds_impl

program test_kinds
  use minv_mod
  use test_kinds_impl
  use test_util, only: test_finish
  implicit none
  type(minv_context) :: ctx

  call minv_init(ctx)
  call run_r32(ctx, 'real32')
  call run_r64(ctx, 'real64')
  call minv_finalize(ctx)
  call test_finish('test_kinds')
end program test_kinds
