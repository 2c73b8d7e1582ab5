! What a DA code replacing dgesv/dposv needs besides the solve: minv_init again on
! a live context (kept with the same options, replaced with others, untouched when that
! fails), minv_initialized, the in-place solve against the out-of-place one (both kinds, a
! matrix or a vector of right-hand sides, batched), and sym_tol= for one call.
program test_conveniences
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64
  use minv_mod
  use test_util
  implicit none
  integer, parameter :: n = 37, k = 5, nb = 6
  type(minv_context) :: ctx
  type(minv_report) :: rep
  type(rng_t) :: rng
  real(real64) :: a(n, n), s(n, n), b(n, k), x(n, k), y(n, k), v(n), w(n), tol
  real(real32) :: af(n, n), bf(n, k), xf(n, k), yf(n, k)
  real(real64) :: ab(n, n, nb), bb(n, k, nb), xb(n, k, nb)
  integer :: stat, residual, m
  character(256) :: msg

  ! ---- minv_init again, minv_initialized ----
  call check(.not. minv_initialized(ctx), 'a new context is not initialised')
  call minv_init(ctx, backend=MINV_BACKEND_CPU)
  call check(minv_initialized(ctx), 'initialised after minv_init')
  call minv_set_option(ctx, MINV_OPT_RESIDUAL, 2)
  call minv_init(ctx, backend=MINV_BACKEND_CPU, stat=stat)
  call minv_get_option(ctx, MINV_OPT_RESIDUAL, residual)
  call check(stat == MINV_SUCCESS .and. residual == 2, 'the same options keep the context and its settings')
  call minv_init(ctx, backend=MINV_BACKEND_CPU, cpu_threads=1, device=-1, stat=stat, errmsg=msg)
  call minv_get_option(ctx, MINV_OPT_RESIDUAL, residual)
  call check(stat == MINV_ERR_INVALID_ARG .and. minv_initialized(ctx) .and. residual == 2, &
             'a failed init leaves the live context as it was')
  call minv_init(ctx, backend=MINV_BACKEND_CPU, cpu_threads=1, stat=stat)
  call minv_get_option(ctx, MINV_OPT_RESIDUAL, residual)
  call check(stat == MINV_SUCCESS .and. residual == 1, 'other options make a new context (default settings)')
  do m = 1, 200 ! no leak: run under ASan/LeakSanitizer, every replaced context is freed
    call minv_init(ctx, backend=MINV_BACKEND_CPU, cpu_threads=1 + mod(m, 2))
  end do
  call minv_finalize(ctx)
  call check(.not. minv_initialized(ctx), 'not initialised after minv_finalize')
  call minv_init(ctx, backend=MINV_BACKEND_CPU)

  ! ---- in place against out of place ----
  call spd_matrix(rng, s)
  call random_matrix(rng, a)
  call random_matrix(rng, b)
  v = b(:, 1)
  call minv_solve(ctx, a, b, x)
  y = b
  call minv_solve_inplace(ctx, a, y, report=rep)
  call check(all(y == x), 'in place = out of place (general, real64)')
  call check(rep%residual >= 0 .and. rep%residual < 100 * n * epsilon(1.0_real64), &
             'in place, the residual is still computed')
  call check(solve_ratio(a, b, y, epsilon(1.0_real64)) < 30, 'in place solves A')
  call minv_solve(ctx, s, v, w)
  call minv_solve_inplace(ctx, s, v, report=rep)
  call check(all(v == w) .and. rep%method == MINV_METHOD_CHOLESKY, 'in place = out of place (SPD, a vector)')
  af = real(a, real32)
  bf = real(b, real32)
  call minv_solve(ctx, af, bf, xf)
  yf = bf
  call minv_solve_inplace(ctx, af, yf)
  call check(all(yf == xf), 'in place = out of place (real32)')
  call minv_solve_inplace(ctx, a, b(1:n - 1, :), stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_SHAPE, msg, 'minv_solve_inplace: wrong shape: b has 36 rows', 'in place, shape')
  do m = 1, nb
    call spd_matrix(rng, ab(:, :, m))
    call random_matrix(rng, bb(:, :, m))
  end do
  call minv_solve_batched(ctx, ab, bb, xb)
  call minv_solve_batched_inplace(ctx, ab, bb)
  call check(all(bb == xb), 'batched in place = out of place')

  ! ---- sym_tol= for one call ----
  s(1, 2) = s(1, 2) * (1 + 1e-10_real64) ! symmetric only to 1e-10
  call minv_solve(ctx, s, b, x, report=rep)
  call check(rep%method == MINV_METHOD_LU, 'asymmetric beyond the default: LU')
  call minv_solve(ctx, s, b, x, report=rep, sym_tol=1e-9_real64)
  call check(rep%method == MINV_METHOD_CHOLESKY .and. rep%asymmetry > 0, 'sym_tol=1e-9: Cholesky')
  call check(index(minv_report_reason(rep), 'lower triangle') > 0, 'the reason says the lower triangle was read')
  call minv_get_option(ctx, MINV_OPT_SYMMETRY_TOL, tol)
  call check(tol == -1, 'the context keeps its own tolerance after the call')
  y = b
  call minv_solve_inplace(ctx, s, y, report=rep, sym_tol=1e-9_real64)
  call check(rep%method == MINV_METHOD_CHOLESKY .and. all(y == x), 'sym_tol= in place')
  call minv_solve(ctx, s, b, x, sym_tol=0.5_real64, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_solve: sym_tol: invalid argument: symmetry tolerance &
                  &must be from 0', 'sym_tol too large')
  call minv_invert(ctx, s, a, sym_tol=1e-9_real64, report=rep)
  call check(rep%method == MINV_METHOD_CHOLESKY, 'sym_tol= for an inversion')
  call minv_finalize(ctx)
  call test_finish('test_conveniences')
end program test_conveniences
