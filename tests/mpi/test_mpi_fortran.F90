! minv_mpi_mod from a Fortran program that uses mpi, as DA codes do: the generics of minv_mod
! with comm= (files, batches) and with a layout (one matrix over the ranks), against serial
! minv on the same data; statuses, messages and reports the same on every rank; a shape error
! on one rank only.
program test_mpi_fortran
  use mpi
  use netcdf
  use minv_mod
  use minv_mpi_mod
  use, intrinsic :: iso_fortran_env, only: real64, int64
  implicit none
  integer, parameter :: k = 7, n = 30, nrhs = 3
  type(minv_context) :: ctx
  integer :: comm, rank, size, ierr, failures, total

  call mpi_init(ierr)
  comm = MPI_COMM_WORLD
  call mpi_comm_rank(comm, rank, ierr)
  call mpi_comm_size(comm, size, ierr)
  failures = 0
  call minv_init(ctx, backend=MINV_BACKEND_CPU, device=minv_mpi_device(comm))
  call batches()
  call files()
  call one_matrix()
  call one_block()
  call shape_error()
  call minv_finalize(ctx)
  call mpi_allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a, i0, a)', 'test_mpi_fortran (', size, ' ranks): all checks passed'
    else
      print '(a, i0, a)', 'test_mpi_fortran: ', total, ' check(s) failed'
    end if
  end if
  call mpi_finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      write (*, '(a, i0, 2a)') 'FAIL rank ', rank, ': ', what
    end if
  end subroutine check

  ! .true. when text is the same on every rank as on rank 0
  logical function same_everywhere(text) result(same)
    character(*), intent(in) :: text
    character(len=len(text)) :: root
    integer :: differ, any_differ
    root = text
    call mpi_bcast(root, len(root), MPI_CHARACTER, 0, comm, ierr)
    differ = merge(1, 0, root /= text)
    call mpi_allreduce(differ, any_differ, 1, MPI_INTEGER, MPI_MAX, comm, ierr)
    same = any_differ == 0
  end function same_everywhere

  ! A(i, j) of a well-conditioned matrix, symmetric when spd
  real(real64) function entry(i, j, seed, spd) result(v)
    integer(int64), intent(in) :: i, j
    integer, intent(in) :: seed
    logical, intent(in) :: spd
    if (spd) then
      v = 1 / real(1 + abs(i - j), real64) + merge(real(n, real64), 0.0_real64, i == j)
    else
      v = sin(real(seed * 31 + i * 7 + j * 13, real64)) + merge(real(n, real64), 0.0_real64, i == j)
    end if
  end function entry

  subroutine member(g, a)
    integer, intent(in) :: g
    real(real64), intent(out) :: a(k, k)
    integer(int64) :: i, j
    do j = 1, k
      do i = 1, k
        a(i, j) = entry(i, j, g, mod(g, 2) == 0)
      end do
    end do
  end subroutine member

  ! ---- each rank its own members (rank 1 none), rebalanced ----
  subroutine batches()
    real(real64), allocatable :: a(:, :, :), ainv(:, :, :), ref(:, :, :)
    type(minv_batch_report) :: rep
    integer, allocatable :: st(:)
    integer :: nb, first, m, r, stat
    character(len=512) :: msg

    nb = merge(0, 2 + rank, rank == 1)
    first = 0
    do r = 0, rank - 1
      first = first + merge(0, 2 + r, r == 1)
    end do
    allocate (a(k, k, nb), ainv(k, k, nb), ref(k, k, nb), st(nb))
    do m = 1, nb
      call member(first + m, a(:, :, m))
    end do
    call minv_invert_batched(ctx, a, ainv, comm=comm, rebalance=.true., report=rep)
    if (nb > 0) call minv_invert_batched(ctx, a, ref)
    call check(maxval(abs(ainv - ref), mask=.true.) <= 1e-10_real64 * max(1.0_real64, maxval(abs(ref))) .or. nb == 0, &
               'batched inverse differs from serial minv')
    call check(rep%nbatch == total_members() .and. rep%first_failed == 0 .and. rep%failed == 0, 'batch report')
    ! a singular member, rank 0's last: its 1-based global index in the report, on every rank
    if (rank == 0) a(:, 3, nb) = 0
    call minv_invert_batched(ctx, a, ainv, comm=comm, status=st, report=rep, stat=stat, errmsg=msg)
    call check(stat == MINV_ERR_SINGULAR .and. same_everywhere(msg), 'singular member: stat and message everywhere')
    call check(rep%first_failed == 2 .and. rep%first_info == 3 .and. rep%failed == 1, 'first failed member, 1-based')
    if (rank == 0) call check(st(nb) == MINV_ERR_SINGULAR, 'the member''s own status')
  end subroutine batches

  integer(int64) function total_members() result(t)
    integer :: r
    t = 0
    do r = 0, size - 1
      t = t + merge(0, 2 + r, r == 1)
    end do
  end function total_members

  ! ---- files, written from Fortran by nf90 (dimensions reversed on disk) ----
  subroutine files()
    real(real64) :: b(n, n), rhs(n, nrhs), got(n, n), ref(n, n), x(n, nrhs), xref(n, nrhs)
    integer(int64) :: i, j
    integer :: ncid, d(2), dr, v, vr, r
    type(minv_report) :: rep

    do j = 1, n
      do i = 1, n
        b(i, j) = entry(i, j, 1, .true.)
      end do
      rhs(j, :) = [(real(j * r, real64), r=1, nrhs)]
    end do
    if (rank == 0) then
      call nc(nf90_create('f_in.nc', NF90_NETCDF4, ncid))
      call nc(nf90_def_dim(ncid, 'n', n, d(1)))
      call nc(nf90_def_dim(ncid, 'k', nrhs, dr))
      d(2) = d(1)
      call nc(nf90_def_var(ncid, 'B', NF90_DOUBLE, d, v))
      call nc(nf90_def_var(ncid, 'D', NF90_DOUBLE, [d(1), dr], vr))
      call nc(nf90_enddef(ncid))
      call nc(nf90_put_var(ncid, v, b))
      call nc(nf90_put_var(ncid, vr, rhs))
      call nc(nf90_close(ncid))
    end if
    call mpi_barrier(comm, ierr)
    ! overwrite: the outputs of an earlier run are replaced
    call minv_invert_file(ctx, 'f_in.nc', 'B', 'f_inv.nc', comm=comm, overwrite=.true., report=rep)
    call check(same_everywhere(minv_report_reason(rep)) .and. rep%residual < 1e-13_real64, 'invert_file report')
    call minv_solve_file(ctx, 'f_in.nc', 'B', 'f_in.nc', 'D', 'f_x.nc', comm=comm, overwrite=.true.)
    if (rank == 0) then
      call minv_invert_file(ctx, 'f_in.nc', 'B', 'f_ref.nc', overwrite=.true.)
      call minv_solve_file(ctx, 'f_in.nc', 'B', 'f_in.nc', 'D', 'f_xref.nc', overwrite=.true.)
    end if
    call mpi_barrier(comm, ierr)
    call read2('f_inv.nc', 'B_inv', got)
    call read2('f_ref.nc', 'B_inv', ref)
    call check(maxval(abs(got - ref)) <= 1e-10_real64 * maxval(abs(ref)), 'minv_invert_file(comm=) differs from serial')
    call check(maxval(abs(matmul(b, got) - identity())) < 1e-12_real64, 'B B_inv is not I')
    call read2('f_x.nc', 'X', x)
    call read2('f_xref.nc', 'X', xref)
    call check(maxval(abs(x - xref)) <= 1e-10_real64 * maxval(abs(xref)), 'minv_solve_file(comm=) differs from serial')
    ! another format than the input's (netCDF-4): CDF-5, written collectively
    call minv_invert_file(ctx, 'f_in.nc', 'B', 'f_inv5.nc', comm=comm, overwrite=.true., format=MINV_FORMAT_CDF5)
    call check(file_format('f_inv5.nc') == nf90_format_cdf5, 'format=MINV_FORMAT_CDF5: not a CDF-5 file')
    call read2('f_inv5.nc', 'B_inv', got)
    call check(maxval(abs(got - ref)) <= 1e-10_real64 * maxval(abs(ref)), 'the CDF-5 output differs from serial')
  end subroutine files

  integer function file_format(path)
    character(*), intent(in) :: path
    integer :: ncid
    call nc(nf90_open(path, NF90_NOWRITE, ncid))
    call nc(nf90_inquire(ncid, formatNum=file_format))
    call nc(nf90_close(ncid))
  end function file_format

  function identity() result(e)
    real(real64) :: e(n, n)
    integer :: i
    e = 0
    do i = 1, n
      e(i, i) = 1
    end do
  end function identity

  subroutine read2(path, var, values)
    character(*), intent(in) :: path, var
    real(real64), intent(out) :: values(:, :)
    integer :: ncid, v
    call nc(nf90_open(path, NF90_NOWRITE, ncid))
    call nc(nf90_inq_varid(ncid, var, v))
    call nc(nf90_get_var(ncid, v, values))
    call nc(nf90_close(ncid))
  end subroutine read2

  subroutine nc(status)
    integer, intent(in) :: status
    if (status /= NF90_NOERR) then
      write (*, '(2a)') 'netcdf: ', trim(nf90_strerror(status))
      error stop 2
    end if
  end subroutine nc

  ! ---- one matrix over the ranks, in a layout ----
  subroutine one_matrix()
    type(minv_layout) :: la, lb
    type(minv_report) :: rep
    real(real64), allocatable :: a(:, :), ainv(:, :), b(:, :), x(:, :)
    real(real64) :: full(n, n), ref(n, n), bfull(n, nrhs), xref(n, nrhs)
    integer(int64) :: i, j
    integer :: li, lj, r

    do j = 1, n
      do i = 1, n
        full(i, j) = entry(i, j, 5, .false.)
      end do
      bfull(j, :) = [(real(j + r, real64), r=1, nrhs)]
    end do
    call minv_layout_init(la, ctx, comm, int(n, int64), int(n, int64), nb=4)
    call minv_layout_like(lb, ctx, la, int(n, int64), int(nrhs, int64))
    allocate (a(la%lld, la%local_cols), ainv(la%lld, la%local_cols), b(lb%lld, lb%local_cols), x(lb%lld, lb%local_cols))
    do lj = 1, int(la%local_cols)
      do li = 1, int(la%local_rows)
        a(li, lj) = full(minv_layout_row(la, li), minv_layout_col(la, lj))
      end do
    end do
    do lj = 1, int(lb%local_cols)
      do li = 1, int(lb%local_rows)
        b(li, lj) = bfull(minv_layout_row(lb, li), minv_layout_col(lb, lj))
      end do
    end do
    call minv_invert(ctx, a, ainv, la, report=rep)
    call minv_invert(ctx, full, ref)
    do lj = 1, int(la%local_cols)
      do li = 1, int(la%local_rows)
        if (abs(ainv(li, lj) - ref(minv_layout_row(la, li), minv_layout_col(la, lj))) > 1e-10_real64 * maxval(abs(ref))) then
          call check(.false., 'the layout''s inverse differs from serial minv')
          exit
        end if
      end do
    end do
    call check(rep%method == MINV_METHOD_LU .and. rep%info == 0, 'layout report')
    call minv_solve(ctx, a, b, x, la, lb)
    call minv_solve(ctx, full, bfull, xref)
    do lj = 1, int(lb%local_cols)
      do li = 1, int(lb%local_rows)
        if (abs(x(li, lj) - xref(minv_layout_row(lb, li), minv_layout_col(lb, lj))) > 1e-10_real64 * maxval(abs(xref))) then
          call check(.false., 'the layout''s solve differs from serial minv')
          exit
        end if
      end do
    end do
    call minv_layout_free(lb)
    call minv_layout_free(la)
  end subroutine one_matrix

  ! ---- one block of an SPD matrix: the other ranks' pieces are empty (the module passes them
  !      on as null pointers) and they take part in every step, AUTO's kept copy included ----
  subroutine one_block()
    type(minv_layout) :: l
    type(minv_report) :: rep
    real(real64), allocatable :: a(:, :), ainv(:, :)
    real(real64) :: full(n, n), ref(n, n)
    integer(int64) :: i, j
    integer :: stat

    do j = 1, n
      do i = 1, n
        full(i, j) = entry(i, j, 0, .true.)
      end do
    end do
    call minv_layout_init(l, ctx, comm, n, n, nb=n) ! default integers, as README's snippet
    allocate (a(l%lld, l%local_cols), ainv(l%lld, l%local_cols))
    if (l%local_cols > 0) a = full(1:l%local_rows, 1:l%local_cols)
    call minv_invert(ctx, a, ainv, l, report=rep, stat=stat)
    call check(stat == MINV_SUCCESS .and. rep%method == MINV_METHOD_CHOLESKY, 'one block: every rank took part')
    call minv_invert(ctx, full, ref)
    if (l%local_cols > 0) &
      call check(maxval(abs(ainv - ref(1:l%local_rows, 1:l%local_cols))) <= 1e-10_real64 * maxval(abs(ref)), &
                 'one block: the inverse differs from serial minv')
    call minv_layout_free(l)
  end subroutine one_block

  ! ---- a wrong shape on the last rank only: every rank fails alike ----
  subroutine shape_error()
    real(real64), allocatable :: a(:, :, :), ainv(:, :, :)
    integer :: stat
    character(len=512) :: msg

    allocate (a(k, k, 1), ainv(k, k, merge(2, 1, rank == size - 1)))
    call member(1, a(:, :, 1))
    msg = ''
    call minv_invert_batched(ctx, a, ainv, comm=comm, stat=stat, errmsg=msg)
    call check(stat == MINV_ERR_SHAPE, 'a shape error on one rank is every rank''s')
    call check(same_everywhere(msg) .and. index(msg, 'ainv is') > 0, 'the same message everywhere: ' // trim(msg))
  end subroutine shape_error

end program test_mpi_fortran
