! A user code built with -fdefault-real-8 -fdefault-double-8 (this file is) uses minv_mod,
! which was built without them: default reals reach the real64 specifics, literals too.
program test_default_real8
  use, intrinsic :: iso_fortran_env, only: real64
  use minv_mod
  use test_util, only: check, test_finish
  implicit none
  integer, parameter :: n = 5
  type(minv_context) :: ctx
  type(minv_report) :: rep
  real :: a(n, n), ainv(n, n), b(n, 3), x(n, 3), tol
  double precision :: d(n, n), dinv(n, n)
  integer :: i, j

  call check(kind(a) == real64 .and. kind(d) == real64, 'default real and double are real64')
  forall (i=1:n, j=1:n) a(i, j) = 1.0 / (1 + abs(i - j))
  call minv_init(ctx)
  call minv_invert(ctx, a, ainv, report=rep)
  call check(maxval(abs(matmul(a, ainv) - identity())) < 1e-13, 'invert default reals')
  call check(rep%method == MINV_METHOD_CHOLESKY, 'AUTO: Cholesky')
  b = 1
  call minv_solve(ctx, a, b, x)
  call check(maxval(abs(matmul(a, x) - b)) < 1e-13, 'solve default reals')
  call minv_solve(ctx, a, b(:, 1), x(:, 2))
  call check(all(x(:, 2) == x(:, 1)), 'vector solve default reals')
  d = a
  call minv_invert(ctx, d, dinv)
  call check(all(dinv == ainv), 'double precision reaches the same specific')
  call minv_set_option(ctx, MINV_OPT_TOLERANCE, 1e-12)
  call minv_get_option(ctx, MINV_OPT_TOLERANCE, tol)
  call check(tol == 1e-12, 'a default-real literal option round trip')
  call minv_finalize(ctx)
  call test_finish('test_default_real8')

contains

  function identity() result(e)
    real :: e(n, n)
    e = 0
    forall (i=1:n) e(i, i) = 1
  end function identity
end program test_default_real8
