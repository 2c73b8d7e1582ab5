! The error paths of minv_mod's file routines without stat (as test_stop.f90): each must
! stop the program with "minv: <routine>: <message>".
program test_stop_files
  use, intrinsic :: iso_fortran_env, only: error_unit
  use minv_mod
  implicit none
  type(minv_context) :: ctx
  type(minv_analysis) :: an
  character(64) :: which

  call get_command_argument(1, which)
  call minv_init(ctx)
  select case (which)
  case ('invert_file')
    call minv_invert_file(ctx, 'no_such_file.nc', 'B', 'out.nc')
  case ('solve_file')
    call minv_solve_file(ctx, 'no_such_file.nc', 'A', 'no_such_file.nc', 'B', 'x.nc')
  case ('analyze_file')
    call minv_analyze_file(ctx, 'no_such_file.nc', 'B', an)
  case ('file_slice')
    call minv_invert_file(ctx, 'no_such_file.nc', 'B', 'out.nc', slice=[0])
  case default
    write (error_unit, '("test_stop_files: unknown case ", a)') trim(which)
    stop 2
  end select
  write (error_unit, '("NOT STOPPED: ", a)') trim(which)
end program test_stop_files
