! minv_invert_tridiagonal in both kinds: against LAPACK-tester ratios for every algorithm,
! the optional arguments and the report, the same matrix through minv_invert (AUTO finds it
! tridiagonal), the shape and singular errors with stat, and order 0 (a success).
module test_tridiagonal_impl
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use minv_mod
  use test_util
  implicit none
  private
  public :: run_r32, run_r64

contains

#define T_RK real32
#define T_RUN run_r32
#include "test_tridiagonal.inc"
#undef T_RK
#undef T_RUN

#define T_RK real64
#define T_RUN run_r64
#include "test_tridiagonal.inc"

end module test_tridiagonal_impl

program test_tridiagonal
  use minv_mod
  use test_tridiagonal_impl
  use test_util, only: test_finish
  implicit none
  type(minv_context) :: ctx

  call minv_init(ctx)
  call run_r32(ctx, 'real32')
  call run_r64(ctx, 'real64')
  call minv_finalize(ctx)
  call test_finish('test_tridiagonal')
end program test_tridiagonal
