! The NetCDF file routines of minv_mod (its conventions apply; see "Files" there). A
! submodule, so that the layer over netcdf_io's entry points stands apart from the rest.
submodule(minv_mod) minv_mod_files
  use minv_c_api, only: minv_file_options, minv_file_options_default, &
                        c_invert_file => minv_invert_file, c_solve_file => minv_solve_file, &
                        c_analyze_file => minv_analyze_file
  implicit none

contains

  module procedure invert_file
    type(minv_file_options) :: fopts
    integer(c_int) :: status
    character(:), allocatable :: why

    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    call file_options(status, why, fopts, precision, slice, deflate, fortran_order, tile)
    if (status == MINV_SUCCESS) then
      if (present(out_var)) then
        status = c_invert_file(ctx%ptr, method_or_auto(method), c_str(in_path), c_str(in_var), &
                               c_str(out_path), c_str(out_var), fopts, report)
      else
        status = c_invert_file(ctx%ptr, method_or_auto(method), c_str(in_path), c_str(in_var), &
                               c_str(out_path), fopts=fopts, report=report)
      end if
    end if
    call report_to_fortran(report, .not. allocated(why), method, 0_int64, 0_int64)
    call finish('minv_invert_file', status, ctx%ptr, stat, errmsg, why)
  end procedure invert_file

  module procedure solve_file
    type(minv_file_options) :: fopts
    integer(c_int) :: status
    character(:), allocatable :: why

    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    call file_options(status, why, fopts, precision, slice, deflate, fortran_order, tile)
    if (status == MINV_SUCCESS) then
      if (present(x_var)) then
        status = c_solve_file(ctx%ptr, method_or_auto(method), c_str(a_path), c_str(a_var), &
                              c_str(b_path), c_str(b_var), c_str(x_path), c_str(x_var), fopts, &
                              report)
      else
        status = c_solve_file(ctx%ptr, method_or_auto(method), c_str(a_path), c_str(a_var), &
                              c_str(b_path), c_str(b_var), c_str(x_path), fopts=fopts, &
                              report=report)
      end if
    end if
    call report_to_fortran(report, .not. allocated(why), method, 0_int64, 0_int64)
    call finish('minv_solve_file', status, ctx%ptr, stat, errmsg, why)
  end procedure solve_file

  module procedure analyze_file
    type(minv_file_options) :: fopts
    integer(c_int) :: status
    character(:), allocatable :: why

    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    call file_options(status, why, fopts, slice=slice, fortran_order=fortran_order, tile=tile)
    if (status == MINV_SUCCESS) &
      status = c_analyze_file(ctx%ptr, c_str(path), c_str(var), fopts, analysis)
    call analysis_to_fortran(status, analysis)
    call finish('minv_analyze_file', status, ctx%ptr, stat, errmsg, why)
  end procedure analyze_file

  ! The C file options from the Fortran arguments: the one place where `slice` turns from
  ! 1-based Fortran dimension order into C's 0-based, reversed order (as nf90 does).
  subroutine file_options(status, why, fopts, precision, slice, deflate, fortran_order, tile)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    type(minv_file_options), intent(out) :: fopts
    integer, intent(in), optional :: precision, slice(:), deflate, tile
    logical, intent(in), optional :: fortran_order
    integer :: ns

    call minv_file_options_default(fopts)
    if (present(precision)) fopts%precision = precision
    if (present(deflate)) fopts%deflate_level = deflate
    if (present(tile)) fopts%tile = tile
    fopts%fortran_order = 1
    if (present(fortran_order)) fopts%fortran_order = merge(1, 0, fortran_order)
    if (present(slice)) then
      ns = size(slice)
      if (ns > MINV_MAX_SLICE) then
        call fail(status, why, MINV_ERR_INVALID_ARG, 'slice has ' // str(ns) // &
                  ' indices, at most MINV_MAX_SLICE = ' // str(MINV_MAX_SLICE) // ' allowed')
      else if (any(slice < 1)) then
        call fail(status, why, MINV_ERR_INVALID_ARG, 'slice(' // str(minloc(slice, 1)) // &
                  ') = ' // str(minval(slice)) // ', but slice indices are 1-based')
      else
        fopts%nslice = ns
        fopts%slice(1:ns) = slice(ns:1:-1) - 1
      end if
    end if
  end subroutine file_options

  ! A Fortran string as a NUL-terminated C string (trailing blanks dropped, as nf90 does).
  function c_str(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: c
    c = trim(s) // c_null_char
  end function c_str

end submodule minv_mod_files
