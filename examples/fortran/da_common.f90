! What the Fortran DA examples share: the Lorenz-96 model, Gaussian noise, and a check that
! stops the example with a message when a result is wrong (CTest then reports it).
module da_common
  use, intrinsic :: iso_fortran_env, only: real64
  implicit none
  private
  public :: lorenz96_forecast, gaussian, seed_random, expect, identity

  real(real64), parameter :: forcing = 8, dt = 0.05_real64

contains

  ! Integrates Lorenz-96, dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F (cyclic), for
  ! `steps` RK4 steps of 0.05 (6 hours each, by Lorenz's scaling).
  subroutine lorenz96_forecast(x, steps)
    real(real64), intent(inout) :: x(:)
    integer, intent(in) :: steps
    real(real64), dimension(size(x)) :: k1, k2, k3, k4
    integer :: s

    do s = 1, steps
      k1 = tendency(x)
      k2 = tendency(x + dt / 2 * k1)
      k3 = tendency(x + dt / 2 * k2)
      k4 = tendency(x + dt * k3)
      x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    end do
  end subroutine lorenz96_forecast

  function tendency(x) result(f)
    real(real64), intent(in) :: x(:)
    real(real64) :: f(size(x))
    f = (cshift(x, 1) - cshift(x, -2)) * cshift(x, -1) - x + forcing
  end function tendency

  ! Reproducible runs: the same seed every time.
  subroutine seed_random()
    integer :: n
    integer, allocatable :: seed(:)
    call random_seed(size=n)
    allocate (seed(n))
    seed = 20240611
    call random_seed(put=seed)
  end subroutine seed_random

  ! Standard normal numbers (Box-Muller).
  impure elemental real(real64) function gaussian(scale)
    real(real64), intent(in) :: scale
    real(real64), parameter :: two_pi = 8 * atan(1.0_real64)
    real(real64) :: u(2)
    call random_number(u)
    gaussian = scale * sqrt(-2 * log(1 - u(1))) * cos(two_pi * u(2))
  end function gaussian

  function identity(n) result(e)
    integer, intent(in) :: n
    real(real64) :: e(n, n)
    integer :: i
    e = 0
    do i = 1, n
      e(i, i) = 1
    end do
  end function identity

  ! Stops the example (non-zero exit) when a check fails; prints it either way.
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) error stop 'FAILED: ' // what
    write (*, '("  ok: ", a)') what
  end subroutine expect
end module da_common
