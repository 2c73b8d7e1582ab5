/* Typed shim over ScaLAPACK and PBLAS; see scalapack.h. */
#include <stdlib.h>
#include <string.h>

#include "scalapack.h"

typedef size_t flen; /* gfortran's hidden character length */

#define REAL_PROTOTYPES(P, T)                                                                                  \
    void P##potrf_(const char *, const int *, T *, const int *, const int *, const int *, int *, flen);        \
    void P##potri_(const char *, const int *, T *, const int *, const int *, const int *, int *, flen);        \
    void P##potrs_(const char *, const int *, const int *, const T *, const int *, const int *, const int *,   \
                   T *, const int *, const int *, const int *, int *, flen);                                   \
    void P##pocon_(const char *, const int *, const T *, const int *, const int *, const int *, const T *, T *, \
                   T *, const int *, int *, const int *, int *, flen);                                         \
    void P##getrf_(const int *, const int *, T *, const int *, const int *, const int *, int *, int *);        \
    void P##getri_(const int *, T *, const int *, const int *, const int *, const int *, T *, const int *,     \
                   int *, const int *, int *);                                                                 \
    void P##getrs_(const char *, const int *, const int *, const T *, const int *, const int *, const int *,   \
                   const int *, T *, const int *, const int *, const int *, int *, flen);                      \
    void P##gecon_(const char *, const int *, const T *, const int *, const int *, const int *, const T *, T *, \
                   T *, const int *, int *, const int *, int *, flen);                                         \
    T P##lange_(const char *, const int *, const int *, const T *, const int *, const int *, const int *, T *, \
                flen);                                                                                         \
    void P##lacpy_(const char *, const int *, const int *, const T *, const int *, const int *, const int *,   \
                   T *, const int *, const int *, const int *, flen);                                          \
    void P##geadd_(const char *, const int *, const int *, const T *, const T *, const int *, const int *,      \
                   const int *, const T *, T *, const int *, const int *, const int *, flen);                  \
    void P##gemm_(const char *, const char *, const int *, const int *, const int *, const T *, const T *,     \
                  const int *, const int *, const int *, const T *, const int *, const int *, const int *,     \
                  const T *, T *, const int *, const int *, const int *, flen, flen);                          \
    void P##laset_(const char *, const int *, const int *, const T *, const T *, T *, const int *, const int *, \
                   const int *, flen);

REAL_PROTOTYPES(pd, double)
REAL_PROTOTYPES(ps, float)
void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb, int *descb, int gcontext);
void Cpsgemr2d(int m, int n, float *a, int ia, int ja, int *desca, float *b, int ib, int jb, int *descb, int gcontext);

static const int one = 1;
#define D (t == MINV_R64)

int sl_potrf(minv_dtype t, int n, void *a, const int *desc) {
    int info = 0;
    if (D) pdpotrf_("L", &n, a, &one, &one, desc, &info, 1);
    else pspotrf_("L", &n, a, &one, &one, desc, &info, 1);
    return info;
}

int sl_potri(minv_dtype t, int n, void *a, const int *desc) {
    int info = 0;
    if (D) pdpotri_("L", &n, a, &one, &one, desc, &info, 1);
    else pspotri_("L", &n, a, &one, &one, desc, &info, 1);
    return info;
}

int sl_potrs(minv_dtype t, int n, int nrhs, const void *a, const int *desca, void *b, const int *descb) {
    int info = 0;
    if (D) pdpotrs_("L", &n, &nrhs, a, &one, &one, desca, b, &one, &one, descb, &info, 1);
    else pspotrs_("L", &n, &nrhs, a, &one, &one, desca, b, &one, &one, descb, &info, 1);
    return info;
}

int sl_getrf(minv_dtype t, int n, void *a, const int *desc, int *ipiv) {
    int info = 0;
    if (D) pdgetrf_(&n, &n, a, &one, &one, desc, ipiv, &info);
    else psgetrf_(&n, &n, a, &one, &one, desc, ipiv, &info);
    return info;
}

int sl_getri(minv_dtype t, int n, void *a, const int *desc, const int *ipiv) {
    int info = 0, lwork = -1, liwork = -1, iquery = 0;
    double wquery = 0;
    float squery = 0;
    if (D) pdgetri_(&n, a, &one, &one, desc, ipiv, &wquery, &lwork, &iquery, &liwork, &info);
    else psgetri_(&n, a, &one, &one, desc, ipiv, &squery, &lwork, &iquery, &liwork, &info);
    lwork = (int)(D ? wquery : squery) + 1;
    liwork = iquery + 1;
    void *work = malloc((size_t)lwork * (size_t)t);
    int *iwork = malloc((size_t)liwork * sizeof(int));
    if (!work || !iwork) {
        info = -100; /* reported as an allocation failure */
    } else if (D) {
        pdgetri_(&n, a, &one, &one, desc, ipiv, work, &lwork, iwork, &liwork, &info);
    } else {
        psgetri_(&n, a, &one, &one, desc, ipiv, work, &lwork, iwork, &liwork, &info);
    }
    free(work);
    free(iwork);
    return info;
}

int sl_getrs(minv_dtype t, int n, int nrhs, const void *a, const int *desca, const int *ipiv, void *b,
             const int *descb) {
    int info = 0;
    if (D) pdgetrs_("N", &n, &nrhs, a, &one, &one, desca, ipiv, b, &one, &one, descb, &info, 1);
    else psgetrs_("N", &n, &nrhs, a, &one, &one, desca, ipiv, b, &one, &one, descb, &info, 1);
    return info;
}

double sl_rcond(minv_dtype t, int spd, int n, const void *a, const int *desc, double anorm_1) {
    int info = 0, lwork = -1, liwork = -1, iquery = 0;
    double dq = 0, drcond = -1, dnorm = anorm_1;
    float sq = 0, srcond = -1, snorm = (float)anorm_1;
    /* workspace query, then the estimate */
    if (D && spd) pdpocon_("L", &n, a, &one, &one, desc, &dnorm, &drcond, &dq, &lwork, &iquery, &liwork, &info, 1);
    else if (D) pdgecon_("1", &n, a, &one, &one, desc, &dnorm, &drcond, &dq, &lwork, &iquery, &liwork, &info, 1);
    else if (spd) pspocon_("L", &n, a, &one, &one, desc, &snorm, &srcond, &sq, &lwork, &iquery, &liwork, &info, 1);
    else psgecon_("1", &n, a, &one, &one, desc, &snorm, &srcond, &sq, &lwork, &iquery, &liwork, &info, 1);
    lwork = (int)(D ? dq : sq) + 1;
    liwork = iquery + 1;
    void *work = malloc((size_t)lwork * (size_t)t);
    int *iwork = malloc((size_t)liwork * sizeof(int));
    info = -1;
    if (work && iwork) {
        if (D && spd) pdpocon_("L", &n, a, &one, &one, desc, &dnorm, &drcond, work, &lwork, iwork, &liwork, &info, 1);
        else if (D) pdgecon_("1", &n, a, &one, &one, desc, &dnorm, &drcond, work, &lwork, iwork, &liwork, &info, 1);
        else if (spd) pspocon_("L", &n, a, &one, &one, desc, &snorm, &srcond, work, &lwork, iwork, &liwork, &info, 1);
        else psgecon_("1", &n, a, &one, &one, desc, &snorm, &srcond, work, &lwork, iwork, &liwork, &info, 1);
    }
    free(work);
    free(iwork);
    return info != 0 ? -1 : D ? drcond : (double)srcond;
}

double sl_lange(minv_dtype t, char norm, int m, int n, const void *a, int ja, const int *desc) {
    /* 'I' needs the local rows, '1' the local columns; both bounded by the local piece */
    int nprow, npcol, myrow, mycol;
    Cblacs_gridinfo(desc[SL_CTXT], &nprow, &npcol, &myrow, &mycol);
    const int rows = numroc_(&m, &desc[SL_MB], &myrow, &desc[SL_RSRC], &nprow);
    const int last = n + ja - 1, cols = numroc_(&last, &desc[SL_NB], &mycol, &desc[SL_CSRC], &npcol);
    void *work = malloc((size_t)(rows + cols + 1) * (size_t)t);
    double value = -1;
    if (work)
        value = D ? pdlange_(&norm, &m, &n, a, &one, &ja, desc, work, 1)
                  : (double)pslange_(&norm, &m, &n, a, &one, &ja, desc, work, 1);
    free(work);
    return value;
}

void sl_lacpy(minv_dtype t, char uplo, int m, int n, const void *a, int ja, const int *desca, void *b, int jb,
              const int *descb) {
    if (D) pdlacpy_(&uplo, &m, &n, a, &one, &ja, desca, b, &one, &jb, descb, 1);
    else pslacpy_(&uplo, &m, &n, a, &one, &ja, desca, b, &one, &jb, descb, 1);
}

void sl_copy(minv_dtype t, int m, int n, const void *a, int ja, const int *desca, void *c, int jc, const int *descc) {
    const double d1 = 1, d0 = 0;
    const float s1 = 1, s0 = 0;
    if (D) pdgeadd_("N", &m, &n, &d1, a, &one, &ja, desca, &d0, c, &one, &jc, descc, 1);
    else psgeadd_("N", &m, &n, &s1, a, &one, &ja, desca, &s0, c, &one, &jc, descc, 1);
}

int sl_column_cycle(int64_t n, int64_t round_a, int64_t round_b) {
    int64_t lcm = round_a;
    while (lcm % round_b != 0 && lcm < n) lcm += round_a;
    return (int)(lcm < n ? lcm : (n > 0 ? n : 1));
}

void sl_gemm(minv_dtype t, char ta, char tb, int m, int n, int k, double alpha, const void *a, const int *desca,
             const void *b, int jb, const int *descb, double beta, void *c, int jc, const int *descc) {
    const float sa = (float)alpha, sb = (float)beta;
    if (D) pdgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &one, &one, desca, b, &one, &jb, descb, &beta, c, &one, &jc, descc, 1, 1);
    else psgemm_(&ta, &tb, &m, &n, &k, &sa, a, &one, &one, desca, b, &one, &jb, descb, &sb, c, &one, &jc, descc, 1, 1);
}

void sl_laset(minv_dtype t, char uplo, int m, int n, double offdiag, double diag, void *a, const int *desc) {
    const float so = (float)offdiag, sd = (float)diag;
    if (D) pdlaset_(&uplo, &m, &n, &offdiag, &diag, a, &one, &one, desc, 1);
    else pslaset_(&uplo, &m, &n, &so, &sd, a, &one, &one, desc, 1);
}

/* Descriptor d of the columns c0 .. c0 + w of a matrix, c0 at the start of a round of d's
 * process columns, and where they start in this rank's piece p. */
static const void *columns_of(minv_dtype t, const void *p, const int *d, int c0, int w, int *part) {
    int nprow, npcol, myrow, mycol;
    memcpy(part, d, 9 * sizeof(int));
    part[3] = w;
    if (d[1] < 0)
        return p;
    Cblacs_gridinfo(d[1], &nprow, &npcol, &myrow, &mycol);
    if (myrow < 0 || !p)
        return p;
    /* one process column holds every column; otherwise each holds NB of every round */
    const int64_t local = npcol == 1 ? c0 : (int64_t)(c0 / (d[5] * npcol)) * d[5];
    return (const char *)p + (size_t)local * (size_t)d[8] * (size_t)t;
}

void sl_gemr2d_parts(minv_dtype t, int m, int n, const void *a, const int *desca, void *b, const int *descb, int all,
                     int cycle, int64_t part_elems) {
    int64_t step = cycle < 1 ? n : (part_elems / (m > 0 ? m : 1)) / cycle * cycle;
    if (step < cycle) step = cycle;
    for (int c0 = 0; c0 < n; c0 += (int)step) {
        const int w = n - c0 < step ? n - c0 : (int)step;
        int pa[9], pb[9];
        const void *pa_data = columns_of(t, a, desca, c0, w, pa);
        void *pb_data = (void *)columns_of(t, b, descb, c0, w, pb);
        if (D) Cpdgemr2d(m, w, (double *)pa_data, 1, 1, pa, pb_data, 1, 1, pb, all);
        else Cpsgemr2d(m, w, (float *)pa_data, 1, 1, pa, pb_data, 1, 1, pb, all);
    }
}

void sl_gemr2d(minv_dtype t, int m, int n, const void *a, const int *desca, void *b, const int *descb, int all,
               int cycle) {
    sl_gemr2d_parts(t, m, n, a, desca, b, descb, all, cycle, ((int64_t)1 << 30) / (int64_t)t);
}
