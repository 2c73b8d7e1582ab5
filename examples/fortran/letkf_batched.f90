! A local ensemble transform Kalman filter (LETKF, Hunt et al. 2007) on Lorenz-96: 40
! variables, all observed, 20 members.
!
! At every grid point the analysis lives in the k-dimensional ensemble space: with Y the
! ensemble perturbations of the observations near the point and R^-1 their localised
! inverse error covariance, Pa = [(k - 1) I / rho + Y^T R^-1 Y]^-1 and the mean weights
! w = Pa Y^T R^-1 (y - ybar). The 40 k x k matrices of a cycle are one batch: a single
! minv_invert_batched gives every Pa (the SPD path, AUTO finding each symmetric and positive
! definite) and a single minv_solve_batched every w. The first cycle is compared with
! LAPACK's dpotrf/dpotri; the filter must then track the truth to well within the
! observation error while a free run does not.
program letkf_batched
  use, intrinsic :: iso_fortran_env, only: real64
  use minv_mod
  use da_common, only: lorenz96_forecast, gaussian, seed_random, expect, identity
  implicit none
  interface
    subroutine dpotrf(uplo, n, a, lda, info)
      import :: real64
      character, intent(in) :: uplo
      integer, intent(in) :: n, lda
      real(real64), intent(inout) :: a(lda, *)
      integer, intent(out) :: info
    end subroutine dpotrf
    subroutine dpotri(uplo, n, a, lda, info)
      import :: real64
      character, intent(in) :: uplo
      integer, intent(in) :: n, lda
      real(real64), intent(inout) :: a(lda, *)
      integer, intent(out) :: info
    end subroutine dpotri
    subroutine dsyev(jobz, uplo, n, a, lda, w, work, lwork, info)
      import :: real64
      character, intent(in) :: jobz, uplo
      integer, intent(in) :: n, lda, lwork
      real(real64), intent(inout) :: a(lda, *)
      real(real64), intent(out) :: w(*), work(*)
      integer, intent(out) :: info
    end subroutine dsyev
  end interface
  integer, parameter :: nx = 40, nens = 20, cycles = 200, radius = 4
  real(real64), parameter :: obs_std = 1, inflation = 1.05_real64, loc_scale = 2
  type(minv_context) :: ctx
  type(minv_batch_report) :: rep
  real(real64) :: truth(nx), free(nx), mean(nx), ens(nx, nens), xp(nx, nens), y(nx)
  real(real64) :: hxp(nx, nens), ybar(nx), a(nens, nens, nx), pa(nens, nens, nx)
  real(real64) :: rhs(nens, 1, nx), w(nens, 1, nx), ref(nens, nens), trans(nens, nens)
  real(real64) :: rinv(2 * radius + 1), eig(nens), work(8 * nens), yl(2 * radius + 1, nens)
  real(real64) :: err_letkf, err_free, dev_inv, dev_solve
  integer :: c, i, j, d, info, near(2 * radius + 1)

  call seed_random()
  truth = 8
  truth(nx / 2) = 8.01_real64
  call lorenz96_forecast(truth, 1000)
  do j = 1, nens
    ens(:, j) = truth + gaussian([(3.0_real64, i=1, nx)])
    call lorenz96_forecast(ens(:, j), 100)
  end do
  free = ens(:, 1)
  err_letkf = 0
  err_free = 0
  ! Gaussian localisation of R^-1 by distance along the (periodic) grid
  rinv = [(exp(-0.5_real64 * (d / loc_scale)**2) / obs_std**2, d=-radius, radius)]

  call minv_init(ctx)
  do c = 1, cycles
    call lorenz96_forecast(truth, 1)
    call lorenz96_forecast(free, 1)
    do j = 1, nens
      call lorenz96_forecast(ens(:, j), 1)
    end do
    y = truth + gaussian([(obs_std, i=1, nx)])
    mean = sum(ens, dim=2) / nens
    xp = ens - spread(mean, 2, nens)
    hxp = xp ! every variable is observed
    ybar = mean

    ! one k x k matrix and one right-hand side per grid point
    do i = 1, nx
      near = [(modulo(i - 1 + d, nx) + 1, d=-radius, radius)]
      yl = hxp(near, :)
      a(:, :, i) = (nens - 1) / inflation * identity(nens) + &
                   matmul(transpose(yl), spread(rinv, 2, nens) * yl)
      a(:, :, i) = (a(:, :, i) + transpose(a(:, :, i))) / 2 ! symmetric to the bit
      rhs(:, 1, i) = matmul(transpose(yl), rinv * (y(near) - ybar(near)))
    end do
    call minv_invert_batched(ctx, a, pa, report=rep)
    call minv_solve_batched(ctx, a, rhs, w)

    ! the analysis ensemble: mean weights plus the symmetric square root of (k - 1) Pa
    do i = 1, nx
      trans = (nens - 1) * pa(:, :, i)
      call dsyev('V', 'L', nens, trans, nens, eig, work, size(work), info)
      trans = matmul(trans * spread(sqrt(max(eig, 0.0_real64)), 1, nens), transpose(trans))
      ens(i, :) = mean(i) + matmul(xp(i, :), spread(w(:, 1, i), 2, nens) + trans)
    end do

    if (c == 1) then
      call minv_print_batch_report(rep)
      call expect(rep%failed == 0 .and. rep%cholesky_count == nx, 'every matrix by the SPD path')
      dev_inv = 0
      dev_solve = 0
      do i = 1, nx
        ref = a(:, :, i)
        call dpotrf('L', nens, ref, nens, info)
        if (info == 0) call dpotri('L', nens, ref, nens, info)
        if (info /= 0) error stop 'LAPACK dpotrf/dpotri failed'
        do j = 1, nens
          ref(j, j + 1:) = ref(j + 1:, j)
        end do
        dev_inv = max(dev_inv, maxval(abs(pa(:, :, i) - ref)) / maxval(abs(ref)))
        dev_solve = max(dev_solve, maxval(abs(w(:, 1, i) - matmul(ref, rhs(:, 1, i)))) / &
                                   maxval(abs(w(:, 1, i))))
      end do
      write (*, '("cycle 1: max |Pa - Pa_lapack| / max |Pa| = ", es9.2, &
                &", max |w - Pa_lapack rhs| / max |w| = ", es9.2)') dev_inv, dev_solve
      call expect(dev_inv < 1e-12_real64, 'Pa agrees with LAPACK at every grid point')
      call expect(dev_solve < 1e-12_real64, &
                  'the mean weights agree with Pa times the right-hand side')
    end if
    if (c > cycles / 2) then
      err_letkf = err_letkf + rms(sum(ens, dim=2) / nens - truth) / (cycles - cycles / 2)
      err_free = err_free + rms(free - truth) / (cycles - cycles / 2)
    end if
  end do
  call minv_finalize(ctx)

  write (*, '("mean analysis RMSE over the last ", i0, " cycles: LETKF ", f6.3, &
            &", free run ", f6.3, " (observation error ", f4.2, ")")') &
    cycles - cycles / 2, err_letkf, err_free, obs_std
  call expect(err_letkf < 0.5_real64 * obs_std, &
              'the LETKF tracks the truth within half the observation error')
  call expect(err_free > 2 * obs_std, 'the free run does not')

contains

  real(real64) function rms(v)
    real(real64), intent(in) :: v(:)
    rms = sqrt(sum(v**2) / size(v))
  end function rms
end program letkf_batched
