! The analysis step of a local ensemble transform Kalman filter (LETKF, Hunt et al. 2007) over
! MPI ranks, as PDAF, the Miyoshi LETKF and GSI-EnKF deal it: each rank analyses its own grid
! points, and every point is a small problem in the k-dimensional ensemble space,
!   Pa = [(k - 1) I / rho + Y^T R^-1 Y]^-1,   w = Pa Y^T R^-1 (y - ybar),
! with Y the ensemble perturbations of the observations near the point. The ranks hold unequal
! numbers of points (rank 0 twice the others', as a decomposition by land and sea does), so
! the batches go with rebalance=.true. One call on each rank inverts every Pa of the job, one
! solves every w.
!
! The step's global part: the innovations d = y - H xb of a satellite instrument whose errors
! are correlated along its swath, R a SOAR covariance of all m observations. R and d come in a
! NetCDF file (written here by rank 0 with netcdf-fortran, as another tool would), and
! z = R^-1 d is solved over the ranks from the file (ScaLAPACK in blocks over the ranks, the
! file read by each rank's slab), for the cost function's observation term d^T R^-1 d.
!
! It checks itself: the analysis must beat the background everywhere it is measured, Pa must
! invert each matrix to rounding, and z must solve R z = d; a wrong answer exits non-zero.
!
!   mpirun -np 4 example_letkf_mpi
program letkf_mpi
  use mpi
  use netcdf
  use minv_mod
  use minv_mpi_mod
  use, intrinsic :: iso_fortran_env, only: real64
  implicit none
  integer, parameter :: nx = 240, nens = 16, radius = 3, m = 400
  real(real64), parameter :: obs_std = 0.5_real64, rho = 1.05_real64, pi = acos(-1.0_real64)
  type(minv_context) :: ctx
  type(minv_batch_report) :: rep
  type(minv_report) :: grep
  integer :: comm, rank, nranks, ierr, first, npts, p, j, i, l, idx, stat
  real(real64), allocatable :: a(:, :, :), pa(:, :, :), rhs(:, :, :), w(:, :, :)
  real(real64) :: truth(nx), ens(nx, nens), xbar(nx), xp(nx, nens), y(nx), ybar(nx), yp(nx, nens)
  real(real64) :: yl(2 * radius + 1, nens), rinv(2 * radius + 1), dl(2 * radius + 1)
  real(real64) :: err_b, err_a, sums(3), worst, xa
  character(len=256) :: msg

  call mpi_init(ierr)
  comm = MPI_COMM_WORLD
  call mpi_comm_rank(comm, rank, ierr)
  call mpi_comm_size(comm, nranks, ierr)
  call minv_init(ctx, device=minv_mpi_device(comm)) ! one GPU a rank where there are GPUs

  ! ---- the same truth, ensemble and observations on every rank (a model run would give them) ----
  do i = 1, nx
    truth(i) = sin(2 * pi * i / nx) + 0.5_real64 * cos(6 * pi * i / nx)
    y(i) = truth(i) + obs_std * wave(i, 0)
  end do
  do j = 1, nens
    do i = 1, nx
      ens(i, j) = truth(i) + 0.3_real64 + 0.8_real64 * wave(i, j)
    end do
  end do
  xbar = sum(ens, dim=2) / nens
  do j = 1, nens
    xp(:, j) = ens(:, j) - xbar
  end do
  yp = xp ! every point observed directly: H = I
  ybar = xbar

  ! ---- this rank's grid points: rank 0 holds twice the others' ----
  call my_points(first, npts)
  allocate (a(nens, nens, npts), pa(nens, nens, npts), rhs(nens, 1, npts), w(nens, 1, npts))
  do p = 1, npts
    idx = first + p - 1
    do l = -radius, radius
      i = modulo(idx - 1 + l, nx) + 1
      yl(l + radius + 1, :) = yp(i, :)
      dl(l + radius + 1) = y(i) - ybar(i)
      rinv(l + radius + 1) = exp(-0.5_real64 * (real(l, real64) / 2)**2) / obs_std**2 ! localised R^-1
    end do
    a(:, :, p) = matmul(transpose(yl), spread(rinv, 2, nens) * yl)
    a(:, :, p) = (a(:, :, p) + transpose(a(:, :, p))) / 2 ! symmetric to the bit: the SPD path
    do j = 1, nens
      a(j, j, p) = a(j, j, p) + (nens - 1) / rho
    end do
    rhs(:, 1, p) = matmul(transpose(yl), rinv * dl)
  end do

  ! ---- the local analyses: one batch over the ranks, rebalanced ----
  call minv_invert_batched(ctx, a, pa, comm=comm, rebalance=.true., report=rep)
  if (rank == 0) call minv_print_batch_report(rep)
  call minv_solve_batched(ctx, a, rhs, w, comm=comm, rebalance=.true.)
  worst = 0
  sums = 0
  do p = 1, npts
    worst = max(worst, maxval(abs(matmul(a(:, :, p), pa(:, :, p)) - identity())))
    idx = first + p - 1
    xa = xbar(idx) + dot_product(xp(idx, :), w(:, 1, p))
    sums = sums + [(xbar(idx) - truth(idx))**2, (xa - truth(idx))**2, 1.0_real64]
  end do
  call mpi_allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
  call mpi_allreduce(MPI_IN_PLACE, worst, 1, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
  err_b = sqrt(sums(1) / sums(3))
  err_a = sqrt(sums(2) / sums(3))
  if (rank == 0) print '(a, i0, a, i0, a, es9.2, a, es9.2, a, es9.2)', 'LETKF over ', nranks, ' ranks, ', &
    nint(sums(3)), ' points: background rmse', err_b, ', analysis rmse', err_a, ', max |A Pa - I|', worst
  call expect(nint(sums(3)) == nx .and. err_a < 0.9_real64 * err_b .and. worst < 1e-12_real64 .and. &
              rep%method == MINV_METHOD_CHOLESKY, &
              'the local analyses')

  ! ---- the global part: z = R^-1 d over the ranks, R and d from a file ----
  if (rank == 0) call write_observation_file('obs.nc')
  call mpi_barrier(comm, ierr)
  call minv_solve_file(ctx, 'obs.nc', 'R', 'obs.nc', 'd', 'z.nc', comm=comm, overwrite=.true., & ! the last run's z
                       report=grep, stat=stat, errmsg=msg)
  if (rank == 0) call minv_print_report(grep)
  call expect(stat == 0, 'the solve R z = d: ' // trim(msg))
  call expect(grep%residual >= 0 .and. grep%residual < 1e-12_real64, 'R z = d to rounding')

  deallocate (a, pa, rhs, w)
  call minv_finalize(ctx)
  call mpi_finalize(ierr)

contains

  ! A reproducible pseudo-random perturbation for point i of member j, in [-1, 1].
  real(real64) function wave(i, j)
    integer, intent(in) :: i, j
    wave = sin(12.9898_real64 * i + 78.233_real64 * (j + 1)) * 0.9_real64 + sin(0.37_real64 * i * (j + 2)) * 0.1_real64
  end function wave

  ! Points first .. first + npts - 1 of this rank: rank 0 weighs 2, the others 1.
  subroutine my_points(first, npts)
    integer, intent(out) :: first, npts
    integer :: weight_before, total
    total = nranks + 1
    weight_before = merge(0, rank + 1, rank == 0)
    first = nx * weight_before / total + 1
    npts = nx * (weight_before + merge(2, 1, rank == 0)) / total - first + 1
  end subroutine my_points

  function identity() result(e)
    real(real64) :: e(nens, nens)
    integer :: k
    e = 0
    do k = 1, nens
      e(k, k) = 1
    end do
  end function identity

  ! R(i, j) = sigma^2 (1 + r / L) exp(-r / L) along the swath, and the innovations d.
  subroutine write_observation_file(path)
    character(*), intent(in) :: path
    real(real64) :: r(m, m), d(m)
    integer :: ncid, dim, vr, vd, k, q
    do q = 1, m
      do k = 1, m
        r(k, q) = obs_std**2 * (1 + abs(k - q) / 5.0_real64) * exp(-abs(k - q) / 5.0_real64)
      end do
      d(q) = wave(q, 7)
    end do
    call nc(nf90_create(path, NF90_NETCDF4, ncid))
    call nc(nf90_def_dim(ncid, 'obs', m, dim))
    call nc(nf90_def_var(ncid, 'R', NF90_DOUBLE, [dim, dim], vr))
    call nc(nf90_def_var(ncid, 'd', NF90_DOUBLE, [dim], vd))
    call nc(nf90_enddef(ncid))
    call nc(nf90_put_var(ncid, vr, r))
    call nc(nf90_put_var(ncid, vd, d))
    call nc(nf90_close(ncid))
  end subroutine write_observation_file

  subroutine nc(status)
    integer, intent(in) :: status
    if (status /= NF90_NOERR) then
      print '(2a)', 'netcdf: ', trim(nf90_strerror(status))
      call mpi_abort(comm, 2, ierr)
    end if
  end subroutine nc

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a, i0, 2a)', 'FAILED on rank ', rank, ': ', what
      call mpi_abort(comm, 1, ierr)
    end if
  end subroutine expect

end program letkf_mpi
