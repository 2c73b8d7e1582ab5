! An OpenACC-style analysis step: the model's arrays live on the GPU (an `!$acc data`
! region), the observation-space system S w = d of an optimal-interpolation analysis is
! built there by `!$acc parallel loop`s, minv solves it on the device (minv_solve_device
! inside `!$acc host_data use_device`, on the model's own OpenACC queue through
! minv_set_stream), and the increment x_a = x_b + B H^T w is formed there too. Only the check
! at the end brings the arrays back to the host.
!
!   B(i, j) = sigma_b^2 exp(-dist(i, j)^2 / (2 L^2))   on a periodic 1-D grid of nx points
!   H observes every `stride`-th point, R = sigma_o^2 I
!   S = H B H^T + R (nobs x nobs, SPD), d = y - H x_b
!
! The device path needs two things at run time: a minv context on the GPU and an OpenACC
! runtime that offloads to it (acc_get_num_devices(acc_device_nvidia) > 0). Without either
! (gfortran's -fopenacc without an nvptx offload compiler runs the loops on the host, where
! host_data gives host addresses) the same step runs with minv_solve on the host arrays, and
! says so. Checks, whichever path ran: the solve's backward error ratio
! ||S w - d||_1 / (||S||_1 ||w||_1 nobs eps) < 100 (a zero w gives 1/eps), agreement with
! minv_solve on the host to 1e-8, and an analysis closer to the truth than the background.
program openacc_step
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_null_ptr
  use, intrinsic :: iso_fortran_env, only: real64
  use openacc, only: acc_get_num_devices, acc_device_nvidia
  use minv_mod
  use da_common, only: gaussian, seed_random, expect
  implicit none
  interface
    ! libgomp's and NVIDIA's OpenACC runtimes export the CUDA stream of a queue (C API)
    type(c_ptr) function acc_get_cuda_stream(queue) bind(c, name='acc_get_cuda_stream')
      import :: c_ptr, c_int
      integer(c_int), value :: queue
    end function acc_get_cuda_stream
  end interface
  integer, parameter :: nx = 2048, stride = 4, nobs = nx / stride, queue = 1, halfwidth = 60
  real(real64), parameter :: sigma_b = 1, sigma_o = 0.5_real64, len_scale = 12
  type(minv_context) :: ctx
  type(minv_report) :: rep
  real(real64), allocatable :: b(:, :), s(:, :), truth(:), xb(:), xa(:), y(:), d(:, :), w(:, :)
  real(real64), allocatable :: w_host(:, :), sw(:, :), noise(:), kernel(:)
  real(real64) :: dist, ratio, err_b, err_a, diff
  integer :: i, j, k
  logical :: on_device

  call seed_random()
  allocate (b(nx, nx), s(nobs, nobs), truth(nx), xb(nx), xa(nx), y(nobs), d(nobs, 1), w(nobs, 1), noise(nx))
  allocate (kernel(-halfwidth:halfwidth))
  ! the truth: a few waves; the background: the truth plus an error drawn from B (white noise
  ! smoothed by a Gaussian of width L / sqrt(2), which has B's correlations)
  truth = [(sin(2 * acos(-1.0_real64) * 3 * i / nx) + 0.5_real64 * cos(2 * acos(-1.0_real64) * 11 * i / nx), &
            i = 1, nx)]
  noise = gaussian([(1.0_real64, i=1, nx)])
  kernel = [(exp(-real(k, real64)**2 / len_scale**2), k=-halfwidth, halfwidth)]
  kernel = kernel * sigma_b / sqrt(sum(kernel**2))
  xb = truth
  do k = -halfwidth, halfwidth
    xb = xb + kernel(k) * cshift(noise, k)
  end do
  y = truth(stride:nx:stride) + gaussian([(sigma_o, i=1, nobs)])

  call minv_init(ctx)
  on_device = minv_context_backend(ctx) == MINV_BACKEND_GPU .and. acc_get_num_devices(acc_device_nvidia) > 0
  write (*, '(a, l1, a, i0)') 'openacc_step: minv on the GPU and OpenACC offloading: ', on_device, &
    '; OpenACC NVIDIA devices: ', acc_get_num_devices(acc_device_nvidia)

  !$acc data copyin(xb, y) create(b, s, d, w, xa)
  ! B, S = H B H^T + R and d = y - H x_b, on the device
  !$acc parallel loop collapse(2) private(dist) async(queue)
  do j = 1, nx
    do i = 1, nx
      dist = min(abs(i - j), nx - abs(i - j))
      b(i, j) = 0 ! beyond 10 L the correlation (< 1e-21) would only make denormals
      if (dist < 10 * len_scale) b(i, j) = sigma_b**2 * exp(-dist**2 / (2 * len_scale**2))
    end do
  end do
  !$acc parallel loop collapse(2) async(queue)
  do j = 1, nobs
    do i = 1, nobs
      s(i, j) = b(i * stride, j * stride)
      if (i == j) s(i, j) = s(i, j) + sigma_o**2
    end do
  end do
  !$acc parallel loop async(queue)
  do i = 1, nobs
    d(i, 1) = y(i) - xb(i * stride)
  end do

  call solve(ctx, on_device, s, d, w, rep)
  write (*, '(a, a, a, a, a, es9.2)') 'openacc_step: ', trim(minv_method_name(rep%method)), ' on the ', &
    trim(minv_backend_name(rep%backend)), ', residual ', rep%residual

  ! x_a = x_b + B H^T w, on the device
  !$acc parallel loop private(dist) async(queue)
  do i = 1, nx
    dist = 0
    do k = 1, nobs
      dist = dist + b(i, k * stride) * w(k, 1)
    end do
    xa(i) = xb(i) + dist
  end do
  !$acc wait(queue)
  !$acc update self(s, d, w, xa)
  !$acc end data

  ! ---- checks, on the host ----
  allocate (sw(nobs, 1))
  sw = matmul(s, w) - d
  ratio = sum(abs(sw)) / (maxval(sum(abs(s), dim=1)) * sum(abs(w)) * nobs * epsilon(1.0_real64))
  write (*, '(a, es9.2)') 'openacc_step: backward error ratio ', ratio
  call expect(ratio < 100, 'S w = d solved (backward error ratio < 100)')
  allocate (w_host(nobs, 1))
  call minv_solve(ctx, s, d, w_host)
  diff = maxval(abs(w - w_host)) / maxval(abs(w_host))
  write (*, '(a, es9.2)') 'openacc_step: relative difference from the host solve ', diff
  call expect(diff < 1e-8_real64, 'the same w as minv_solve on the host')
  err_b = sqrt(sum((xb - truth)**2) / nx)
  err_a = sqrt(sum((xa - truth)**2) / nx)
  write (*, '(a, f7.4, a, f7.4)') 'openacc_step: rms error background ', err_b, ', analysis ', err_a
  call expect(err_a < 0.8_real64 * err_b, 'the analysis is closer to the truth than the background')
  if (.not. on_device) write (*, '(a)') 'openacc_step: host path (no GPU context or no OpenACC offloading)'
  call minv_finalize(ctx)
  deallocate (b, s, truth, xb, xa, y, d, w, noise, kernel, w_host, sw) ! a main program's are not freed at its end

contains

  ! S w = d for arrays present on the device (dummies: gfortran 12 refuses allocatables in
  ! use_device).
  subroutine solve(ctx, on_device, s, d, w, rep)
    type(minv_context), intent(inout) :: ctx
    logical, intent(in) :: on_device
    real(real64), intent(inout) :: s(nobs, nobs), d(nobs, 1), w(nobs, 1)
    type(minv_report), intent(out) :: rep

    if (on_device) then
      ! minv's work follows the loops before on the queue's stream, and the loops after it
      call minv_set_stream(ctx, acc_get_cuda_stream(queue))
      !$acc host_data use_device(s, d, w)
      call minv_solve_device(ctx, s, d, w, report=rep)
      !$acc end host_data
      call minv_set_stream(ctx, c_null_ptr)
    else
      !$acc wait(queue)
      !$acc update self(s, d)
      call minv_solve(ctx, s, d, w, report=rep)
      !$acc update device(w)
    end if
  end subroutine solve
end program openacc_step
