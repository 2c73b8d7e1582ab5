! A Kalman filter analysis step on Lorenz-96 (40 variables), with the gain from minv_solve.
!
! Every other variable is observed (20 observations). With S = H P H^T + R, symmetric, the
! gain K = P H^T S^-1 satisfies S K^T = H P: one solve with 40 right-hand sides, no inverse.
! The gain is compared with LAPACK's dposv on the same system, and the analysis must reduce
! both the error and the trace of the covariance. Calling dposv itself, it links LAPACK beside
! minv: `gfortran ... $(pkg-config --cflags --libs minv) -llapack`.
program kf_lorenz96
  use, intrinsic :: iso_fortran_env, only: real64
  use minv_mod
  use da_common, only: lorenz96_forecast, gaussian, seed_random, expect, identity
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
  integer, parameter :: nx = 40, nobs = nx / 2, nens = 400, day = 4
  real(real64), parameter :: obs_std = 1, background_std = 1
  type(minv_context) :: ctx
  type(minv_report) :: rep
  real(real64) :: truth(nx), xb(nx), xa(nx), y(nobs), ens(nx, nens), noise(nx)
  real(real64) :: p(nx, nx), pa(nx, nx), h(nobs, nx), r(nobs, nobs), s(nobs, nobs)
  real(real64) :: hp(nobs, nx), kt(nobs, nx), k(nx, nobs), s_ref(nobs, nobs), kt_ref(nobs, nx)
  integer :: i, j, info

  call seed_random()
  ! the truth, spun up onto the attractor; the background starts from a perturbed truth
  truth = 8
  truth(nx / 2) = 8.01_real64
  call lorenz96_forecast(truth, 1000)
  noise = gaussian([(background_std, i=1, nx)])
  xb = truth + noise
  ! the background covariance: an ensemble around the background, forecast for a day
  do j = 1, nens
    noise = gaussian([(background_std, i=1, nx)])
    ens(:, j) = xb + noise
    call lorenz96_forecast(ens(:, j), day)
  end do
  call lorenz96_forecast(truth, day)
  call lorenz96_forecast(xb, day)
  ens = ens - spread(sum(ens, dim=2) / nens, 2, nens)
  p = matmul(ens, transpose(ens)) / (nens - 1)

  ! observations of the even variables
  h = 0
  do i = 1, nobs
    h(i, 2 * i) = 1
  end do
  r = obs_std**2 * identity(nobs)
  y = matmul(h, truth) + gaussian([(obs_std, i=1, nobs)])

  ! the gain: S K^T = H P, all 40 columns of K^T in one call
  hp = matmul(h, p)
  s = matmul(hp, transpose(h)) + r
  call minv_init(ctx)
  call minv_solve(ctx, s, hp, kt, report=rep)
  call minv_print_report(rep)
  k = transpose(kt)
  xa = xb + matmul(k, y - matmul(h, xb))
  pa = p - matmul(k, hp)
  call minv_finalize(ctx)

  ! the same gain from LAPACK
  s_ref = s
  kt_ref = hp
  call dposv('L', nobs, nx, s_ref, nobs, kt_ref, nobs, info)

  write (*, '("background rms error ", f7.4, ", analysis ", f7.4, "; trace P ", f8.3, &
            &" -> ", f8.3)') rms(xb - truth), rms(xa - truth), trace(p), trace(pa)
  write (*, '("max |K - K_lapack| / max |K| = ", es9.2)') maxval(abs(kt - kt_ref)) / maxval(abs(kt_ref))
  call expect(info == 0, 'LAPACK dposv succeeded')
  call expect(rep%method == MINV_METHOD_CHOLESKY .and. rep%nrhs == nx, &
              'minv chose Cholesky for S and solved 40 right-hand sides')
  call expect(maxval(abs(kt - kt_ref)) <= 1e-12_real64 * maxval(abs(kt_ref)), &
              'the gain agrees with LAPACK to 1e-12')
  call expect(trace(pa) < trace(p), 'the analysis covariance has a smaller trace')
  call expect(rms(xa - truth) < rms(xb - truth), 'the analysis is closer to the truth')

contains

  real(real64) function rms(v)
    real(real64), intent(in) :: v(:)
    rms = sqrt(sum(v**2) / size(v))
  end function rms

  real(real64) function trace(m)
    real(real64), intent(in) :: m(:, :)
    integer :: d
    trace = sum([(m(d, d), d=1, size(m, 1))])
  end function trace
end program kf_lorenz96
