! The context's GPUs from Fortran: minv_context_devices, minv_energy_counter and
! minv_set_stream, and the device-memory forms' refusals. On a CPU context: no devices, no
! meter (MINV_ERR_NOT_IMPLEMENTED with C's message, joules -1), a null stream accepted in both
! forms and any other refused with MINV_ERR_NO_GPU, minv_invert_device and minv_solve_device
! (array and address forms, both kinds) refused with MINV_ERR_NO_GPU, after the shape and kind
! checks made in Fortran;
! on an uninitialised one: the usual error. On the default context where a GPU is present:
! the device asked for first, the list of all visible devices without repeats, and the meter
! read before and after a second's work (or its absence reported). With the argument
! 'stop', the CPU meter is read without stat, which must stop the program.
program test_devices
  use, intrinsic :: iso_c_binding, only: c_intptr_t, c_null_ptr, c_loc, c_ptr
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64
  use minv_mod
  use test_util
  implicit none
  integer, parameter :: n = 2000
  type(minv_context) :: cpu, gpu, none
  integer, allocatable :: devices(:)
  real(real64) :: j0, j1
  real(real64), allocatable :: a(:, :), x(:, :)
  type(rng_t) :: rng
  integer :: stat, i
  integer(c_intptr_t), target :: not_a_stream
  real(real64), target :: d2(2, 2), d23(2, 3)
  real(real32), target :: s2(2, 2)
  type(minv_report) :: rep
  integer(int64) :: t0, t1, rate
  character(200) :: msg
  character(16) :: arg

  call get_command_argument(1, arg)
  call minv_init(cpu, backend=MINV_BACKEND_CPU)
  if (arg == 'stop') then
    call minv_energy_counter(cpu, j0)
    stop 0 ! not reached: expect_stop.cmake fails a run that exits 0
  end if

  ! ---- CPU: no devices, no meter ----
  allocate (devices(3))
  devices = 7
  msg = 'untouched'
  call minv_context_devices(cpu, devices, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS .and. msg == '', 'CPU devices: success, errmsg blank')
  call check(size(devices) == 0, 'CPU: no devices')
  j0 = 5
  call minv_energy_counter(cpu, j0, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NOT_IMPLEMENTED, msg, &
                  'minv_energy_counter: method not implemented on this backend: ' // &
                  'no energy meter: the CPU backend has none', 'CPU meter')
  call check(j0 == -1, 'CPU meter: joules -1')
  call minv_energy_counter(cpu, j0, stat=stat)
  call check(stat == MINV_ERR_NOT_IMPLEMENTED, 'CPU meter with stat alone')

  ! ---- CPU: a null stream (the default) only ----
  msg = 'untouched'
  call minv_set_stream(cpu, c_null_ptr, stat=stat, errmsg=msg)
  call check(stat == MINV_SUCCESS .and. msg == '', 'CPU: null stream (c_ptr) accepted')
  call minv_set_stream(cpu, 0_c_intptr_t, stat=stat)
  call check(stat == MINV_SUCCESS, 'CPU: null stream (integer) accepted')
  not_a_stream = 1
  call minv_set_stream(cpu, c_loc(not_a_stream), stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NO_GPU, msg, 'minv_set_stream: no usable GPU: ' // &
                  'this context runs on the cpu', 'CPU: a stream (c_ptr)')
  call minv_set_stream(cpu, 12345_c_intptr_t, stat=stat)
  call check(stat == MINV_ERR_NO_GPU, 'CPU: a stream (integer) refused')

  ! ---- CPU: the device forms refused, shapes and kind checked first ----
  d2 = reshape([4, 1, 1, 3], [2, 2])
  s2 = real(d2)
  d23 = 0
  call minv_invert_device(cpu, d2, d23, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_SHAPE, msg, 'minv_invert_device: wrong shape: ainv is 2 x 3', &
                  'device invert: ainv shape')
  call minv_invert_device(cpu, d2, d2, report=rep, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NO_GPU, msg, 'minv_invert_device: no usable GPU', 'CPU: device invert r64')
  call check(rep%n == 2 .and. rep%info == 0, 'CPU: device invert report filled')
  call minv_invert_device(cpu, s2, s2, stat=stat)
  call check(stat == MINV_ERR_NO_GPU, 'CPU: device invert r32')
  call minv_solve_device(cpu, d2, d23, d2, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_SHAPE, msg, 'minv_solve_device: wrong shape: x is 2 x 2', 'device solve: x shape')
  call minv_solve_device(cpu, d2, d2, d2, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_NO_GPU, msg, 'minv_solve_device: no usable GPU', 'CPU: device solve r64')
  call minv_invert_device(cpu, 2, c_loc(d2), c_loc(d2), 7, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_invert_device: invalid argument: kind is 7', &
                  'address form: a kind that is no real kind')
  call minv_invert_device(cpu, 2, c_loc(d2), c_loc(d2), real64, stat=stat)
  call check(stat == MINV_ERR_NO_GPU, 'CPU: device invert, address form')
  call minv_solve_device(cpu, 2, 2, c_loc(s2), c_loc(s2), c_loc(s2), real32, ldb=2, stat=stat)
  call check(stat == MINV_ERR_NO_GPU, 'CPU: device solve, address form')
  call check(all(d2 == reshape([4, 1, 1, 3], [2, 2])), 'CPU: device forms leave the arrays alone')

  ! ---- an uninitialised context ----
  call minv_context_devices(none, devices, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_context_devices: invalid argument: ' // &
                  'ctx is not initialised', 'devices of an uninitialised context')
  call check(size(devices) == 0, 'uninitialised: no devices')
  call minv_energy_counter(none, j0, stat=stat, errmsg=msg)
  call check_stat(stat, MINV_ERR_INVALID_ARG, msg, 'minv_energy_counter: invalid argument: ' // &
                  'ctx is not initialised', 'meter of an uninitialised context')
  call check(j0 == -1, 'uninitialised meter: joules -1')

  ! ---- the GPU, where there is one ----
  call minv_init(gpu, device=0, ndevices=-1)
  if (minv_context_backend(gpu) /= MINV_BACKEND_GPU) then
    call minv_context_devices(gpu, devices)
    call check(size(devices) == 0, 'AUTO on the CPU: no devices')
    write (*, '(a)') 'test_fortran_devices: no GPU: the GPU half (device list, meter) NOT run'
  else
    call minv_context_devices(gpu, devices)
    call check(size(devices) >= 1, 'GPU: at least one device')
    if (size(devices) >= 1) call check(devices(1) == 0, 'GPU: the device asked for first')
    do i = 1, size(devices)
      call check(devices(i) >= 0 .and. count(devices == devices(i)) == 1, &
                 'GPU: device numbers >= 0, each once')
    end do
    write (*, '(a, *(1x, i0))') 'test_fortran_devices: GPU devices', devices
    call minv_energy_counter(gpu, j0, stat=stat, errmsg=msg)
    if (stat /= MINV_SUCCESS) then
      call check_stat(stat, MINV_ERR_NOT_IMPLEMENTED, msg, 'no energy meter', 'GPU meter absent')
      write (*, '(a)') 'test_fortran_devices: no energy meter on this GPU: ' // trim(msg)
    else
      ! a second of work at least: NVML's counter moves in steps a short call may not see
      allocate (a(n, n), x(n, n))
      call random_matrix(rng, a)
      call system_clock(t0, rate)
      i = 0
      do while (i < 500)
        call minv_invert(gpu, a, x, method=MINV_METHOD_LU)
        i = i + 1
        call system_clock(t1)
        if (t1 - t0 >= rate) exit
      end do
      call minv_energy_counter(gpu, j1)
      write (*, '(a, i0, a, es10.3, a, f6.2, a)') 'test_fortran_devices: ', i, &
        ' inversions of n = 2000 used', j1 - j0, ' J in', real(t1 - t0) / real(rate), ' s'
      call check(j0 >= 0 .and. j1 > j0, 'GPU meter: the counter grows over work')
    end if
  end if

  call minv_finalize(gpu)
  call minv_finalize(cpu)
  deallocate (devices) ! the main program's locals are not freed at its end
  if (allocated(a)) deallocate (a, x)
  call test_finish('test_fortran_devices')
end program test_devices
