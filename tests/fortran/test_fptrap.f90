! DA codes run with -ffpe-trap=invalid,zero,overflow (this test is built so). minv must not
! trap on ill-conditioned, singular, huge or NaN input, and must leave the traps on and the
! flags clear. With the argument "fire", a division by zero after the minv calls must still
! trap (the traps are live in hardware, not only reported so).
program test_fptrap
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use, intrinsic :: ieee_exceptions, only: ieee_get_halting_mode, ieee_get_flag, ieee_invalid, &
                                           ieee_divide_by_zero, ieee_overflow, ieee_flag_type
  use minv_mod
  use test_util
  implicit none
  integer, parameter :: n = 12
  type(ieee_flag_type), parameter :: traps(3) = [ieee_invalid, ieee_divide_by_zero, ieee_overflow]
  type(minv_context) :: ctx
  type(minv_report) :: rep
  real(real64) :: h(n, n), x(n, n), b(n, 2), y(n, 2), zero
  real(real32) :: s(2, 2), sx(2, 2)
  logical :: halting(3), flags(3)
  integer :: i, j, stat
  character(16) :: arg
  type(rng_t) :: rng

  call ieee_get_halting_mode(traps, halting)
  call check(all(halting), 'the traps are on at the start (built with -ffpe-trap)')
  call minv_init(ctx)

  ! Hilbert: condition ~1e16, singular to working precision or nearly
  forall (i=1:n, j=1:n) h(i, j) = 1.0_real64 / (i + j - 1)
  call minv_invert(ctx, h, x, report=rep, stat=stat)
  call check(stat == MINV_SUCCESS .or. stat == MINV_ERR_SINGULAR, 'Hilbert: success or singular')
  ! rank one: the condition estimator overflows inside
  forall (i=1:n, j=1:n) h(i, j) = (1.0_real64 + i) * (2.0_real64 + j)
  call minv_invert(ctx, h, x, method=MINV_METHOD_LU, stat=stat)
  call check(stat == MINV_ERR_SINGULAR, 'rank one: singular')
  b = 1
  call minv_solve(ctx, h, b, y, stat=stat)
  call check(stat == MINV_ERR_SINGULAR, 'rank one solve: singular')
  ! exactly singular
  h = 0
  call minv_invert(ctx, h, x, stat=stat)
  call check(stat == MINV_ERR_SINGULAR, 'zero matrix: singular')
  s = reshape([1, 2, 2, 4], [2, 2])
  call minv_invert(ctx, s, sx, stat=stat)
  call check(stat == MINV_ERR_SINGULAR, 'real32 singular')
  ! near overflow: norms overflow inside
  forall (i=1:n, j=1:n) h(i, j) = 1e307_real64 * (1 + mod(i * 7 + j * 3, 11)) / 11
  call minv_invert(ctx, h, x, stat=stat)
  call check(stat == MINV_SUCCESS .or. stat == MINV_ERR_SINGULAR, 'huge entries')
  ! NaN input is an error, not a trap
  h(3, 4) = ieee_value(h(3, 4), ieee_quiet_nan)
  call minv_invert(ctx, h, x, stat=stat)
  call check(stat == MINV_ERR_NOT_FINITE, 'NaN input: not finite')
  ! a well-conditioned matrix under the same traps: inverted, and right
  call random_matrix(rng, h)
  call minv_invert(ctx, h, x, stat=stat)
  call check(stat == MINV_SUCCESS .and. inverse_ratio(h, x, epsilon(1.0_real64)) < 30, 'well conditioned: inverted')
  b = h(:, 1:2)
  call minv_solve(ctx, h, b, y, stat=stat)
  call check(stat == MINV_SUCCESS .and. solve_ratio(h, b, y, epsilon(1.0_real64)) < 30, 'well conditioned: solved')
  call minv_finalize(ctx)

  call ieee_get_halting_mode(traps, halting)
  call check(all(halting), 'the traps are still on')
  call ieee_get_flag(traps, flags)
  call check(.not. any(flags), 'no exception flag raised')

  call get_command_argument(1, arg)
  if (arg == 'fire') then
    zero = 0
    call get_command_argument(2, arg) ! keeps the compiler from folding the division
    write (*, *) 'dividing by zero: ', 1 / zero
    write (*, *) 'NO TRAP'
  end if
  call test_finish('test_fptrap')
end program test_fptrap
