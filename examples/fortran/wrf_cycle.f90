! A WRF-style assimilation cycle: each cycle reads the background-error covariance of T2 on
! an 8 x 8 grid from a NetCDF file laid out as WRF writes it (cov(cov_row, cov_col, Time),
! Times, WRF's variable attributes), inverts it, and appends the inverse with its
! attributes to an output file. One minv context serves every cycle; from the second cycle
! on, the previous inverse is the warm start of minv_invert_warm (the covariance changes
! little between cycles), and the report says how many iterations that took. Finally the
! last cycle is inverted again straight from file to file with minv_invert_file and a slice,
! and both inverses must agree.
program wrf_cycle
  use, intrinsic :: iso_fortran_env, only: real64
  use netcdf
  use minv_mod
  use da_common, only: expect, identity
  implicit none
  integer, parameter :: edge = 8, n = edge * edge, ntime = 3
  character(*), parameter :: cov_file = 'wrfvar_cov.nc', inv_file = 'wrfvar_cov_inv.nc'
  type(minv_context) :: ctx
  type(minv_report) :: rep
  real(real64) :: c(n, n), cinv(n, n), previous(n, n), from_file(n, n), worst
  character(19) :: times
  integer :: t

  call write_covariances()
  call minv_init(ctx)
  worst = 0
  do t = 1, ntime
    call read_cycle(t, c, times)
    if (t == 1) then
      call minv_invert(ctx, c, cinv, report=rep)
    else
      call minv_invert_warm(ctx, c, previous, cinv, report=rep)
    end if
    write (*, '("cycle ", i0, " (", a, "): ", a, ", ", i0, " iterations, residual ", es9.2)') &
      t, times, minv_method_name(rep%method), rep%iterations, rep%residual
    call append_inverse(t, cinv, times)
    worst = max(worst, maxval(abs(matmul(c, cinv) - identity(n))))
    previous = cinv
  end do

  ! the last cycle again, from file to file
  call minv_invert_file(ctx, cov_file, 'cov', 'wrfvar_cov_inv_last.nc', 'cov_inv', &
                        slice=[ntime], overwrite=.true., report=rep)
  call minv_finalize(ctx)
  call read_matrix('wrfvar_cov_inv_last.nc', 'cov_inv', from_file)

  write (*, '("max |C C^-1 - I| over the cycles ", es9.2, "; file route vs cycle: ", es9.2)') &
    worst, maxval(abs(from_file - cinv)) / maxval(abs(cinv))
  call expect(worst < 1e-9_real64, 'every cycle''s inverse is accurate')
  call expect(rep%n == n .and. rep%method == MINV_METHOD_CHOLESKY, &
              'the file route inverted one 64 x 64 slice, by Cholesky')
  call expect(maxval(abs(from_file - cinv)) <= 1e-9_real64 * maxval(abs(cinv)), &
              'the file route agrees with the cycled inverse')
  call check_output()

contains

  ! SOAR correlation of the grid distance; its length and variance drift with the cycle.
  function covariance(t) result(m)
    integer, intent(in) :: t
    real(real64) :: m(n, n), r, length, variance
    integer :: i, j
    length = 1.5_real64 + 0.05_real64 * (t - 1)
    variance = 1 + 0.02_real64 * (t - 1)
    do j = 1, n
      do i = 1, j ! one triangle, mirrored: symmetric to the bit
        r = hypot(real(mod(i - 1, edge) - mod(j - 1, edge), real64), &
                  real((i - 1) / edge - (j - 1) / edge, real64)) / length
        m(i, j) = variance * (1 + r) * exp(-r)
        m(j, i) = m(i, j)
      end do
    end do
  end function covariance

  ! The input, as a WRF-style writer would make it.
  subroutine write_covariances()
    integer :: ncid, d_time, d_str, d_row, d_col, v_times, v_cov, t
    call nc(nf90_create(cov_file, nf90_netcdf4, ncid))
    call nc(nf90_put_att(ncid, nf90_global, 'TITLE', ' OUTPUT FROM A WRF-STYLE DA EXAMPLE'))
    call nc(nf90_put_att(ncid, nf90_global, 'START_DATE', '2024-06-11_00:00:00'))
    call nc(nf90_def_dim(ncid, 'Time', nf90_unlimited, d_time))
    call nc(nf90_def_dim(ncid, 'DateStrLen', 19, d_str))
    call nc(nf90_def_dim(ncid, 'cov_row', n, d_row))
    call nc(nf90_def_dim(ncid, 'cov_col', n, d_col))
    call nc(nf90_def_var(ncid, 'Times', nf90_char, [d_str, d_time], v_times))
    call nc(nf90_def_var(ncid, 'cov', nf90_double, [d_row, d_col, d_time], v_cov))
    call nc(nf90_put_att(ncid, v_cov, 'FieldType', 104))
    call nc(nf90_put_att(ncid, v_cov, 'MemoryOrder', 'XY '))
    call nc(nf90_put_att(ncid, v_cov, 'description', 'background error covariance of T2'))
    call nc(nf90_put_att(ncid, v_cov, 'units', 'K2'))
    call nc(nf90_put_att(ncid, v_cov, 'stagger', ''))
    call nc(nf90_enddef(ncid))
    do t = 1, ntime
      call nc(nf90_put_var(ncid, v_times, date(t), start=[1, t], count=[19, 1]))
      call nc(nf90_put_var(ncid, v_cov, covariance(t), start=[1, 1, t], count=[n, n, 1]))
    end do
    call nc(nf90_close(ncid))
  end subroutine write_covariances

  character(19) function date(t)
    integer, intent(in) :: t
    write (date, '("2024-06-11_", i2.2, ":00:00")') 6 * (t - 1)
  end function date

  subroutine read_cycle(t, m, times)
    integer, intent(in) :: t
    real(real64), intent(out) :: m(:, :)
    character(*), intent(out) :: times
    integer :: ncid, varid
    call nc(nf90_open(cov_file, nf90_nowrite, ncid))
    call nc(nf90_inq_varid(ncid, 'Times', varid))
    call nc(nf90_get_var(ncid, varid, times, start=[1, t], count=[19, 1]))
    call nc(nf90_inq_varid(ncid, 'cov', varid))
    call nc(nf90_get_var(ncid, varid, m, start=[1, 1, t], count=[n, n, 1]))
    call nc(nf90_close(ncid))
  end subroutine read_cycle

  ! Cycle 1 creates the output with the input's dimensions and attributes (units and
  ! description changed for an inverse); later cycles append along Time.
  subroutine append_inverse(t, m, times)
    integer, intent(in) :: t
    real(real64), intent(in) :: m(:, :)
    character(*), intent(in) :: times
    integer :: ncid, in_id, v_in, d_time, d_str, d_row, d_col, v_times, v_inv, natts, a
    character(nf90_max_name) :: name
    if (t == 1) then
      call nc(nf90_create(inv_file, nf90_netcdf4, ncid))
      call nc(nf90_open(cov_file, nf90_nowrite, in_id))
      call nc(nf90_copy_att(in_id, nf90_global, 'TITLE', ncid, nf90_global))
      call nc(nf90_copy_att(in_id, nf90_global, 'START_DATE', ncid, nf90_global))
      call nc(nf90_def_dim(ncid, 'Time', nf90_unlimited, d_time))
      call nc(nf90_def_dim(ncid, 'DateStrLen', 19, d_str))
      call nc(nf90_def_dim(ncid, 'cov_row', n, d_row))
      call nc(nf90_def_dim(ncid, 'cov_col', n, d_col))
      call nc(nf90_def_var(ncid, 'Times', nf90_char, [d_str, d_time], v_times))
      call nc(nf90_def_var(ncid, 'cov_inv', nf90_double, [d_row, d_col, d_time], v_inv))
      call nc(nf90_inq_varid(in_id, 'cov', v_in))
      call nc(nf90_inquire_variable(in_id, v_in, natts=natts))
      do a = 1, natts
        call nc(nf90_inq_attname(in_id, v_in, a, name))
        call nc(nf90_copy_att(in_id, v_in, name, ncid, v_inv))
      end do
      call nc(nf90_close(in_id))
      call nc(nf90_put_att(ncid, v_inv, 'units', 'K-2'))
      call nc(nf90_put_att(ncid, v_inv, 'description', &
                           'inverse of the background error covariance of T2 (minv)'))
      call nc(nf90_enddef(ncid))
    else
      call nc(nf90_open(inv_file, nf90_write, ncid))
      call nc(nf90_inq_varid(ncid, 'Times', v_times))
      call nc(nf90_inq_varid(ncid, 'cov_inv', v_inv))
    end if
    call nc(nf90_put_var(ncid, v_times, times, start=[1, t], count=[19, 1]))
    call nc(nf90_put_var(ncid, v_inv, m, start=[1, 1, t], count=[n, n, 1]))
    call nc(nf90_close(ncid))
  end subroutine append_inverse

  ! The output holds every cycle, with WRF's attributes and the inverse's units.
  subroutine check_output()
    integer :: ncid, varid, d_time, len_time, field_type
    character(64) :: units, order, title
    call nc(nf90_open(inv_file, nf90_nowrite, ncid))
    call nc(nf90_inq_dimid(ncid, 'Time', d_time))
    call nc(nf90_inquire_dimension(ncid, d_time, len=len_time))
    call nc(nf90_inq_varid(ncid, 'cov_inv', varid))
    units = ''
    order = ''
    title = ''
    call nc(nf90_get_att(ncid, varid, 'units', units))
    call nc(nf90_get_att(ncid, varid, 'MemoryOrder', order))
    call nc(nf90_get_att(ncid, varid, 'FieldType', field_type))
    call nc(nf90_get_att(ncid, nf90_global, 'TITLE', title))
    call nc(nf90_close(ncid))
    call expect(len_time == ntime, 'the output holds every cycle')
    call expect(units == 'K-2' .and. order == 'XY' .and. field_type == 104 .and. &
                index(title, 'WRF-STYLE') > 0, 'the inverse carries WRF''s attributes')
  end subroutine check_output

  subroutine read_matrix(path, name, m)
    character(*), intent(in) :: path, name
    real(real64), intent(out) :: m(:, :)
    integer :: ncid, varid
    call nc(nf90_open(path, nf90_nowrite, ncid))
    call nc(nf90_inq_varid(ncid, name, varid))
    call nc(nf90_get_var(ncid, varid, m))
    call nc(nf90_close(ncid))
  end subroutine read_matrix

  subroutine nc(status)
    integer, intent(in) :: status
    if (status /= nf90_noerr) error stop 'netCDF: ' // trim(nf90_strerror(status))
  end subroutine nc
end program wrf_cycle
