/* Typed shim over LAPACK and BLAS; see lapack.h. */
#include <pthread.h>
#include <stdlib.h>

#include "lapack.h"

typedef size_t flen; /* gfortran's hidden character length */

void spotrf_(const char *, const int *, float *, const int *, int *, flen);
void dpotrf_(const char *, const int *, double *, const int *, int *, flen);
void strtri_(const char *, const char *, const int *, float *, const int *, int *, flen, flen);
void dtrtri_(const char *, const char *, const int *, double *, const int *, int *, flen, flen);
void slauum_(const char *, const int *, float *, const int *, int *, flen);
void dlauum_(const char *, const int *, double *, const int *, int *, flen);
void spotrs_(const char *, const int *, const int *, const float *, const int *, float *, const int *, int *, flen);
void dpotrs_(const char *, const int *, const int *, const double *, const int *, double *, const int *, int *, flen);
void sgetrf_(const int *, const int *, float *, const int *, int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void sgetri_(const int *, float *, const int *, const int *, float *, const int *, int *);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);
void sgetrs_(const char *, const int *, const int *, const float *, const int *, const int *, float *, const int *, int *, flen);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, double *, const int *, int *, flen);
void slaswp_(const int *, float *, const int *, const int *, const int *, const int *, const int *);
void dlaswp_(const int *, double *, const int *, const int *, const int *, const int *, const int *);
void strmm_(const char *, const char *, const char *, const char *, const int *, const int *, const float *,
            const float *, const int *, float *, const int *, flen, flen, flen, flen);
void dtrmm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, flen, flen, flen, flen);
void strsm_(const char *, const char *, const char *, const char *, const int *, const int *, const float *,
            const float *, const int *, float *, const int *, flen, flen, flen, flen);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, flen, flen, flen, flen);
void ssyevd_(const char *, const char *, const int *, float *, const int *, float *, float *, const int *, int *,
             const int *, int *, flen, flen);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *, int *,
             const int *, int *, flen, flen);
void ssyrk_(const char *, const char *, const int *, const int *, const float *, const float *, const int *,
            const float *, float *, const int *, flen, flen);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, flen, flen);
void dgttrf_(const int *, double *, double *, double *, double *, int *, int *);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *, const int *,
            const float *, const int *, const float *, float *, const int *, flen, flen);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *, const int *,
            const double *, const int *, const double *, double *, const int *, flen, flen);

/* Callers check orders, leading dimensions and column counts against MINV_LAPACK_INT_MAX
 * (minv_cpu_lapack_fits) before they get here. */
#define I(x) int x##_ = (int)(x)

int la_potrf(minv_dtype t, int64_t n, void *a, int64_t lda) {
    I(n); I(lda); int info = 0;
    if (t == MINV_R64) dpotrf_("L", &n_, a, &lda_, &info, 1);
    else spotrf_("L", &n_, a, &lda_, &info, 1);
    return info;
}

int la_trtri(minv_dtype t, int64_t n, void *a, int64_t lda) {
    I(n); I(lda); int info = 0;
    if (t == MINV_R64) dtrtri_("L", "N", &n_, a, &lda_, &info, 1, 1);
    else strtri_("L", "N", &n_, a, &lda_, &info, 1, 1);
    return info;
}

int la_lauum(minv_dtype t, int64_t n, void *a, int64_t lda) {
    I(n); I(lda); int info = 0;
    if (t == MINV_R64) dlauum_("L", &n_, a, &lda_, &info, 1);
    else slauum_("L", &n_, a, &lda_, &info, 1);
    return info;
}

int la_potrs(minv_dtype t, int64_t n, int64_t nrhs, const void *a, int64_t lda, void *b, int64_t ldb) {
    I(n); I(nrhs); I(lda); I(ldb); int info = 0;
    if (t == MINV_R64) dpotrs_("L", &n_, &nrhs_, a, &lda_, b, &ldb_, &info, 1);
    else spotrs_("L", &n_, &nrhs_, a, &lda_, b, &ldb_, &info, 1);
    return info;
}

int la_getrf(minv_dtype t, int64_t m, int64_t n, void *a, int64_t lda, int *ipiv) {
    I(m); I(n); I(lda); int info = 0;
    if (t == MINV_R64) dgetrf_(&m_, &n_, a, &lda_, ipiv, &info);
    else sgetrf_(&m_, &n_, a, &lda_, ipiv, &info);
    return info;
}

void la_laswp(minv_dtype t, int64_t ncols, void *a, int64_t lda, int64_t k1, int64_t k2, const int *ipiv) {
    I(ncols); I(lda); I(k1); I(k2); const int one = 1;
    if (t == MINV_R64) dlaswp_(&ncols_, a, &lda_, &k1_, &k2_, ipiv, &one);
    else slaswp_(&ncols_, a, &lda_, &k1_, &k2_, ipiv, &one);
}

void la_trmm(minv_dtype t, char side, char uplo, char trans, char diag, int64_t m, int64_t n, double alpha,
             const void *a, int64_t lda, void *b, int64_t ldb) {
    I(m); I(n); I(lda); I(ldb);
    if (t == MINV_R64) {
        dtrmm_(&side, &uplo, &trans, &diag, &m_, &n_, &alpha, a, &lda_, b, &ldb_, 1, 1, 1, 1);
    } else {
        float al = (float)alpha;
        strmm_(&side, &uplo, &trans, &diag, &m_, &n_, &al, a, &lda_, b, &ldb_, 1, 1, 1, 1);
    }
}

void la_trsm(minv_dtype t, char side, char uplo, char trans, char diag, int64_t m, int64_t n, double alpha,
             const void *a, int64_t lda, void *b, int64_t ldb) {
    I(m); I(n); I(lda); I(ldb);
    if (t == MINV_R64) {
        dtrsm_(&side, &uplo, &trans, &diag, &m_, &n_, &alpha, a, &lda_, b, &ldb_, 1, 1, 1, 1);
    } else {
        float al = (float)alpha;
        strsm_(&side, &uplo, &trans, &diag, &m_, &n_, &al, a, &lda_, b, &ldb_, 1, 1, 1, 1);
    }
}

int la_getri(minv_dtype t, int64_t n, void *a, int64_t lda, const int *ipiv, void *work, int64_t lwork) {
    I(n); I(lda); int info = 0, lw = (int)lwork;
    void *own = NULL;
    if (!work) {
        double query = 0;
        lw = -1;
        if (t == MINV_R64) dgetri_(&n_, a, &lda_, ipiv, &query, &lw, &info);
        else { float q = 0; sgetri_(&n_, a, &lda_, ipiv, &q, &lw, &info); query = q; }
        lw = (int)query > n_ ? (int)query : (n_ > 0 ? n_ : 1);
        if (!(work = own = malloc((size_t)lw * (size_t)t))) return -1;
    }
    if (t == MINV_R64) dgetri_(&n_, a, &lda_, ipiv, work, &lw, &info);
    else sgetri_(&n_, a, &lda_, ipiv, work, &lw, &info);
    free(own);
    return info;
}

int la_getrs(minv_dtype t, int64_t n, int64_t nrhs, const void *a, int64_t lda, const int *ipiv,
             void *b, int64_t ldb) {
    I(n); I(nrhs); I(lda); I(ldb); int info = 0;
    if (t == MINV_R64) dgetrs_("N", &n_, &nrhs_, a, &lda_, ipiv, b, &ldb_, &info, 1);
    else sgetrs_("N", &n_, &nrhs_, a, &lda_, ipiv, b, &ldb_, &info, 1);
    return info;
}

int la_gttrf(int64_t n, double *dl, double *d, double *du, double *du2, int *ipiv) {
    I(n); int info = 0;
    dgttrf_(&n_, dl, d, du, du2, ipiv, &info);
    return info;
}

void la_gemm(minv_dtype t, char transa, char transb, int64_t m, int64_t n, int64_t k, double alpha,
             const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc) {
    I(m); I(n); I(k); I(lda); I(ldb); I(ldc);
    if (t == MINV_R64) {
        dgemm_(&transa, &transb, &m_, &n_, &k_, &alpha, a, &lda_, b, &ldb_, &beta, c, &ldc_, 1, 1);
    } else {
        float al = (float)alpha, be = (float)beta;
        sgemm_(&transa, &transb, &m_, &n_, &k_, &al, a, &lda_, b, &ldb_, &be, c, &ldc_, 1, 1);
    }
}

int la_syevd(minv_dtype t, char jobz, int64_t n, void *a, int64_t lda, void *w) {
    I(n); I(lda); int info = 0, lwork = -1, liwork = -1, iq = 0;
    double q = 0;
    if (t == MINV_R64) dsyevd_(&jobz, "L", &n_, a, &lda_, w, &q, &lwork, &iq, &liwork, &info, 1, 1);
    else { float fq = 0; ssyevd_(&jobz, "L", &n_, a, &lda_, w, &fq, &lwork, &iq, &liwork, &info, 1, 1); q = fq; }
    if (!(q + 1 <= (double)MINV_LAPACK_INT_MAX)) /* 1 + 6n + 2n^2 passes 32 bits near n = 32768 */
        return LA_TOO_LARGE;
    lwork = (int)q + 1;
    liwork = iq > 1 ? iq : 1;
    void *work = malloc((size_t)lwork * (size_t)t);
    int *iwork = malloc((size_t)liwork * sizeof(int));
    if (!work || !iwork) { free(work); free(iwork); return -1; }
    if (t == MINV_R64) dsyevd_(&jobz, "L", &n_, a, &lda_, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    else ssyevd_(&jobz, "L", &n_, a, &lda_, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    free(work);
    free(iwork);
    return info;
}

void la_syrk(minv_dtype t, int64_t n, int64_t k, double alpha, const void *a, int64_t lda, double beta, void *c,
             int64_t ldc) {
    I(n); I(k); I(lda); I(ldc);
    if (t == MINV_R64) dsyrk_("L", "N", &n_, &k_, &alpha, a, &lda_, &beta, c, &ldc_, 1, 1);
    else { float al = (float)alpha, be = (float)beta; ssyrk_("L", "N", &n_, &k_, &al, a, &lda_, &be, c, &ldc_, 1, 1); }
}

/* OpenBLAS's thread count, when OpenBLAS is the BLAS (weak: absent otherwise). The setting is
 * process-wide, so the first of overlapping parallel sections saves it and the last one
 * restores it. */
int openblas_get_num_threads(void) __attribute__((weak));
void openblas_set_num_threads(int threads) __attribute__((weak));

static pthread_mutex_t blas_threads_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_threads_users, blas_threads_saved;

void la_threads_single_begin(void) {
    if (!openblas_set_num_threads || !openblas_get_num_threads)
        return;
    pthread_mutex_lock(&blas_threads_lock);
    if (blas_threads_users++ == 0) {
        blas_threads_saved = openblas_get_num_threads();
        if (blas_threads_saved != 1) /* setting it costs 2% of a call at n = 8 */
            openblas_set_num_threads(1);
    }
    pthread_mutex_unlock(&blas_threads_lock);
}

void la_threads_single_end(void) {
    if (!openblas_set_num_threads || !openblas_get_num_threads)
        return;
    pthread_mutex_lock(&blas_threads_lock);
    if (--blas_threads_users == 0 && blas_threads_saved != 1)
        openblas_set_num_threads(blas_threads_saved);
    pthread_mutex_unlock(&blas_threads_lock);
}
