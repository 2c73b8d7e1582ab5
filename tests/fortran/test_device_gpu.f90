! minv_invert_device and minv_solve_device from Fortran on real device memory (cudaMalloc
! through the CUDA runtime's C API), as an OpenACC or CUDA Fortran code hands it over: the
! address forms (type(c_ptr), both kinds), the array forms (Fortran pointers onto the device
! memory, as host_data use_device makes them), and a solve on the caller's stream
! (minv_set_stream, copies up and down enqueued on it, one synchronisation at the end).
! Every result comes back and is checked by LAPACK's ratios (< 30; a zero or stale output
! gives 1/eps or more): n = 300, 20 right-hand sides, general and SPD. Skips (77) without a
! GPU.
program test_device_gpu
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_size_t, c_intptr_t, c_null_ptr, c_loc, &
                                         c_f_pointer
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use minv_mod
  use test_util
  implicit none
  interface
    integer(c_int) function cudaMalloc(p, bytes) bind(c, name='cudaMalloc')
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), intent(out) :: p
      integer(c_size_t), value :: bytes
    end function cudaMalloc
    integer(c_int) function cudaFree(p) bind(c, name='cudaFree')
      import :: c_ptr, c_int
      type(c_ptr), value :: p
    end function cudaFree
    integer(c_int) function cudaMemcpyAsync(dst, src, bytes, dir, stream) bind(c, name='cudaMemcpyAsync')
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: dst, src, stream
      integer(c_size_t), value :: bytes
      integer(c_int), value :: dir
    end function cudaMemcpyAsync
    integer(c_int) function cudaStreamCreate(s) bind(c, name='cudaStreamCreate')
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: s
    end function cudaStreamCreate
    integer(c_int) function cudaStreamSynchronize(s) bind(c, name='cudaStreamSynchronize')
      import :: c_ptr, c_int
      type(c_ptr), value :: s
    end function cudaStreamSynchronize
    integer(c_int) function cudaStreamDestroy(s) bind(c, name='cudaStreamDestroy')
      import :: c_ptr, c_int
      type(c_ptr), value :: s
    end function cudaStreamDestroy
  end interface
  integer(c_int), parameter :: up = 1, down = 2 ! cudaMemcpyHostToDevice, DeviceToHost
  integer, parameter :: n = 300, k = 20
  type(minv_context) :: ctx
  type(rng_t) :: rng
  type(minv_report) :: rep
  real(real64), allocatable, target :: a(:, :), spd(:, :), b(:, :), x(:, :)
  real(real32), allocatable, target :: as(:, :), bs(:, :), xs(:, :)
  real(real64), pointer, contiguous :: a_dev(:, :), b_dev(:, :), x_dev(:, :)
  type(c_ptr) :: da, db, dx, stream
  real(real64) :: r
  integer :: stat
  character(200) :: msg

  call minv_init(ctx, backend=MINV_BACKEND_GPU, stat=stat, errmsg=msg)
  if (stat /= MINV_SUCCESS) then
    write (*, '(a)') 'test_fortran_device_gpu: no usable GPU, skipped (' // trim(msg) // ')'
    stop 77
  end if
  allocate (a(n, n), spd(n, n), b(n, k), x(n, n))
  call random_matrix(rng, a)
  call spd_matrix(rng, spd)
  call random_matrix(rng, x)
  b = x(:, 1:k)
  call check(cudaMalloc(da, bytes(n * n, 8)) == 0 .and. cudaMalloc(db, bytes(n * k, 8)) == 0 .and. &
             cudaMalloc(dx, bytes(n * n, 8)) == 0, 'cudaMalloc')

  ! ---- address forms, real64: the inverse, then a solve ----
  call put(da, c_loc(a), n * n)
  call minv_invert_device(ctx, n, da, dx, real64, report=rep)
  x = -1
  call get(c_loc(x), dx, n * n)
  r = inverse_ratio(a, x, epsilon(1.0_real64))
  call check(r < 30, 'address form: invert real64, ratio ' // fmt(r))
  call check(rep%backend == MINV_BACKEND_GPU .and. rep%n == n, 'address form: the report')
  call put(da, c_loc(spd), n * n)
  call put(db, c_loc(b), n * k)
  call minv_solve_device(ctx, n, k, da, db, dx, real64, ldx=n)
  x = -1
  call get(c_loc(x), dx, n * k)
  r = solve_ratio(spd, b, x(:, 1:k), epsilon(1.0_real64))
  call check(r < 30, 'address form: solve real64 (SPD), ratio ' // fmt(r))

  ! ---- address forms, real32: the same buffers hold floats ----
  as = real(a, real32)
  bs = real(b, real32)
  allocate (xs(n, n))
  call put(da, c_loc(as), n * n, 4)
  call put(db, c_loc(bs), n * k, 4)
  call minv_solve_device(ctx, n, k, da, db, dx, real32)
  xs = -1
  call get(c_loc(xs), dx, n * k, 4)
  r = solve_ratio(real(as, real64), real(bs, real64), real(xs(:, 1:k), real64), real(epsilon(1.0_real32), real64))
  call check(r < 30, 'address form: solve real32, ratio ' // fmt(r))

  ! ---- array forms: pointers onto the device memory, never dereferenced here ----
  call c_f_pointer(da, a_dev, [n, n])
  call c_f_pointer(dx, x_dev, [n, n])
  call put(da, c_loc(a), n * n)
  call minv_invert_device(ctx, a_dev, x_dev, method=MINV_METHOD_LU)
  x = -1
  call get(c_loc(x), dx, n * n)
  r = inverse_ratio(a, x, epsilon(1.0_real64))
  call check(r < 30, 'array form: invert real64, ratio ' // fmt(r))

  ! ---- on the caller's stream: copies up, the solve, the copy down, one synchronisation ----
  call check(cudaStreamCreate(stream) == 0, 'cudaStreamCreate')
  call minv_set_stream(ctx, stream)
  call c_f_pointer(db, b_dev, [n, k])
  call c_f_pointer(dx, x_dev, [n, k])
  x = -1
  call check(cudaMemcpyAsync(da, c_loc(a), bytes(n * n, 8), up, stream) == 0, 'copy A up on the stream')
  call check(cudaMemcpyAsync(db, c_loc(b), bytes(n * k, 8), up, stream) == 0, 'copy B up on the stream')
  call minv_solve_device(ctx, a_dev, b_dev, x_dev)
  call check(cudaMemcpyAsync(c_loc(x), dx, bytes(n * k, 8), down, stream) == 0, 'copy X down on the stream')
  call check(cudaStreamSynchronize(stream) == 0, 'cudaStreamSynchronize')
  r = solve_ratio(a, b, x(:, 1:k), epsilon(1.0_real64))
  call check(r < 30, 'array form on the caller''s stream: solve real64, ratio ' // fmt(r))
  call minv_set_stream(ctx, 0_c_intptr_t)

  call check(cudaStreamDestroy(stream) == 0 .and. cudaFree(da) == 0 .and. cudaFree(db) == 0 .and. &
             cudaFree(dx) == 0, 'cudaFree')
  call minv_finalize(ctx)
  call test_finish('test_fortran_device_gpu')

contains

  integer(c_size_t) function bytes(count, size)
    integer, intent(in) :: count, size
    bytes = int(count, c_size_t) * int(size, c_size_t)
  end function bytes

  ! Synchronous copies on the legacy stream (pageable host memory), count elements of size
  ! bytes (default 8).
  subroutine put(dev, host, count, size)
    type(c_ptr), intent(in) :: dev, host
    integer, intent(in) :: count
    integer, intent(in), optional :: size
    call check(cudaMemcpyAsync(dev, host, bytes(count, elem(size)), up, c_null_ptr) == 0 .and. &
               cudaStreamSynchronize(c_null_ptr) == 0, 'copy up')
  end subroutine put

  subroutine get(host, dev, count, size)
    type(c_ptr), intent(in) :: host, dev
    integer, intent(in) :: count
    integer, intent(in), optional :: size
    call check(cudaMemcpyAsync(host, dev, bytes(count, elem(size)), down, c_null_ptr) == 0 .and. &
               cudaStreamSynchronize(c_null_ptr) == 0, 'copy down')
  end subroutine get

  integer function elem(size)
    integer, intent(in), optional :: size
    elem = 8
    if (present(size)) elem = size
  end function elem

  character(12) function fmt(v)
    real(real64), intent(in) :: v
    write (fmt, '(es12.3)') v
  end function fmt
end program test_device_gpu
