! A stochastic (perturbed-observation) EnKF on Lorenz-96, 40 variables, 20 observed.
!
! Each cycle solves (H P H^T + R) W = D for the innovations of every member at once: D is
! nobs x nens, so one minv_solve with nens right-hand sides replaces nens solves (or an
! explicit inverse). The context is created once and reused by every cycle. The first
! cycle's W is compared with LAPACK's dposv; the filter must then track the truth to well
! within the observation error while a free run does not.
program enkf_stochastic
  use, intrinsic :: iso_fortran_env, only: real64
  use minv_mod
  use da_common, only: lorenz96_forecast, gaussian, seed_random, expect
  implicit none
  interface
    subroutine dposv(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: real64
      character, intent(in) :: uplo
      integer, intent(in) :: n, nrhs, lda, ldb
      real(real64), intent(inout) :: a(lda, *), b(ldb, *)
      integer, intent(out) :: info
    end subroutine dposv
  end interface
  integer, parameter :: nx = 40, nobs = nx / 2, nens = 100, cycles = 200
  real(real64), parameter :: obs_std = 1, inflation = 1.05_real64
  type(minv_context) :: ctx
  type(minv_report) :: rep
  real(real64) :: truth(nx), free(nx), mean(nx), ens(nx, nens), xp(nx, nens), hxp(nobs, nens)
  real(real64) :: y(nobs), s(nobs, nobs), d(nobs, nens), w(nobs, nens), s_ref(nobs, nobs)
  real(real64) :: w_ref(nobs, nens), err_enkf, err_free, max_dev
  integer :: c, i, j, info

  call seed_random()
  truth = 8
  truth(nx / 2) = 8.01_real64
  call lorenz96_forecast(truth, 1000)
  ! the initial ensemble and the free run: states from elsewhere on the attractor
  do j = 1, nens
    ens(:, j) = truth + gaussian([(3.0_real64, i=1, nx)])
    call lorenz96_forecast(ens(:, j), 100)
  end do
  free = ens(:, 1)
  err_enkf = 0
  err_free = 0
  max_dev = 0

  call minv_init(ctx)
  do c = 1, cycles
    ! forecast: 6 hours
    call lorenz96_forecast(truth, 1)
    call lorenz96_forecast(free, 1)
    do j = 1, nens
      call lorenz96_forecast(ens(:, j), 1)
    end do
    ! analysis: the observed (even) variables are every other row
    y = truth(2::2) + gaussian([(obs_std, i=1, nobs)])
    mean = sum(ens, dim=2) / nens
    xp = inflation * (ens - spread(mean, 2, nens))
    ens = spread(mean, 2, nens) + xp
    hxp = xp(2::2, :)
    s = matmul(hxp, transpose(hxp)) / (nens - 1)
    do i = 1, nobs
      s(i, i) = s(i, i) + obs_std**2
    end do
    do j = 1, nens
      d(:, j) = y + gaussian([(obs_std, i=1, nobs)]) - ens(2::2, j)
    end do
    call minv_solve(ctx, s, d, w, report=rep)
    ens = ens + matmul(xp, matmul(transpose(hxp), w)) / (nens - 1)

    if (c == 1) then
      call minv_print_report(rep)
      s_ref = s
      w_ref = d
      call dposv('L', nobs, nens, s_ref, nobs, w_ref, nobs, info)
      call expect(info == 0, 'LAPACK dposv succeeded')
      max_dev = maxval(abs(w - w_ref)) / maxval(abs(w_ref))
      write (*, '("cycle 1: max |W - W_lapack| / max |W| = ", es9.2)') max_dev
    end if
    if (c > cycles / 2) then
      err_enkf = err_enkf + rms(sum(ens, dim=2) / nens - truth) / (cycles - cycles / 2)
      err_free = err_free + rms(free - truth) / (cycles - cycles / 2)
    end if
  end do
  call minv_finalize(ctx)

  write (*, '("mean rms error over the last ", i0, " cycles: EnKF ", f6.3, ", free run ", &
            &f6.3, " (observation error ", f4.2, ")")') cycles - cycles / 2, err_enkf, err_free, obs_std
  call expect(rep%nrhs == nens .and. rep%n == nobs, 'one solve per cycle with 100 right-hand sides')
  call expect(max_dev <= 1e-12_real64, 'W agrees with LAPACK to 1e-12')
  call expect(err_enkf < 0.5_real64 * obs_std, 'the EnKF tracks the truth within half the obs error')
  call expect(err_free > 4 * err_enkf, 'the free run does not')

contains

  real(real64) function rms(v)
    real(real64), intent(in) :: v(:)
    rms = sqrt(sum(v**2) / size(v))
  end function rms
end program enkf_stochastic
