/* Floating-point environment guard. DA codes run debug builds with traps enabled
 * (gfortran -ffpe-trap=invalid,zero,overflow); LAPACK's condition estimators and scaling
 * may raise overflow or underflow internally, so traps are masked while minv works and the
 * caller's environment, flags included, is restored afterwards.
 *
 * feholdexcept + fesetenv cost about 170 ns (the x87 environment is stored and loaded whole),
 * more than a LAPACK call on an 8 x 8 matrix. On x86-64 the common case, every trap already
 * masked, keeps the SSE control and status register and the x87 status word instead (a few
 * cycles each) and touches the x87 environment only if the call changed its flags. */
#include <float.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MINV_FPGUARD_X86 1
#endif

#include "internal.h"

#if MINV_FPGUARD_X86
enum { SSE_FLAGS = 0x3f, SSE_MASKS = 0x1f80, X87_FLAGS = 0x3f, X87_MASKS = 0x3f };
enum { FLUSH_BITS = 0x8040 /* FTZ, DAZ */, SAVED = 1u << 31 /* not an MXCSR bit: begin changed it */ };

static unsigned short x87_status(void) {
    unsigned short sw;
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    return sw;
}

static unsigned short x87_control(void) {
    unsigned short cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return cw;
}

/* The x87 exception flags back to `flags` (the status word is loaded only with the whole
 * environment: 28 bytes, the status word at byte 4). */
static void x87_restore_flags(unsigned short flags) {
    unsigned char env[28];
    unsigned short sw;
    __asm__ volatile("fnstenv %0" : "=m"(env));
    memcpy(&sw, env + 4, sizeof sw);
    sw = (unsigned short)((sw & ~X87_FLAGS) | (flags & X87_FLAGS));
    memcpy(env + 4, &sw, sizeof sw);
    __asm__ volatile("fldenv %0" : : "m"(env));
}
#endif

void minv_fpguard_begin(minv_fpguard *guard) {
#if MINV_FPGUARD_X86
    const unsigned csr = _mm_getcsr();
    if ((csr & SSE_MASKS) == SSE_MASKS && (x87_control() & X87_MASKS) == X87_MASKS) {
        guard->fast = 1;
        guard->mxcsr = csr;
        guard->x87_status = x87_status();
        _mm_setcsr(csr & ~(unsigned)SSE_FLAGS);
        return;
    }
#endif
    guard->fast = 0;
    feholdexcept(&guard->saved);
}

void minv_fpguard_end(minv_fpguard *guard) {
#if MINV_FPGUARD_X86
    if (guard->fast) {
        if ((x87_status() ^ guard->x87_status) & X87_FLAGS)
            x87_restore_flags(guard->x87_status);
        _mm_setcsr(guard->mxcsr);
        return;
    }
#endif
    fesetenv(&guard->saved);
}

void minv_worker_begin(minv_worker *w) {
    w->guarded = 0;
#ifdef _OPENMP
    if (omp_get_thread_num() != 0) {
        w->guarded = 1;
        minv_fpguard_begin(&w->guard);
    }
#endif
}

void minv_worker_end(minv_worker *w) {
    if (w->guarded)
        minv_fpguard_end(&w->guard);
}

minv_flush minv_flush_subnormals_begin(minv_dtype t, int64_t n, double norm_1) {
#if MINV_FPGUARD_X86
    const double tiny = t == MINV_R64 ? DBL_MIN : FLT_MIN, e = minv_eps(t), e4 = e * e * e * e;
    /* max |a_ij| lies in [norm_1 / n, norm_1] */
    if (!(tiny * (double)n <= e4 * norm_1 && tiny * (double)n * norm_1 <= e4))
        return 0;
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | FLUSH_BITS);
    return csr | SAVED;
#else
    (void)t, (void)n, (void)norm_1;
    return 0;
#endif
}

void minv_flush_subnormals_end(minv_flush saved) {
#if MINV_FPGUARD_X86
    if (saved) /* the two modes back; flags raised meanwhile stay, as the call's guard expects */
        _mm_setcsr((_mm_getcsr() & ~FLUSH_BITS) | (saved & FLUSH_BITS));
#else
    (void)saved;
#endif
}
