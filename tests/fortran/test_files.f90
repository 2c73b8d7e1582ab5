! minv_mod's NetCDF file routines against the in-memory ones, and every result read back by
! nf90 against LAPACK's residual ratio (so that the two cannot agree on a wrong answer), on
! files written with nf90 as Fortran models write them: every optional argument (out_var,
! method, precision, slice, deflate, fortran_order, tile, report), a batch, a 1-D b, a
! variable inside a group, the analysis, and the error paths with stat (test_stop covers them
! without).
program test_files
  use, intrinsic :: iso_fortran_env, only: real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use netcdf
  use minv_mod
  use test_util
  implicit none
  integer, parameter :: n = 20, k = 3, nt = 3
  type(minv_context) :: ctx
  type(minv_report) :: rep
  type(minv_analysis) :: an
  type(rng_t) :: rng
  real(real64) :: a(n, n), s(n, n), b(n, k), cov(n, n, nt), x(n, n), ref(n, n), xb(n, k)
  real(real64) :: refb(n, k), got3(n, n, nt), xv(n), refv(n)
  integer :: stat, t, ncid, varid, deflate_level, grpid, dimid, u
  logical :: shuffle
  character(200) :: msg

  call random_matrix(rng, a)
  call spd_matrix(rng, s)
  call random_matrix(rng, b)
  do t = 1, nt
    call spd_matrix(rng, cov(:, :, t))
  end do
  call create('in.nc')
  call put('in.nc', 'A', a)
  call put('in.nc', 'S', s)
  call put('in.nc', 'B', b)
  call put3('in.nc', 'cov', cov)
  call minv_init(ctx)

  ! ---- minv_invert_file: the Fortran view of the file, each optional argument ----
  open (newunit=u, file='out.nc')
  close (u, status='delete') ! variables are added to it below: from none
  call minv_invert(ctx, a, ref)
  call minv_invert_file(ctx, 'in.nc', 'A', 'out.nc', 'A_inv', overwrite=.true., report=rep, &
                        stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS, 'invert_file: ' // trim(msg))
  call get('out.nc', 'A_inv', x)
  call check(close_to(x, ref, 1e-12_real64), 'invert_file: the inverse nf90 reads is A^-1')
  call check(inverse_ratio(a, x, epsilon(1.0_real64)) < 30, 'invert_file: the residual of what nf90 reads')
  call check(rep%n == n .and. rep%info == 0 .and. rep%method == MINV_METHOD_LU, 'invert_file: report')
  call minv_invert_file(ctx, 'in.nc', 'A', 'out_default.nc', overwrite=.true.)
  call get('out_default.nc', 'A_inv', x)
  call check(close_to(x, ref, 1e-12_real64) .and. inverse_ratio(a, x, epsilon(1.0_real64)) < 30, &
             'invert_file: out_var absent means A_inv')
  call minv_invert_file(ctx, 'in.nc', 'S', 'out_s.nc', '', method=MINV_METHOD_CHOLESKY, overwrite=.true., &
                        precision=MINV_PRECISION_SINGLE, deflate=4, tile=8, &
                        fortran_order=.true., report=rep)
  call minv_invert(ctx, s, ref)
  call get('out_s.nc', 'S_inv', x)
  call check(close_to(x, ref, 1e-4_real64) .and. inverse_ratio(s, x, real(epsilon(1.0), real64)) < 30, &
             'invert_file: single precision, deflate, tile')
  call check(rep%method == MINV_METHOD_CHOLESKY, 'invert_file: method')
  call nc(nf90_open('out_s.nc', nf90_nowrite, ncid))
  call nc(nf90_inq_varid(ncid, 'S_inv', varid))
  call nc(nf90_inquire_variable(ncid, varid, shuffle=shuffle, deflate_level=deflate_level))
  call nc(nf90_close(ncid))
  call check(deflate_level == 4, 'invert_file: deflate level 4 on the output')

  ! ---- slices and batches: slice is 1-based, in Fortran dimension order ----
  call minv_invert_file(ctx, 'in.nc', 'cov', 'out_slice.nc', 'cov_inv', slice=[2], overwrite=.true., &
                        report=rep)
  call minv_invert(ctx, cov(:, :, 2), ref)
  call get('out_slice.nc', 'cov_inv', x)
  call check(close_to(x, ref, 1e-12_real64) .and. inverse_ratio(cov(:, :, 2), x, epsilon(1.0_real64)) < 30, &
             'invert_file: slice [2] is cov(:, :, 2)')
  call minv_invert_file(ctx, 'in.nc', 'cov', 'out_batch.nc', 'cov_inv', overwrite=.true., stat=stat, &
                        errmsg=msg)
  call check(stat == MINV_SUCCESS, 'invert_file batch: ' // trim(msg))
  call get3('out_batch.nc', 'cov_inv', got3)
  do t = 1, nt
    call minv_invert(ctx, cov(:, :, t), ref)
    call check(close_to(got3(:, :, t), ref, 1e-12_real64) .and. &
               inverse_ratio(cov(:, :, t), got3(:, :, t), epsilon(1.0_real64)) < 30, 'invert_file: batch, every matrix')
  end do

  ! ---- minv_solve_file: fortran_order decides which of A and A^T a general A is ----
  call minv_solve(ctx, a, b, refb)
  call minv_solve_file(ctx, 'in.nc', 'A', 'in.nc', 'B', 'x.nc', 'X', overwrite=.true., report=rep, stat=stat, &
                       errmsg=msg)
  call check(stat == MINV_SUCCESS, 'solve_file: ' // trim(msg))
  call get('x.nc', 'X', xb)
  call check(close_to(xb, refb, 1e-12_real64) .and. solve_ratio(a, b, xb, epsilon(1.0_real64)) < 30, &
             'solve_file: A X = B as Fortran sees A and B')
  call check(rep%n == n .and. rep%nrhs == k, 'solve_file: report')
  call minv_solve_file(ctx, 'in.nc', 'A', 'in.nc', 'B', 'x_c.nc', fortran_order=.false., overwrite=.true.)
  call minv_solve(ctx, transpose(a), b, refb)
  call get('x_c.nc', 'X', xb)
  call check(close_to(xb, refb, 1e-12_real64) .and. solve_ratio(transpose(a), b, xb, epsilon(1.0_real64)) < 30, &
             'solve_file: C order reads A^T; x_var absent is X')
  call minv_solve_file(ctx, 'in.nc', 'S', 'in.nc', 'B', 'x_s.nc', 'XS', method=MINV_METHOD_CHOLESKY, overwrite=.true., &
                       precision=MINV_PRECISION_DOUBLE, deflate=1, tile=4, report=rep)
  call minv_solve(ctx, s, b, refb)
  call get('x_s.nc', 'XS', xb)
  call check(close_to(xb, refb, 1e-12_real64) .and. rep%method == MINV_METHOD_CHOLESKY .and. &
             solve_ratio(s, b, xb, epsilon(1.0_real64)) < 30, 'solve_file: every option')

  ! ---- one right-hand side as nf90 writes b(n): x(n) comes back 1-D ----
  call nc(nf90_open('in.nc', nf90_write, ncid))
  call nc(nf90_redef(ncid))
  call nc(nf90_def_dim(ncid, 'obs', n, dimid))
  call nc(nf90_def_var(ncid, 'v', nf90_double, [dimid], varid))
  call nc(nf90_enddef(ncid))
  call nc(nf90_put_var(ncid, varid, b(:, 1)))
  call nc(nf90_close(ncid))
  call minv_solve_file(ctx, 'in.nc', 'A', 'in.nc', 'v', 'x_v.nc', 'xv', overwrite=.true., report=rep, stat=stat, &
                       errmsg=msg)
  call check(stat == MINV_SUCCESS .and. rep%nrhs == 1, 'solve_file, 1-D b: ' // trim(msg))
  call minv_solve(ctx, a, b(:, 1), refv)
  call nc(nf90_open('x_v.nc', nf90_nowrite, ncid))
  call nc(nf90_inq_varid(ncid, 'xv', varid))
  call nc(nf90_get_var(ncid, varid, xv))
  call nc(nf90_close(ncid))
  call check(maxval(abs(xv - refv)) <= 1e-12_real64 * maxval(abs(refv)) .and. &
             solve_ratio(a, b(:, 1:1), reshape(xv, [n, 1]), epsilon(1.0_real64)) < 30, 'solve_file: x(n) of a 1-D b')

  ! ---- a variable inside a netCDF-4 group, named by its path; the output in the root ----
  call nc(nf90_create('grp.nc', nf90_netcdf4, ncid))
  call nc(nf90_def_grp(ncid, 'analysis', grpid))
  call nc(nf90_def_dim(grpid, 'n', n, dimid))
  call nc(nf90_def_var(grpid, 'S', nf90_double, [dimid, dimid], varid))
  call nc(nf90_enddef(ncid))
  call nc(nf90_put_var(grpid, varid, s))
  call nc(nf90_close(ncid))
  call minv_invert_file(ctx, 'grp.nc', 'analysis/S', 'out_grp.nc', overwrite=.true., stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS, 'invert_file, analysis/S: ' // trim(msg))
  call minv_invert(ctx, s, ref)
  call get('out_grp.nc', 'S_inv', x)
  call check(close_to(x, ref, 1e-12_real64) .and. inverse_ratio(s, x, epsilon(1.0_real64)) < 30, &
             'invert_file: analysis/S inverted as S_inv')

  ! ---- minv_analyze_file: 1-based first bad entry ----
  call minv_analyze_file(ctx, 'in.nc', 'S', an, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS .and. an%n == n .and. an%symmetric == 1 .and. &
             an%first_bad_row == 0, 'analyze_file: S')
  x = a
  x(4, 7) = ieee_value(x(4, 7), ieee_quiet_nan)
  call put('in.nc', 'NAN', x)
  call minv_analyze_file(ctx, 'in.nc', 'NAN', an, fortran_order=.true., tile=8)
  call check(an%finite == 0 .and. an%first_bad_row == 4 .and. an%first_bad_col == 7, &
             'analyze_file: the first NaN at (4, 7), 1-based')
  call minv_analyze_file(ctx, 'in.nc', 'cov', an, slice=[3])
  call check(an%n == n .and. an%symmetric == 1, 'analyze_file: a slice')

  ! ---- errors with stat ----
  call minv_invert_file(ctx, 'no_such.nc', 'A', 'o.nc', stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NOT_FOUND, msg, 'minv_invert_file: ', 'missing file')
  call minv_invert_file(ctx, 'in.nc', 'nothing', 'o.nc', report=rep, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NOT_FOUND, msg, 'nothing', 'missing variable')
  call minv_invert_file(ctx, 'in.nc', 'cov', 'o.nc', slice=[1, 1, 1, 1, 1, 1, 1, 1, 1], &
                        report=rep, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, &
                  'slice has 9 indices, at most MINV_MAX_SLICE = 8 allowed', 'slice too long')
  call check(rep%n == 0 .and. rep%info == 0 .and. rep%residual == -1, 'refused: report')
  call minv_solve_file(ctx, 'in.nc', 'A', 'in.nc', 'B', 'o.nc', slice=[2, -1], stat=stat, &
                       errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, &
                  'minv_solve_file: invalid argument: slice(2) = -1, but slice indices are 1-based', &
                  'slice below 1')
  call minv_analyze_file(ctx, 'in.nc', 'cov', an, slice=[0], stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_analyze_file: invalid argument: slice(1) = 0', &
                  'analyze slice 0')
  ! indices in messages count from 1, as the arguments do
  call minv_invert_file(ctx, 'in.nc', 'cov', 'o.nc', slice=[nt + 1], stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, &
                  'slice index 4 is outside dimension time (1-based, 3 entries)', 'slice beyond the variable')
  cov(5, 6, 2) = ieee_value(x(1, 1), ieee_quiet_nan)
  call create('nan3.nc')
  call put3('nan3.nc', 'covnan', cov)
  call minv_invert_file(ctx, 'nan3.nc', 'covnan', 'o.nc', stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NOT_FINITE, msg, "variable 'covnan' (time = 2, 1-based): entry (5, 6)", &
                  'NaN in the second matrix of a batch')
  ! an existing output is replaced only when asked; a netCDF file lacking the variable gains it
  call minv_invert_file(ctx, 'in.nc', 'A', 'out.nc', 'A_inv', stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, &
                  "output 'out.nc' already holds a variable 'A_inv': minv replaces it only when asked", &
                  'existing output without overwrite')
  call minv_invert_file(ctx, 'in.nc', 'S', 'out.nc', 'S_inv', overwrite=.true.)
  call minv_invert_file(ctx, 'in.nc', 'S', 'out.nc', 'S_inv2', format=MINV_FORMAT_CDF5)
  call get('out.nc', 'A_inv', x)
  call minv_invert(ctx, a, ref)
  call check(close_to(x, ref, 1e-12_real64), 'A_inv kept when S_inv and S_inv2 are added to out.nc')
  ! the format of a new file: asked for, or the input's
  call minv_invert_file(ctx, 'in.nc', 'S', 'out_cdf5.nc', format=MINV_FORMAT_CDF5, overwrite=.true.)
  call nc(nf90_open('out_cdf5.nc', nf90_nowrite, ncid))
  call nc(nf90_inquire(ncid, formatNum=deflate_level))
  call nc(nf90_close(ncid))
  call check(deflate_level == nf90_format_cdf5, 'format=MINV_FORMAT_CDF5 writes CDF-5')
  call minv_invert_file(ctx, 'in.nc', 'S', 'o.nc', format=MINV_FORMAT_CLASSIC, deflate=1, stat=stat, &
                        errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'deflate level 1 asks for a netCDF-4 output', &
                  'deflate with classic')
  ! remote inputs only when asked
  call minv_invert_file(ctx, 'http://127.0.0.1:9/in.nc', 'S', 'o.nc', stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, &
                  "input 'http://127.0.0.1:9/in.nc' is a URL: minv reads remote data only when asked", 'a URL')
  call minv_analyze_file(ctx, 'in.nc', 'cov', an, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_SHAPE, msg, 'minv_analyze_file: ', 'analyze a batch')
  call minv_invert_file(ctx, 'grp.nc', 'model/S', 'o.nc', stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NOT_FOUND, msg, "no group 'model' in 'grp.nc'; its groups: analysis", &
                  'missing group')
  call minv_finalize(ctx)
  call test_finish('test_files')

contains

  logical function close_to(x, y, tol)
    real(real64), intent(in) :: x(:, :), y(:, :), tol
    close_to = maxval(abs(x - y)) <= tol * maxval(abs(y))
  end function close_to

  subroutine create(path)
    character(*), intent(in) :: path
    integer :: id
    call nc(nf90_create(path, nf90_netcdf4, id))
    call nc(nf90_close(id))
  end subroutine create

  ! A matrix variable written from a Fortran array, as models do (dimensions reversed in
  ! ncdump); each variable gets dimensions of its own.
  subroutine put(path, name, m)
    character(*), intent(in) :: path, name
    real(real64), intent(in) :: m(:, :)
    integer :: id, d(2), v
    call nc(nf90_open(path, nf90_write, id))
    call nc(nf90_redef(id))
    call nc(nf90_def_dim(id, name // '_row', size(m, 1), d(1)))
    call nc(nf90_def_dim(id, name // '_col', size(m, 2), d(2)))
    call nc(nf90_def_var(id, name, nf90_double, d, v))
    call nc(nf90_enddef(id))
    call nc(nf90_put_var(id, v, m))
    call nc(nf90_close(id))
  end subroutine put

  subroutine put3(path, name, m)
    character(*), intent(in) :: path, name
    real(real64), intent(in) :: m(:, :, :)
    integer :: id, d(3), v
    call nc(nf90_open(path, nf90_write, id))
    call nc(nf90_redef(id))
    call nc(nf90_def_dim(id, name // '_row', size(m, 1), d(1)))
    call nc(nf90_def_dim(id, name // '_col', size(m, 2), d(2)))
    call nc(nf90_def_dim(id, 'time', size(m, 3), d(3)))
    call nc(nf90_def_var(id, name, nf90_double, d, v))
    call nc(nf90_enddef(id))
    call nc(nf90_put_var(id, v, m))
    call nc(nf90_close(id))
  end subroutine put3

  subroutine get(path, name, m)
    character(*), intent(in) :: path, name
    real(real64), intent(out) :: m(:, :)
    integer :: id, v
    call nc(nf90_open(path, nf90_nowrite, id))
    call nc(nf90_inq_varid(id, name, v))
    call nc(nf90_get_var(id, v, m))
    call nc(nf90_close(id))
  end subroutine get

  subroutine get3(path, name, m)
    character(*), intent(in) :: path, name
    real(real64), intent(out) :: m(:, :, :)
    integer :: id, v
    call nc(nf90_open(path, nf90_nowrite, id))
    call nc(nf90_inq_varid(id, name, v))
    call nc(nf90_get_var(id, v, m))
    call nc(nf90_close(id))
  end subroutine get3

  subroutine nc(status)
    integer, intent(in) :: status
    if (status /= nf90_noerr) error stop 'netCDF: ' // trim(nf90_strerror(status))
  end subroutine nc
end program test_files
