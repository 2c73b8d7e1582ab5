/* A stand-in for the NVIDIA driver (libcuda.so.1) that reports one device of CUDA 13.0 to
 * libminv's probe and supports nothing else: with it first on LD_LIBRARY_PATH, libminv opens
 * the CUDA plugin on a machine without a GPU, and the plugin's CUDA runtime then fails. */
int cuInit(unsigned flags) { return (int)(flags != 0); }
int cuDeviceGetCount(int *count) { *count = 1; return 0; }
int cuDriverGetVersion(int *version) { *version = 13000; return 0; }
