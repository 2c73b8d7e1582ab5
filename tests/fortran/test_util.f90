! Shared helpers for minv's Fortran tests: counted checks, reproducible matrices, and
! residual ratios computed in double whatever the precision under test.
module test_util
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  implicit none
  private
  public :: check, check_stat, test_finish, rng_t, random_matrix, spd_matrix, &
            inverse_ratio, solve_ratio

  integer :: failures = 0

  ! xorshift64: bit operations only (no integer overflow), the same numbers everywhere.
  type :: rng_t
    integer(int64) :: state = 88172645463325252_int64
  end type rng_t

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      failures = failures + 1
      write (error_unit, '("FAIL: ", a)') what
    end if
  end subroutine check

  ! A call returned stat: it must be `expected`, and the message must contain `needle`.
  subroutine check_stat(stat, expected, errmsg, needle, what)
    integer, intent(in) :: stat, expected
    character(*), intent(in) :: errmsg, needle, what
    if (stat /= expected) then
      failures = failures + 1
      write (error_unit, '("FAIL: ", a, ": stat ", i0, ", expected ", i0, " (", a, ")")') &
        what, stat, expected, trim(errmsg)
    else if (index(errmsg, needle) == 0) then
      failures = failures + 1
      write (error_unit, '("FAIL: ", a, ": message lacks """, a, """: ", a)') what, needle, &
        trim(errmsg)
    end if
  end subroutine check_stat

  ! Prints the summary and ends the program, non-zero on failure.
  subroutine test_finish(name)
    character(*), intent(in) :: name
    if (failures > 0) then
      write (error_unit, '(a, ": ", i0, " failure(s)")') name, failures
      error stop 1
    end if
    write (*, '(a, ": all checks passed")') name
  end subroutine test_finish

  real(real64) function uniform(rng)
    type(rng_t), intent(inout) :: rng
    rng%state = ieor(rng%state, ishft(rng%state, 13))
    rng%state = ieor(rng%state, ishft(rng%state, -7))
    rng%state = ieor(rng%state, ishft(rng%state, 17))
    ! the top 53 bits, as a double in [-1, 1)
    uniform = real(ishft(rng%state, -11), real64) * 2.0_real64**(-52) - 1
  end function uniform

  ! Uniform entries plus n on the diagonal: well conditioned, not symmetric.
  subroutine random_matrix(rng, a)
    type(rng_t), intent(inout) :: rng
    real(real64), intent(out) :: a(:, :)
    integer :: i, j
    do j = 1, size(a, 2)
      do i = 1, size(a, 1)
        a(i, j) = uniform(rng)
      end do
    end do
    do i = 1, min(size(a, 1), size(a, 2))
      a(i, i) = a(i, i) + size(a, 1)
    end do
  end subroutine random_matrix

  ! M M^T / n + I: symmetric positive definite.
  subroutine spd_matrix(rng, a)
    type(rng_t), intent(inout) :: rng
    real(real64), intent(out) :: a(:, :)
    real(real64) :: m(size(a, 1), size(a, 1))
    integer :: n
    n = size(a, 1)
    call random_matrix(rng, m)
    m = m - n * identity(n)
    a = matmul(m, transpose(m)) / n + identity(n)
  end subroutine spd_matrix

  function identity(n) result(e)
    integer, intent(in) :: n
    real(real64) :: e(n, n)
    integer :: i
    e = 0
    do i = 1, n
      e(i, i) = 1
    end do
  end function identity

  ! ||I - A X||_1 / (n ||A||_1 ||X||_1 eps), LAPACK's dget03 ratio (pass: below 30).
  real(real64) function inverse_ratio(a, x, eps)
    real(real64), intent(in) :: a(:, :), x(:, :), eps
    integer :: n
    n = size(a, 1)
    inverse_ratio = norm1(identity(n) - matmul(a, x)) / (n * norm1(a) * norm1(x) * eps)
  end function inverse_ratio

  ! ||B - A X||_1 / (n ||A||_1 ||X||_1 eps), LAPACK's dget02 ratio.
  real(real64) function solve_ratio(a, b, x, eps)
    real(real64), intent(in) :: a(:, :), b(:, :), x(:, :), eps
    solve_ratio = norm1(b - matmul(a, x)) / (size(a, 1) * norm1(a) * norm1(x) * eps)
  end function solve_ratio

  real(real64) function norm1(a)
    real(real64), intent(in) :: a(:, :)
    norm1 = maxval(sum(abs(a), dim=1))
  end function norm1
end module test_util
