! The error paths of minv_mod without stat: each must stop the program with
! "minv: <routine>: <message>". One case per run, named by the first argument; CTest runs
! each through expect_stop.cmake, which checks the non-zero exit and the message.
program test_stop
  use, intrinsic :: iso_fortran_env, only: real32, real64, error_unit
  use minv_mod
  implicit none
  type(minv_context) :: ctx, none
  type(minv_analysis) :: an
  real(real64) :: a(3, 3), a34(3, 4), b(3, 2), b4(4, 2), x(3, 2), x33(3, 3), v4(4), v3(3), value
  real(real32) :: s34(3, 4), s33(3, 3)
  real(real64) :: a3(3, 3, 2), x3(3, 3, 2), a342(3, 4, 2), x342(3, 4, 2)
  character(64) :: which
  character(200) :: msg

  call get_command_argument(1, which)
  a = reshape([4, 1, 0, 1, 4, 1, 0, 1, 4], [3, 3])
  a34 = 1
  b = 1
  b4 = 1
  v4 = 1
  s34 = 1
  call minv_init(ctx)

  select case (which)
  case ('init_again_bad')
    call minv_init(ctx, device=-1)
  case ('init_options')
    call minv_init(none, device=-1)
  case ('uninitialised')
    call minv_invert(none, a, x33)
  case ('uninitialised_backend')
    write (error_unit, '(i0)') minv_context_backend(none)
  case ('invert_shape')
    call minv_invert(ctx, a34, x33)
  case ('invert_shape_real32')
    call minv_invert(ctx, s34, s33)
  case ('invert_singular')
    a = 0
    call minv_invert(ctx, a, x33, method=MINV_METHOD_LU)
  case ('invert_inplace_shape')
    call minv_invert_inplace(ctx, a34)
  case ('invert_warm_shape')
    call minv_invert_warm(ctx, a, a34, x33)
  case ('solve_rows')
    call minv_solve(ctx, a, b4, x)
  case ('solve_x_shape')
    call minv_solve(ctx, a, b, x33)
  case ('solve_vector')
    call minv_solve(ctx, a, v4, v3)
  case ('analyze_shape')
    call minv_analyze(ctx, a34, an)
  case ('invert_batched_shape')
    a342 = 1
    call minv_invert_batched(ctx, a342, x342)
  case ('invert_batched_singular')
    a3(:, :, 1) = a
    a3(:, :, 2) = 0
    call minv_invert_batched(ctx, a3, x3)
  case ('set_option')
    call minv_set_option(ctx, MINV_OPT_RESIDUAL, 7)
  case ('get_option')
    call minv_get_option(ctx, 99, value)
  case ('set_progress')
    call minv_set_progress(none)
  case ('errmsg_without_stat')
    ! errmsg alone does not catch the error: only stat does
    call minv_invert(ctx, a34, x33, errmsg=msg)
  case ('invert_file')
    call minv_invert_file(ctx, 'no_such_file.nc', 'B', 'out.nc')
  case ('solve_file')
    call minv_solve_file(ctx, 'no_such_file.nc', 'A', 'no_such_file.nc', 'B', 'x.nc')
  case ('analyze_file')
    call minv_analyze_file(ctx, 'no_such_file.nc', 'B', an)
  case ('file_slice')
    call minv_invert_file(ctx, 'no_such_file.nc', 'B', 'out.nc', slice=[0])
  case ('tridiagonal_shape')
    v3 = 1
    call minv_invert_tridiagonal(ctx, v3(1:1), v3, v3(1:2), x33)
  case default
    write (error_unit, '("test_stop: unknown case ", a)') trim(which)
    stop 2
  end select
  write (error_unit, '("NOT STOPPED: ", a)') trim(which)
end program test_stop
