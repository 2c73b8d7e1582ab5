! minv in OpenMP Fortran code, as an EnKF/LETKF calls LAPACK: a call inside
! `!$omp parallel num_threads(2)` / `!$omp single` with a default context, a parallel loop of
! 10000 local solves of order 29 with one context per thread (an array indexed by thread, and
! a THREADPRIVATE context made on first use, the README's pattern), on 1, 2 and 4 threads,
! and one context used by two threads at once (refused with MINV_ERR_CONTEXT_BUSY, the other
! call unharmed). CTest runs it again under OMP_THREAD_LIMIT=2 OMP_NUM_THREADS=1. Every answer
! must equal LAPACK's (dposv, dgesv) to rounding and no call may fail.
module test_openmp_cases
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use minv_mod
  use test_util
  implicit none
  private
  public :: local_problem, solve_and_compare

  interface
    subroutine dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)
      import :: real64
      integer, intent(in) :: n, nrhs, lda, ldb
      real(real64), intent(inout) :: a(lda, *), b(ldb, *)
      integer, intent(out) :: ipiv(*), info
    end subroutine dgesv
    subroutine dposv(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: real64
      character, intent(in) :: uplo
      integer, intent(in) :: n, nrhs, lda, ldb
      real(real64), intent(inout) :: a(lda, *), b(ldb, *)
      integer, intent(out) :: info
    end subroutine dposv
  end interface

  ! The README's pattern: a context per thread, made on first use.
  type(minv_context), save, public :: local_ctx
  !$omp threadprivate(local_ctx)

  ! Two threads on one context: the first, inside a long call, waits in its progress callback
  ! until the second has tried.
  integer, public :: inside = 0, tried = 0
  public :: hold

contains

  subroutine hold(stage, fraction)
    character(*), intent(in) :: stage
    real(real64), intent(in) :: fraction
    integer :: seen

    !$omp atomic read
    seen = inside
    if (seen == 1) return
    !$omp atomic write
    inside = 1
    do
      !$omp atomic read
      seen = tried
      if (seen == 1) exit
    end do
  end subroutine hold

  ! The matrix and right-hand sides of grid point `point`: SPD (exactly symmetric) at two
  ! points of three, general at the third.
  subroutine local_problem(point, a, b, spd)
    integer, intent(in) :: point
    real(real64), intent(out) :: a(:, :), b(:, :)
    logical, intent(out) :: spd
    type(rng_t) :: rng
    integer :: i, j

    rng%state = 88172645463325252_int64 + 7919_int64 * point
    spd = mod(point, 3) /= 0
    if (spd) then
      call spd_matrix(rng, a)
      a = (a + transpose(a)) / 2
    else
      call random_matrix(rng, a)
    end if
    do j = 1, size(b, 2)
      do i = 1, size(b, 1)
        b(i, j) = sin(real(point + 7 * i + 13 * j, real64))
      end do
    end do
  end subroutine local_problem

  ! minv_solve against dposv/dgesv on the same input: the difference, in units of the
  ! forward-error bound eps / rcond of two backward-stable solves; huge() on a failure.
  real(real64) function solve_and_compare(ctx, a, b) result(diff)
    type(minv_context), intent(inout) :: ctx
    real(real64), intent(in) :: a(:, :), b(:, :)
    real(real64) :: x(size(b, 1), size(b, 2)), ref(size(b, 1), size(b, 2)), f(size(a, 1), size(a, 2))
    type(minv_report) :: rep
    integer :: stat, info, n, ipiv(size(a, 1))
    character(256) :: msg
    logical :: symmetric

    n = size(a, 1)
    call minv_solve(ctx, a, b, x, report=rep, stat=stat, errmsg=msg)
    if (stat /= MINV_SUCCESS) then
      write (*, '("minv_solve failed: ", a)') trim(msg)
      diff = huge(diff)
      return
    end if
    f = a
    ref = b
    symmetric = all(a == transpose(a))
    if (symmetric) then
      call dposv('L', n, size(b, 2), f, n, ref, n, info)
    else
      call dgesv(n, size(b, 2), f, n, ipiv, ref, n, info)
    end if
    diff = maxval(abs(x - ref)) / maxval(abs(ref)) * rep%rcond / epsilon(1.0_real64)
    if (info /= 0) diff = huge(diff)
  end function solve_and_compare
end module test_openmp_cases

program test_openmp
  use, intrinsic :: iso_fortran_env, only: real64
  use omp_lib
  use minv_mod
  use test_util
  use test_openmp_cases
  implicit none
  integer, parameter :: n = 29, points = 10000
  type(minv_context) :: ctx
  type(minv_context), allocatable :: per_thread(:)
  real(real64) :: a(n, n), b(n, 30), worst
  logical :: spd
  integer :: threads, p, t
  real(real64) :: t0

  write (*, '("omp_get_max_threads ", i0, ", omp_get_thread_limit ", i0)') omp_get_max_threads(), &
    omp_get_thread_limit()

  ! ---- the issue's report: inside parallel/single, a default context ----
  call minv_init(ctx)
  worst = 0
  !$omp parallel num_threads(2)
  !$omp single
  do p = 1, 6
    call local_problem(p, a, b, spd)
    worst = max(worst, solve_and_compare(ctx, a, b(:, 1:1)))
    worst = max(worst, solve_and_compare(ctx, a, b))
  end do
  !$omp end single
  !$omp end parallel
  call check(worst < 30, 'inside omp single: minv_solve agrees with LAPACK')
  call minv_finalize(ctx)

  ! ---- a DA local analysis: one context per thread, each asking for 4 threads ----
  do threads = 1, 4
    if (threads == 3) cycle
    allocate (per_thread(0:threads - 1))
    do t = 0, threads - 1
      call minv_init(per_thread(t), backend=MINV_BACKEND_CPU, cpu_threads=4)
    end do
    worst = 0
    t0 = omp_get_wtime()
    !$omp parallel do num_threads(threads) schedule(dynamic, 64) private(a, b, spd) &
    !$omp   reduction(max:worst)
    do p = 1, points
      call local_problem(p, a, b, spd)
      worst = max(worst, solve_and_compare(per_thread(omp_get_thread_num()), a, b(:, 1:1)))
    end do
    !$omp end parallel do
    write (*, '(i0, " threads: ", i0, " local solves in ", f0.3, " s, largest difference from LAPACK ", &
              &es9.2, " eps / rcond")') threads, points, omp_get_wtime() - t0, worst
    call check(worst < 30, 'local solves: every answer agrees with LAPACK, none failed')
    do t = 0, threads - 1
      call minv_finalize(per_thread(t))
    end do
    deallocate (per_thread)
  end do

  ! ---- the same loop with a THREADPRIVATE context made on first use ----
  do threads = 1, 2
    worst = 0
    !$omp parallel do num_threads(threads) schedule(dynamic, 64) private(a, b, spd) &
    !$omp   reduction(max:worst)
    do p = 1, points
      if (.not. minv_initialized(local_ctx)) call minv_init(local_ctx, backend=MINV_BACKEND_CPU, cpu_threads=1)
      call local_problem(p, a, b, spd)
      worst = max(worst, solve_and_compare(local_ctx, a, b(:, 1:1)))
    end do
    !$omp end parallel do
    call check(worst < 30, 'THREADPRIVATE contexts: every answer agrees with LAPACK')
    !$omp parallel num_threads(threads)
    call minv_finalize(local_ctx)
    !$omp end parallel
  end do

  ! ---- one context, two threads at once ----
  call busy_context()
  call test_finish('test_openmp')

contains

  subroutine busy_context()
    integer, parameter :: big = 200
    type(minv_context) :: shared
    real(real64) :: g(big, big), gb(big, 1), gx(big, 1), x(n, 1)
    integer :: stat0, stat1, team
    character(256) :: msg

    call minv_init(shared, backend=MINV_BACKEND_CPU)
    call minv_set_option(shared, MINV_OPT_BLOCK_SIZE, 32) ! Gauss-Jordan reports progress per block
    call minv_set_progress(shared, hold)
    call random_number(g)
    do p = 1, big
      g(p, p) = g(p, p) + big
    end do
    gb = 1
    call local_problem(1, a, b, spd)
    stat1 = -1
    msg = ''
    !$omp parallel num_threads(2) private(team)
    team = omp_get_num_threads()
    if (omp_get_thread_num() == 0) then
      if (team < 2) then ! no second thread: nothing to wait for
        !$omp atomic write
        tried = 1
      end if
      call minv_solve(shared, g, gb, gx, method=MINV_METHOD_GAUSS_JORDAN, stat=stat0)
    else
      do
        !$omp atomic read
        team = inside
        if (team == 1) exit
      end do
      call minv_solve(shared, a, b(:, 1:1), x, stat=stat1, errmsg=msg)
      !$omp atomic write
      tried = 1
    end if
    !$omp end parallel
    call check(stat0 == MINV_SUCCESS, 'the call inside is unharmed')
    call check(maxval(abs(matmul(g, gx) - gb)) < 1e-10_real64, 'and its answer is right')
    if (stat1 /= -1) &
      call check_stat(stat1, MINV_ERR_CONTEXT_BUSY, msg, 'minv_solve: context in use by another thread', &
                      'the second thread is refused')
    call minv_set_progress(shared)
    call minv_finalize(shared)
  end subroutine busy_context
end program test_openmp
