! The 3D-Var cost function gradient, with B^-1 from a NetCDF file by minv_invert_file.
!
!   J(x)      = 1/2 (x - xb)^T B^-1 (x - xb) + 1/2 (H x - y)^T R^-1 (H x - y)
!   grad J(x) = B^-1 (x - xb) + H^T R^-1 (H x - y)
!
! B is a SOAR correlation (length 4 grid lengths) times a variance, on a periodic grid of
! 100 points; 20 points are observed. The example writes B with nf90 as a model would, has
! minv invert the file into another, and reads B^-1 back. It then checks the gradient: at
! the minimiser (found by a solve with the Hessian B^-1 + H^T R^-1 H) it vanishes, and the
! minimiser equals the observation-space (PSAS/OI) analysis xb + B H^T (H B H^T + R)^-1 d.
program var3d_gradient
  use, intrinsic :: iso_fortran_env, only: real64
  use netcdf
  use minv_mod
  use da_common, only: gaussian, seed_random, expect, identity
  implicit none
  integer, parameter :: n = 100, nobs = 20, every = n / nobs
  real(real64), parameter :: length = 4, sigma_b = 1.5_real64, sigma_o = 0.5_real64
  real(real64), parameter :: pi = 4 * atan(1.0_real64)
  type(minv_context) :: ctx
  type(minv_report) :: rep
  real(real64) :: b(n, n), binv(n, n), h(nobs, n), xb(n), truth(n), y(nobs), xa(n), x_psas(n)
  real(real64) :: hessian(n, n), rhs(n), s(nobs, nobs), w(nobs), g0(n), ga(n), r_inv
  integer :: i, j

  call seed_random()
  ! SOAR of the chordal distance: a valid correlation on the circle. One triangle is
  ! computed and mirrored, so that B is symmetric to the bit (an optimising compiler may
  ! round the two triangles differently) and AUTO picks Cholesky.
  do j = 1, n
    do i = 1, j
      b(i, j) = sigma_b**2 * soar(n / pi * sin(pi * (j - i) / n) / length)
      b(j, i) = b(i, j)
    end do
  end do
  call write_matrix('var3d_B.nc', 'B', b)

  call minv_init(ctx)
  call minv_invert_file(ctx, 'var3d_B.nc', 'B', 'var3d_Binv.nc', 'B_inv', overwrite=.true., &
                        report=rep) ! overwrite: the previous run's B^-1 is replaced
  call minv_print_report(rep)
  call read_matrix('var3d_Binv.nc', 'B_inv', binv)

  ! a truth, a background and observations of every fifth point
  truth = [(3 * sin(2 * pi * i / n) + cos(6 * pi * i / n), i=1, n)]
  ! a background error correlated as B says (B z has covariance B^2: rescaled to sigma_b)
  xb = truth + sigma_b * matmul(b, gaussian([(1.0_real64, i=1, n)])) / norm2(b(:, 1))
  h = 0
  do i = 1, nobs
    h(i, every * i) = 1
  end do
  y = matmul(h, truth) + gaussian([(sigma_o, i=1, nobs)])
  r_inv = 1 / sigma_o**2

  ! the minimiser: (B^-1 + H^T R^-1 H) xa = B^-1 xb + H^T R^-1 y
  hessian = binv + r_inv * matmul(transpose(h), h)
  rhs = matmul(binv, xb) + r_inv * matmul(transpose(h), y)
  call minv_solve(ctx, hessian, rhs, xa)
  ! the same analysis in observation space: (H B H^T + R) w = y - H xb, xa = xb + B H^T w
  s = matmul(h, matmul(b, transpose(h))) + sigma_o**2 * identity(nobs)
  call minv_solve(ctx, s, y - matmul(h, xb), w)
  x_psas = xb + matmul(b, matmul(transpose(h), w))
  call minv_finalize(ctx)

  g0 = gradient(xb)
  ga = gradient(xa)
  write (*, '("|B B^-1 - I|_max ", es9.2, ";  |grad J(xa)| / |grad J(xb)| ", es9.2, &
            &";  |xa - xa_psas|_max ", es9.2)') maxval(abs(matmul(b, binv) - identity(n))), &
    norm2(ga) / norm2(g0), maxval(abs(xa - x_psas))
  write (*, '("J(xb) ", f9.3, ", J(xa) ", f9.3, "; rms error: background ", f6.3, &
            &", analysis ", f6.3)') cost(xb), cost(xa), rms(xb - truth), rms(xa - truth)
  call expect(rep%method == MINV_METHOD_CHOLESKY, 'minv_invert_file chose Cholesky for B')
  call expect(maxval(abs(matmul(b, binv) - identity(n))) < 1e-8_real64, &
              'B^-1 from the file inverts B')
  call expect(norm2(ga) < 1e-8_real64 * norm2(g0), 'the gradient vanishes at the minimiser')
  call expect(maxval(abs(xa - x_psas)) < 1e-8_real64 * maxval(abs(xa)), &
              '3D-Var and the observation-space analysis agree')
  call expect(cost(xa) < cost(xb), 'the analysis lowers the cost')

contains

  real(real64) function soar(r)
    real(real64), intent(in) :: r
    soar = (1 + r) * exp(-r)
  end function soar

  function gradient(x) result(g)
    real(real64), intent(in) :: x(:)
    real(real64) :: g(size(x))
    g = matmul(binv, x - xb) + r_inv * matmul(transpose(h), matmul(h, x) - y)
  end function gradient

  real(real64) function cost(x)
    real(real64), intent(in) :: x(:)
    cost = 0.5_real64 * dot_product(x - xb, matmul(binv, x - xb)) + &
           0.5_real64 * r_inv * sum((matmul(h, x) - y)**2)
  end function cost

  real(real64) function rms(v)
    real(real64), intent(in) :: v(:)
    rms = sqrt(sum(v**2) / size(v))
  end function rms

  ! nf90 as a model writes it: the Fortran array m(i, j), dimensions in Fortran order.
  subroutine write_matrix(path, name, m)
    character(*), intent(in) :: path, name
    real(real64), intent(in) :: m(:, :)
    integer :: ncid, dims(2), varid
    call nc(nf90_create(path, nf90_clobber, ncid))
    call nc(nf90_def_dim(ncid, 'row', size(m, 1), dims(1)))
    call nc(nf90_def_dim(ncid, 'col', size(m, 2), dims(2)))
    call nc(nf90_def_var(ncid, name, nf90_double, dims, varid))
    call nc(nf90_put_att(ncid, varid, 'long_name', 'background error covariance'))
    call nc(nf90_put_att(ncid, varid, 'units', 'K2'))
    call nc(nf90_enddef(ncid))
    call nc(nf90_put_var(ncid, varid, m))
    call nc(nf90_close(ncid))
  end subroutine write_matrix

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
end program var3d_gradient
