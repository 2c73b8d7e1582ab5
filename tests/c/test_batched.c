/* Batched inversion and solves on every backend this machine has: every member of seeded
 * random batches checked by the LAPACK-tester residual ratio (< 30), for orders on both sides
 * of the GPU kernels' limits, SPD and general, every method, double, float and float storage
 * with double compute; strided layouts with padding (NaN, never to be read), in place,
 * pointer arrays, variable sizes, subsets; members that fail alone; argument errors; and,
 * where a GPU is present, the GPU's answers against the CPU's. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (text))

typedef enum { KIND_D = 0, KIND_S, KIND_SD } kind;
static const char *const kind_name[] = {"d", "s", "sd"};

static float *to_float(const double *a, size_t n) {
    float *f = malloc((n ? n : 1) * sizeof *f);
    for (size_t i = 0; i < n; i++) f[i] = (float)a[i];
    return f;
}

static double *to_double(const float *f, size_t n) {
    double *a = malloc((n ? n : 1) * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = (double)f[i];
    return a;
}

/* A strided batch of nbatch members of order k, NaN in the padding. */
typedef struct {
    int64_t k, nbatch, ld, stride;
    double *a;
} batch;

static batch batch_new(int64_t k, int64_t nbatch, int64_t ld, int64_t stride) {
    batch b = {k, nbatch, ld, stride, tu_alloc(1, nbatch, stride)};
    return b;
}

static double *member(const batch *b, int64_t m) { return b->a + m * b->stride; }

static void fill(tu_rng *rng, batch *b, int spd) {
    for (int64_t m = 0; m < b->nbatch; m++) {
        if (spd) tu_spd(rng, b->k, member(b, m), b->ld);
        else tu_general(rng, b->k, member(b, m), b->ld);
    }
}

static size_t span(const batch *b) { return (size_t)(b->stride * b->nbatch); }

/* Inverts `in` into `out` (which may be `in`: in place) as `kind`; the results land in out
 * (converted back to double for the float kinds). */
static minv_status invert(minv_context *ctx, kind kd, minv_method method, const batch *in, batch *out,
                          minv_status *st, minv_batch_report *rep) {
    const int inplace = in == out;
    minv_status s;
    if (kd == KIND_D)
        return minv_invert_batched_d(ctx, method, in->k, in->nbatch, in->a, in->ld, in->stride, out->a, out->ld,
                                     out->stride, st, rep);
    float *fa = to_float(in->a, span(in)), *fx = inplace ? fa : to_float(out->a, span(out));
    s = (kd == KIND_S ? minv_invert_batched_s : minv_invert_batched_sd)(ctx, method, in->k, in->nbatch, fa, in->ld,
                                                                        in->stride, fx, out->ld, out->stride, st, rep);
    double *back = to_double(fx, span(out));
    memcpy(out->a, back, span(out) * sizeof(double));
    free(back);
    if (!inplace) free(fx);
    free(fa);
    return s;
}

static double eps_of(kind kd) { return kd == KIND_D ? DBL_EPSILON : FLT_EPSILON; }

/* The worst member's ratio; the matrices the call saw (float kinds: rounded to float). */
static double worst_inverse_ratio(const batch *a, const batch *x, kind kd) {
    double worst = 0;
    for (int64_t m = 0; m < a->nbatch; m++) {
        double *am = member(a, m), *rounded = NULL;
        if (kd != KIND_D) {
            float *f = tu_to_float(a->k, a->k, am, a->ld, a->k);
            am = rounded = tu_to_double(a->k, a->k, f, a->k);
            free(f);
        }
        double r = tu_inverse_ratio(a->k, am, kd == KIND_D ? a->ld : a->k, member(x, m), x->ld, eps_of(kd));
        if (r > worst || isnan(r)) worst = r;
        free(rounded);
    }
    return worst;
}

/* ---- every order, every kind, every method, SPD and general ---- */

static void orders(minv_context *ctx) {
    static const int64_t ks[] = {1, 2, 3, 31, 32, 33, 64, 100, 128, 500};
    const minv_method methods[] = {MINV_METHOD_AUTO, MINV_METHOD_CHOLESKY, MINV_METHOD_LU, MINV_METHOD_GAUSS_JORDAN};
    tu_rng rng;
    tu_seed(&rng, 901);
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i], nbatch = k >= 500 ? 2 : k >= 100 ? 4 : 24;
        for (int spd = 0; spd <= 1; spd++) {
            batch a = batch_new(k, nbatch, k, k * k), x = batch_new(k, nbatch, k, k * k);
            fill(&rng, &a, spd);
            for (int kd = KIND_D; kd <= KIND_SD; kd++) {
                for (size_t mi = 0; mi < 4; mi++) {
                    const minv_method m = methods[mi];
                    if (m == MINV_METHOD_CHOLESKY && !spd) continue;
                    if (k >= 500 && (kd != KIND_D || m == MINV_METHOD_LU)) continue; /* time */
                    minv_batch_report rep;
                    minv_status st[24];
                    CHECK_STATUS(invert(ctx, (kind)kd, m, &a, &x, st, &rep), MINV_SUCCESS, ctx);
                    double r = worst_inverse_ratio(&a, &x, (kind)kd);
                    CHECK(r < 30, "k %lld %s %s %s on the %s: worst ratio %.3g", (long long)k, spd ? "spd" : "general",
                          kind_name[kd], minv_method_name(m), minv_backend_name(rep.backend), r);
                    CHECK(rep.failed == 0 && rep.first_failed == -1 && rep.nbatch == nbatch && rep.k == k,
                          "report: failed %lld first %lld", (long long)rep.failed, (long long)rep.first_failed);
                    /* AUTO: SPD members by the SPD path (but the GPU's blocked path, k > 128, takes
                     * the general one for all), others by LU (CPU) or Gauss-Jordan (GPU); 1 x 1
                     * members are symmetric, so the positive ones take the SPD path too */
                    const int gpu_blocked = rep.backend == MINV_BACKEND_GPU && k > 128;
                    const int by_spd = m == MINV_METHOD_CHOLESKY || (m == MINV_METHOD_AUTO && spd && !gpu_blocked);
                    const int method_ok = m != MINV_METHOD_AUTO ? rep.method == m
                                          : by_spd ? rep.method == MINV_METHOD_CHOLESKY
                                                   : rep.method == MINV_METHOD_LU || rep.method == MINV_METHOD_GAUSS_JORDAN;
                    if (m != MINV_METHOD_AUTO || k > 1) {
                        CHECK(method_ok, "k %lld: %s asked, %s reported (%s)", (long long)k, minv_method_name(m),
                              minv_method_name(rep.method), rep.reason);
                        CHECK(rep.cholesky_count == (by_spd ? nbatch : 0), "cholesky count %lld", (long long)rep.cholesky_count);
                    }
                    CHECK(rep.residual_kind == 1 && rep.residual >= 0 && rep.residual < 30 * eps_of(kd) && rep.worst >= 0,
                          "report residual %.3g (kind %d)", rep.residual, rep.residual_kind);
                    CHECK(rep.flops > 0 && rep.seconds > 0, "flops %g seconds %g", rep.flops, rep.seconds);
                    for (int64_t b = 0; b < nbatch; b++) CHECK(st[b] == MINV_SUCCESS, "member %lld", (long long)b);
                    printf("k %4lld %-7s %-2s %-12s %s: worst ratio %.3g\n", (long long)k, spd ? "spd" : "general",
                           kind_name[kd], minv_method_name(m), minv_backend_name(rep.backend), r);
                }
            }
            free(a.a);
            free(x.a);
        }
    }
}

/* ---- layouts: padding, in place, pointers, variable sizes, subsets ---- */

static void layouts(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 902);
    minv_batch_report rep;
    const int64_t k = 20, nbatch = 9;
    /* lda > k and stride > k * lda, both batches padded with NaN */
    batch a = batch_new(k, nbatch, k + 3, (k + 3) * k + 7), x = batch_new(k, nbatch, k + 1, (k + 1) * k + 5);
    fill(&rng, &a, 0);
    for (int kd = KIND_D; kd <= KIND_SD; kd++) {
        CHECK_STATUS(invert(ctx, (kind)kd, MINV_METHOD_AUTO, &a, &x, NULL, &rep), MINV_SUCCESS, ctx);
        CHECK(worst_inverse_ratio(&a, &x, (kind)kd) < 30, "padded %s", kind_name[kd]);
        CHECK(isnan(x.a[k]) && isnan(x.a[x.stride - 1]), "padding of the output written");
    }
    /* in place, SPD and general */
    for (int spd = 0; spd <= 1; spd++) {
        batch c = batch_new(k, nbatch, k + 2, (k + 2) * k + 1), orig = batch_new(k, nbatch, k + 2, (k + 2) * k + 1);
        fill(&rng, &c, spd);
        memcpy(orig.a, c.a, span(&c) * sizeof(double));
        for (int kd = KIND_D; kd <= KIND_SD; kd++) {
            memcpy(c.a, orig.a, span(&c) * sizeof(double));
            CHECK_STATUS(invert(ctx, (kind)kd, MINV_METHOD_AUTO, &c, &c, NULL, &rep), MINV_SUCCESS, ctx);
            CHECK(worst_inverse_ratio(&orig, &c, (kind)kd) < 30, "in place %s spd=%d", kind_name[kd], spd);
        }
        free(c.a);
        free(orig.a);
    }
    /* pointer arrays: members scattered, one of them in place */
    {
        const double *ap[9];
        double *xp[9];
        double *store = tu_alloc(1, nbatch, (k + 4) * k);
        for (int64_t m = 0; m < nbatch; m++) {
            ap[m] = member(&a, nbatch - 1 - m);
            xp[m] = store + m * (k + 4) * k;
        }
        CHECK_STATUS(minv_invert_batched_ptr_d(ctx, MINV_METHOD_GAUSS_JORDAN, k, nbatch, ap, a.ld, xp, k + 4, NULL, &rep),
                     MINV_SUCCESS, ctx);
        for (int64_t m = 0; m < nbatch; m++)
            CHECK(tu_inverse_ratio(k, ap[m], a.ld, xp[m], k + 4, DBL_EPSILON) < 30, "pointer member %lld", (long long)m);
        float *fa = to_float(a.a, span(&a)), *fx = to_float(store, (size_t)(nbatch * (k + 4) * k));
        const float *fap[9];
        float *fxp[9];
        for (int64_t m = 0; m < nbatch; m++) {
            fap[m] = fa + m * a.stride;
            fxp[m] = m == 4 ? fa + m * a.stride : fx + m * (k + 4) * k;
        }
        double *orig4 = tu_to_double(k, k, fa + 4 * a.stride, a.ld);
        /* member 4 in place: then every ld must agree, so all members use a.ld */
        CHECK_STATUS(minv_invert_batched_ptr_sd(ctx, MINV_METHOD_AUTO, k, nbatch, fap, a.ld, fxp, a.ld, NULL, &rep),
                     MINV_SUCCESS, ctx);
        double *x4 = tu_to_double(k, k, fxp[4], a.ld), *a0 = tu_to_double(k, k, fap[0], a.ld), *x0 = tu_to_double(k, k, fxp[0], a.ld);
        CHECK(tu_inverse_ratio(k, orig4, k, x4, k, FLT_EPSILON) < 30, "pointer in place");
        CHECK(tu_inverse_ratio(k, a0, k, x0, k, FLT_EPSILON) < 30, "pointer sd");
        free(fa); free(fx); free(orig4); free(x4); free(a0); free(x0); free(store);
    }
    /* variable sizes, 0 and 1 among them */
    {
        enum { NV = 8 };
        const int64_t kv[NV] = {5, 0, 1, 33, 17, 64, 2, 40}, ldv[NV] = {7, 1, 1, 33, 20, 64, 2, 41};
        const double *ap[NV];
        double *apm[NV], *xp[NV];
        int64_t ldx[NV];
        for (int m = 0; m < NV; m++) {
            apm[m] = tu_alloc(kv[m], kv[m], ldv[m]);
            if (kv[m]) { if (m % 2) tu_spd(&rng, kv[m], apm[m], ldv[m]); else tu_general(&rng, kv[m], apm[m], ldv[m]); }
            ap[m] = apm[m];
            ldx[m] = kv[m] + 1;
            xp[m] = tu_alloc(kv[m], kv[m], ldx[m]);
        }
        minv_status st[NV];
        for (int kd = KIND_D; kd <= KIND_SD; kd++) {
            if (kd == KIND_D) {
                CHECK_STATUS(minv_invert_batched_vsize_d(ctx, MINV_METHOD_AUTO, kv, NV, ap, ldv, xp, ldx, st, &rep),
                             MINV_SUCCESS, ctx);
                for (int m = 0; m < NV; m++)
                    if (kv[m]) CHECK(tu_inverse_ratio(kv[m], ap[m], ldv[m], xp[m], ldx[m], DBL_EPSILON) < 30, "vsize %d", m);
            } else {
                const float *fp[NV];
                float *fpm[NV], *fx[NV];
                for (int m = 0; m < NV; m++) {
                    fpm[m] = tu_to_float(kv[m], kv[m], ap[m], ldv[m], ldv[m]);
                    fp[m] = fpm[m];
                    fx[m] = tu_to_float(kv[m], kv[m], xp[m], ldx[m], ldx[m]);
                }
                CHECK_STATUS((kd == KIND_S ? minv_invert_batched_vsize_s : minv_invert_batched_vsize_sd)(
                                 ctx, MINV_METHOD_AUTO, kv, NV, fp, ldv, fx, ldx, st, &rep),
                             MINV_SUCCESS, ctx);
                for (int m = 0; m < NV; m++) {
                    if (kv[m]) {
                        double *a2 = tu_to_double(kv[m], kv[m], fp[m], ldv[m]), *x2 = tu_to_double(kv[m], kv[m], fx[m], ldx[m]);
                        CHECK(tu_inverse_ratio(kv[m], a2, kv[m], x2, kv[m], FLT_EPSILON) < 30, "vsize %s %d", kind_name[kd], m);
                        free(a2); free(x2);
                    }
                    free(fpm[m]); free(fx[m]);
                }
            }
            CHECK(rep.k == 64 && rep.failed == 0, "vsize report k %lld", (long long)rep.k);
        }
        for (int m = 0; m < NV; m++) { free(apm[m]); free(xp[m]); }
    }
    /* subsets: member b inverts A_b(idx_b, idx_b), compact; one member empty */
    {
        const int64_t ks = 30, ns = 6, ldi = 31;
        batch s = batch_new(ks, ns, ks + 1, (ks + 1) * ks);
        fill(&rng, &s, 1);
        int64_t *index = malloc(sizeof(int64_t) * ns * ldi), count[6] = {30, 12, 0, 1, 29, 7};
        for (int64_t m = 0; m < ns; m++) /* a spread of distinct rows, not in order */
            for (int64_t i = 0; i < count[m]; i++) index[m * ldi + i] = (i * 7 + m) % ks;
        batch out = batch_new(ks, ns, ks, ks * ks);
        for (int kd = KIND_D; kd <= KIND_SD; kd++) {
            minv_status st;
            if (kd == KIND_D) {
                st = minv_invert_batched_subset_d(ctx, MINV_METHOD_AUTO, ks, ns, s.a, s.ld, s.stride, index, ldi, count,
                                                  out.a, out.ld, out.stride, NULL, &rep);
            } else {
                float *fa = to_float(s.a, span(&s)), *fx = to_float(out.a, span(&out));
                st = (kd == KIND_S ? minv_invert_batched_subset_s : minv_invert_batched_subset_sd)(
                    ctx, MINV_METHOD_AUTO, ks, ns, fa, s.ld, s.stride, index, ldi, count, fx, out.ld, out.stride, NULL, &rep);
                double *back = to_double(fx, span(&out));
                memcpy(out.a, back, span(&out) * sizeof(double));
                free(back); free(fa); free(fx);
            }
            CHECK_STATUS(st, MINV_SUCCESS, ctx);
            CHECK(rep.k == 30 && rep.cholesky_count == 5, "subset report k %lld spd %lld", (long long)rep.k,
                  (long long)rep.cholesky_count);
            for (int64_t m = 0; m < ns; m++) {
                const int64_t c = count[m];
                if (!c) continue;
                double *sub = malloc(sizeof(double) * c * c);
                for (int64_t j = 0; j < c; j++)
                    for (int64_t i = 0; i < c; i++) {
                        double v = member(&s, m)[index[m * ldi + j] * s.ld + index[m * ldi + i]];
                        sub[j * c + i] = kd == KIND_D ? v : (double)(float)v;
                    }
                CHECK(tu_inverse_ratio(c, sub, c, member(&out, m), out.ld, eps_of((kind)kd)) < 30, "subset %s member %lld",
                      kind_name[kd], (long long)m);
                free(sub);
            }
        }
        free(index); free(s.a); free(out.a);
    }
    free(a.a);
    free(x.a);
}

/* ---- solves ---- */

static void solves(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 903);
    minv_batch_report rep;
    static const int64_t ks[] = {1, 3, 32, 33, 100, 200};
    const int64_t nrhs = 5, nbatch = 7;
    const minv_method methods[] = {MINV_METHOD_AUTO, MINV_METHOD_CHOLESKY, MINV_METHOD_LU, MINV_METHOD_GAUSS_JORDAN};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i];
        for (int spd = 0; spd <= 1; spd++) {
            batch a = batch_new(k, nbatch, k + 1, (k + 1) * k + 3);
            batch b = batch_new(k, nbatch, k + 2, (k + 2) * nrhs), x = batch_new(k, nbatch, k, k * nrhs + 1);
            fill(&rng, &a, spd);
            for (int64_t m = 0; m < nbatch; m++) tu_rect(&rng, k, nrhs, member(&b, m), b.ld);
            for (size_t mi = 0; mi < 4; mi++) {
                if (methods[mi] == MINV_METHOD_CHOLESKY && !spd) continue;
                for (int kd = KIND_D; kd <= KIND_SD; kd++) {
                    double worst = 0;
                    if (kd == KIND_D) {
                        CHECK_STATUS(minv_solve_batched_d(ctx, methods[mi], k, nrhs, nbatch, a.a, a.ld, a.stride, b.a, b.ld,
                                                          b.stride, x.a, x.ld, x.stride, NULL, &rep),
                                     MINV_SUCCESS, ctx);
                        for (int64_t m = 0; m < nbatch; m++) {
                            double r = tu_solve_ratio(k, nrhs, member(&a, m), a.ld, member(&b, m), b.ld, member(&x, m), x.ld,
                                                      DBL_EPSILON);
                            if (r > worst) worst = r;
                        }
                    } else {
                        float *fa = to_float(a.a, span(&a)), *fb = to_float(b.a, span(&b)), *fx = to_float(x.a, span(&x));
                        CHECK_STATUS((kd == KIND_S ? minv_solve_batched_s : minv_solve_batched_sd)(
                                         ctx, methods[mi], k, nrhs, nbatch, fa, a.ld, a.stride, fb, b.ld, b.stride, fx, x.ld,
                                         x.stride, NULL, &rep),
                                     MINV_SUCCESS, ctx);
                        for (int64_t m = 0; m < nbatch; m++) {
                            double *a2 = tu_to_double(k, k, fa + m * a.stride, a.ld), *b2 = tu_to_double(k, nrhs, fb + m * b.stride, b.ld);
                            double *x2 = tu_to_double(k, nrhs, fx + m * x.stride, x.ld);
                            double r = tu_solve_ratio(k, nrhs, a2, k, b2, k, x2, k, FLT_EPSILON);
                            if (r > worst) worst = r;
                            free(a2); free(b2); free(x2);
                        }
                        free(fa); free(fb); free(fx);
                    }
                    CHECK(worst < 30, "solve k %lld %s %s %s: ratio %.3g", (long long)k, spd ? "spd" : "general",
                          kind_name[kd], minv_method_name(methods[mi]), worst);
                    CHECK(rep.nrhs == nrhs && rep.residual >= 0 && rep.residual < 30 * eps_of((kind)kd), "solve report residual %.3g",
                          rep.residual);
                }
            }
            /* in place: x is b */
            batch bb = batch_new(k, nbatch, b.ld, b.stride);
            memcpy(bb.a, b.a, span(&b) * sizeof(double));
            CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, k, nrhs, nbatch, a.a, a.ld, a.stride, bb.a, bb.ld,
                                              bb.stride, bb.a, bb.ld, bb.stride, NULL, &rep),
                         MINV_SUCCESS, ctx);
            for (int64_t m = 0; m < nbatch; m++)
                CHECK(tu_solve_ratio(k, nrhs, member(&a, m), a.ld, member(&b, m), b.ld, member(&bb, m), bb.ld, DBL_EPSILON) < 30,
                      "solve in place k %lld member %lld", (long long)k, (long long)m);
            /* both backends keep B for the residual (the CPU each member's, the GPU its staged copy) */
            CHECK(rep.residual >= 0 && rep.residual < 30 * DBL_EPSILON, "residual in place: %g", rep.residual);
            free(bb.a);
            /* pointer arrays */
            {
                const double *ap[7], *bp[7];
                double *xp[7];
                for (int64_t m = 0; m < nbatch; m++) {
                    ap[m] = member(&a, m);
                    bp[m] = member(&b, m);
                    xp[m] = member(&x, m);
                }
                CHECK_STATUS(minv_solve_batched_ptr_d(ctx, MINV_METHOD_AUTO, k, nrhs, nbatch, ap, a.ld, bp, b.ld, xp, x.ld,
                                                      NULL, &rep),
                             MINV_SUCCESS, ctx);
                for (int64_t m = 0; m < nbatch; m++)
                    CHECK(tu_solve_ratio(k, nrhs, ap[m], a.ld, bp[m], b.ld, xp[m], x.ld, DBL_EPSILON) < 30, "solve ptr");
            }
            free(a.a); free(b.a); free(x.a);
        }
    }
    /* variable sizes */
    {
        enum { NV = 5 };
        const int64_t kv[NV] = {4, 0, 40, 1, 31}, ld[NV] = {4, 1, 42, 3, 31};
        const double *ap[NV], *bp[NV];
        double *am[NV], *bm[NV], *xp[NV];
        for (int m = 0; m < NV; m++) {
            am[m] = tu_alloc(kv[m], kv[m], ld[m]);
            bm[m] = tu_alloc(kv[m], 3, ld[m]);
            xp[m] = tu_alloc(kv[m], 3, ld[m]);
            if (kv[m]) { tu_general(&rng, kv[m], am[m], ld[m]); tu_rect(&rng, kv[m], 3, bm[m], ld[m]); }
            ap[m] = am[m];
            bp[m] = bm[m];
        }
        CHECK_STATUS(minv_solve_batched_vsize_d(ctx, MINV_METHOD_AUTO, kv, 3, NV, ap, ld, bp, ld, xp, ld, NULL, &rep),
                     MINV_SUCCESS, ctx);
        for (int m = 0; m < NV; m++)
            if (kv[m]) CHECK(tu_solve_ratio(kv[m], 3, ap[m], ld[m], bp[m], ld[m], xp[m], ld[m], DBL_EPSILON) < 30, "vsize solve %d", m);
        for (int m = 0; m < NV; m++) { free(am[m]); free(bm[m]); free(xp[m]); }
    }
}

/* ---- members that fail alone ---- */

static void bad_members(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 904);
    static const int64_t ks[] = {3, 24, 32, 50, 128, 200};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i], nbatch = 40;
        batch a = batch_new(k, nbatch, k, k * k), x = batch_new(k, nbatch, k, k * k);
        fill(&rng, &a, 1);
        /* member 5: singular (column 1 zero, rows too: still symmetric); member 9: symmetric
         * with a positive diagonal but indefinite; member 13: NaN */
        for (int64_t j = 0; j < k; j++) member(&a, 5)[1 * k + j] = member(&a, 5)[j * k + 1] = 0;
        member(&a, 5)[1 * k + 1] = 0;
        member(&a, 9)[1 * k + 0] = member(&a, 9)[0 * k + 1] = 10 * sqrt(member(&a, 9)[0] * member(&a, 9)[k + 1]);
        member(&a, 13)[(k - 1) * k + k / 2] = NAN;
        minv_status st[40];
        minv_batch_report rep;
        for (int kd = KIND_D; kd <= KIND_SD; kd++) {
            /* AUTO: member 9 goes to the general path; 5 and 13 fail */
            for (size_t e = 0; e < span(&x); e++) x.a[e] = 7;
            minv_status s = invert(ctx, (kind)kd, MINV_METHOD_AUTO, &a, &x, st, &rep);
            CHECK(s == MINV_ERR_SINGULAR, "k %lld %s: AUTO returned %s", (long long)k, kind_name[kd], minv_status_string(s));
            HAS(minv_last_error(ctx), "member 6 of 40 (0-based index 5)");
            HAS(minv_last_error(ctx), "column 2 (1-based)");
            HAS(minv_last_error(ctx), "2 members failed");
            CHECK(st[5] == MINV_ERR_SINGULAR && st[13] == MINV_ERR_NOT_FINITE && st[9] == MINV_SUCCESS,
                  "k %lld statuses %d %d %d", (long long)k, st[5], st[9], st[13]);
            CHECK(rep.failed == 2 && rep.first_failed == 5 && rep.first_status == MINV_ERR_SINGULAR && rep.first_info == 1,
                  "k %lld report: %lld failed, first %lld (%d, column %lld)", (long long)k, (long long)rep.failed,
                  (long long)rep.first_failed, rep.first_status, (long long)rep.first_info);
            if (rep.backend == MINV_BACKEND_GPU && k > 128) /* the blocked path pivots every member */
                CHECK(rep.method == MINV_METHOD_GAUSS_JORDAN && rep.cholesky_count == 0, "k %lld: %s, %lld by the SPD path",
                      (long long)k, minv_method_name(rep.method), (long long)rep.cholesky_count);
            else
                CHECK(rep.method == MINV_METHOD_AUTO && rep.cholesky_count == nbatch - 3, "k %lld: %s, %lld by the SPD path",
                      (long long)k, minv_method_name(rep.method), (long long)rep.cholesky_count);
            for (int64_t m = 0; m < nbatch; m++) {
                if (m == 5 || m == 13) {
                    int untouched = 1;
                    for (int64_t e = 0; e < k * k; e++) untouched &= member(&x, m)[e] == 7;
                    CHECK(untouched, "k %lld: failed member %lld written", (long long)k, (long long)m);
                } else {
                    CHECK(st[m] == MINV_SUCCESS, "k %lld member %lld: %s", (long long)k, (long long)m, minv_status_string(st[m]));
                }
            }
            batch good = a, goodx = x; /* the members before the bad ones */
            good.nbatch = goodx.nbatch = 5;
            CHECK(worst_inverse_ratio(&good, &goodx, (kind)kd) < 30, "k %lld good members", (long long)k);
            CHECK(tu_inverse_ratio(k, member(&a, 9), k, member(&x, 9), k, eps_of((kind)kd)) < 30 || kd != KIND_D,
                  "k %lld: the indefinite member", (long long)k);
            /* CHOLESKY: member 9 is not SPD at column 2 */
            minv_status sc = invert(ctx, (kind)kd, MINV_METHOD_CHOLESKY, &a, &x, st, &rep);
            CHECK(sc == MINV_ERR_NOT_SPD && st[9] == MINV_ERR_NOT_SPD && st[5] == MINV_ERR_NOT_SPD,
                  "k %lld cholesky: %s, member 9 %s", (long long)k, minv_status_string(sc), minv_status_string(st[9]));
            CHECK(rep.failed == 3 && rep.first_failed == 5 && rep.first_info == 1 && st[13] == MINV_ERR_NOT_FINITE,
                  "k %lld cholesky: %lld failed, first %lld at column %lld, member 13 %s", (long long)k, (long long)rep.failed,
                  (long long)rep.first_failed, (long long)rep.first_info, minv_status_string(st[13]));
            /* general: the NaN is column k (1-based) */
            minv_status sg = invert(ctx, (kind)kd, MINV_METHOD_GAUSS_JORDAN, &a, &x, st, &rep);
            CHECK(sg == MINV_ERR_SINGULAR && st[13] == MINV_ERR_NOT_FINITE && st[9] == MINV_SUCCESS, "k %lld gj: %s",
                  (long long)k, minv_status_string(sg));
        }
        /* in place: failed members keep their input */
        batch c = batch_new(k, nbatch, k, k * k);
        memcpy(c.a, a.a, span(&a) * sizeof(double));
        minv_status s = invert(ctx, KIND_D, MINV_METHOD_AUTO, &c, &c, st, &rep);
        CHECK(s == MINV_ERR_SINGULAR && memcmp(member(&c, 5), member(&a, 5), sizeof(double) * k * k) == 0,
              "k %lld: a failed member in place changed", (long long)k);
        free(c.a);
        free(a.a);
        free(x.a);
    }
    /* the first failure decides the status: NaN first */
    {
        const int64_t k = 4;
        batch a = batch_new(k, 3, k, k * k), x = batch_new(k, 3, k, k * k);
        fill(&rng, &a, 0);
        member(&a, 1)[2] = INFINITY;
        minv_batch_report rep;
        CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, k, 3, a.a, k, k * k, x.a, k, k * k, NULL, &rep),
                     MINV_ERR_NOT_FINITE, ctx);
        HAS(minv_last_error(ctx), "member 2 of 3 (0-based index 1): a NaN or Inf in column 1");
        /* singular to working precision: written, flagged */
        for (int64_t j = 0; j < k; j++)
            for (int64_t i = 0; i < k; i++) member(&a, 2)[j * k + i] = 1.0 / (double)(i + j + 1);
        /* Hilbert's, its last two columns made equal: singular, exactly or to working precision */
        for (int64_t i = 0; i < k; i++) member(&a, 2)[3 * k + i] = member(&a, 2)[2 * k + i];
        member(&a, 1)[2] = 0.5;
        minv_status st[3];
        minv_status s = minv_invert_batched_d(ctx, MINV_METHOD_GAUSS_JORDAN, k, 3, a.a, k, k * k, x.a, k, k * k, st, &rep);
        CHECK(s == MINV_ERR_SINGULAR && st[2] == MINV_ERR_SINGULAR && st[0] == MINV_SUCCESS, "near-singular: %s",
              minv_status_string(s));
        free(a.a);
        free(x.a);
    }
    /* subsets: a failure's column is the member's, through its index (column 3 of the subset
     * {1, 4, 6, 10} is the member's column 7, 1-based) */
    {
        const int64_t k = 12, index[8] = {1, 4, 6, 10, 1, 4, 6, 10}, count[2] = {4, 4};
        batch a = batch_new(k, 2, k, k * k), x = batch_new(4, 2, 4, 16);
        for (int64_t m = 0; m < 2; m++) /* member 1: rows and columns 5 and 7 (1-based) equal */
            for (int64_t j = 0; j < k; j++)
                for (int64_t i = 0; i < k; i++)
                    member(&a, m)[j * k + i] = pow(0.6, (double)llabs((m && i == 6 ? 4 : i) - (m && j == 6 ? 4 : j)));
        minv_batch_report rep;
        CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_LU, k, 2, a.a, k, k * k, index, 4, count, x.a, 4, 16,
                                                  NULL, &rep),
                     MINV_ERR_SINGULAR, ctx);
        CHECK(rep.first_failed == 1 && rep.first_info == 6, "subset: member %lld, column %lld (0-based; want 1, 6)",
              (long long)rep.first_failed, (long long)rep.first_info);
        HAS(minv_last_error(ctx), "no pivot in column 3 (1-based); positions are in its subset A(idx, idx), whose column 3 "
                                  "is the member's column 7 (1-based)");
        member(&a, 0)[4 * k + 6] = NAN; /* the member's (7,5), 1-based: its subset's column 2 */
        CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_LU, k, 2, a.a, k, k * k, index, 4, count, x.a, 4, 16,
                                                  NULL, &rep),
                     MINV_ERR_NOT_FINITE, ctx);
        CHECK(rep.first_failed == 0 && rep.first_info == 4, "subset NaN: member %lld, column %lld (0-based; want 0, 4)",
              (long long)rep.first_failed, (long long)rep.first_info);
        HAS(minv_last_error(ctx), "whose column 2 is the member's column 5 (1-based)");
        free(a.a);
        free(x.a);
    }
}

/* ---- float storage computed in double: symmetry judged by float's tolerance ---- */

/* SPD members with one pair a_ij != a_ji apart by 4 float roundings of the largest entry: as
 * symmetric as float data formed by GEMM, far outside double's tolerance (16 roundings). */
static void float_rounded_symmetry(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 907);
    static const int64_t ks[] = {20, 100, 200};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i], nbatch = 4;
        batch a = batch_new(k, nbatch, k, k * k), x = batch_new(k, nbatch, k, k * k);
        fill(&rng, &a, 1);
        for (int64_t m = 0; m < nbatch; m++) {
            double largest = 0;
            for (int64_t e = 0; e < k * k; e++) largest = fmax(largest, fabs(member(&a, m)[e]));
            member(&a, m)[3 * k + 1] += 4 * FLT_EPSILON * largest;
        }
        minv_status st[4];
        minv_batch_report rep;
        CHECK_STATUS(invert(ctx, KIND_SD, MINV_METHOD_CHOLESKY, &a, &x, st, &rep), MINV_SUCCESS, ctx);
        CHECK(worst_inverse_ratio(&a, &x, KIND_SD) < 30, "k %lld: float-symmetric Cholesky", (long long)k);
        CHECK_STATUS(invert(ctx, KIND_SD, MINV_METHOD_AUTO, &a, &x, st, &rep), MINV_SUCCESS, ctx);
        if (!(rep.backend == MINV_BACKEND_GPU && k > 128)) /* the GPU's blocked path pivots every member */
            CHECK(rep.cholesky_count == nbatch, "k %lld: AUTO took the SPD path for %lld of %lld", (long long)k,
                  (long long)rep.cholesky_count, (long long)nbatch);
        free(a.a);
        free(x.a);
    }
}

/* ---- page-locked host arrays (minv_host_register) ---- */

/* Registered arrays give the answers unregistered ones give (on the CPU registering does
 * nothing); the arguments are checked on both backends. */
static void host_registration(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 930);
    const int64_t k = 16, nbatch = 200;
    const size_t bytes = sizeof(double) * (size_t)(k * k * nbatch);
    batch a = batch_new(k, nbatch, k, k * k), x = batch_new(k, nbatch, k, k * k);
    fill(&rng, &a, 1);
    CHECK_STATUS(minv_host_register(ctx, a.a, (int64_t)bytes), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_register(ctx, x.a, (int64_t)bytes), MINV_SUCCESS, ctx);
    minv_batch_report rep;
    CHECK_STATUS(invert(ctx, KIND_D, MINV_METHOD_AUTO, &a, &x, NULL, &rep), MINV_SUCCESS, ctx);
    const double r = worst_inverse_ratio(&a, &x, KIND_D);
    CHECK(r < 30, "registered batch on the %s: worst ratio %.3g", minv_backend_name(rep.backend), r);
    CHECK_STATUS(minv_host_unregister(ctx, a.a), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_unregister(ctx, x.a), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_register(ctx, a.a, 0), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_register(ctx, a.a, -8), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (bytes) = -8 is negative");
    CHECK_STATUS(minv_host_register(ctx, NULL, 8), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_host_unregister(ctx, NULL), MINV_ERR_INVALID_ARG, ctx);
    CHECK(minv_host_register(NULL, a.a, 8) == MINV_ERR_INVALID_ARG, "NULL context");
    if (minv_context_backend(ctx) == MINV_BACKEND_GPU)
        CHECK_STATUS(minv_host_unregister(ctx, a.a), MINV_ERR_INVALID_ARG, ctx); /* not registered now */
    free(a.a);
    free(x.a);
}

/* ---- argument errors ---- */

static void errors(minv_context *ctx) {
    double a[32] = {1, 0, 0, 1, 2, 0, 0, 2}, x[32];
    const double *ap[2] = {a, NULL};
    double *xp[2] = {x, x + 4};
    int64_t idx[4] = {0, 1, 1, 0}, cnt[2] = {2, 2}, kk[2] = {2, -1}, ld2[2] = {2, 2};
    minv_batch_report rep;
    CHECK(minv_invert_batched_d(NULL, MINV_METHOD_AUTO, 2, 2, a, 2, 4, x, 2, 4, NULL, NULL) == MINV_ERR_INVALID_ARG, "NULL ctx");
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_ITERATIVE, 2, 2, a, 2, 4, x, 2, 4, NULL, &rep), MINV_ERR_NOT_IMPLEMENTED, ctx);
    HAS(minv_last_error(ctx), "argument 2 (method) = iterative is not available for batches");
    CHECK_STATUS(minv_invert_batched_d(ctx, (minv_method)42, 2, 2, a, 2, 4, x, 2, 4, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    { /* members of order 0: every one succeeds, nothing is written (LAPACK's quick return) */
        minv_status st2[2] = {MINV_ERR_INTERNAL, MINV_ERR_INTERNAL};
        const double x0 = x[0];
        CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 0, 2, a, 1, 4, x, 1, 4, st2, &rep), MINV_SUCCESS, ctx);
        CHECK(st2[0] == MINV_SUCCESS && st2[1] == MINV_SUCCESS && x[0] == x0, "k = 0: members %d %d, x[0] %g", st2[0],
              st2[1], x[0]);
        /* and the arrays may be NULL, as minv.h promises for sizes of 0 */
        CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 0, 3, NULL, 1, 0, NULL, 1, 0, NULL, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.nbatch == 3 && rep.k == 0 && rep.failed == 0 && rep.rcond == -1 && rep.residual == -1,
              "k = 0 report: nbatch %lld k %lld failed %lld", (long long)rep.nbatch, (long long)rep.k, (long long)rep.failed);
        CHECK_STATUS(minv_invert_batched_ptr_d(ctx, MINV_METHOD_AUTO, 0, 3, NULL, 1, NULL, 1, NULL, &rep), MINV_SUCCESS, ctx);
        const int64_t k0[2] = {0, 0}, ld1[2] = {1, 1}, none[2] = {0, 0};
        CHECK_STATUS(minv_invert_batched_vsize_d(ctx, MINV_METHOD_AUTO, k0, 2, NULL, ld1, NULL, ld1, NULL, &rep), MINV_SUCCESS,
                     ctx);
        CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, 0, 2, 3, NULL, 1, 0, NULL, 1, 0, NULL, 1, 0, NULL, &rep),
                     MINV_SUCCESS, ctx);
        CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, NULL, 1, none, NULL, 1, 0, st2, &rep),
                     MINV_SUCCESS, ctx);
        CHECK(st2[0] == MINV_SUCCESS && st2[1] == MINV_SUCCESS && rep.k == 0, "empty subsets: %d %d, k %lld", st2[0], st2[1],
              (long long)rep.k);
    }
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, -1, 2, a, 2, 4, x, 2, 4, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (k) = -1 must be >= 0");
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 2, -1, a, 2, 4, x, 2, 4, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 2, 2, NULL, 2, 4, x, 2, 4, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 5 (a) is NULL");
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 1, 4, x, 2, 4, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 6 (lda) = 1 must be >= 2");
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 3, x, 2, 4, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 7 (stride_a) = 3 must be >= lda * 2 = 4");
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, x, 2, 2, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 10 (stride_ainv)");
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, a, 2, 5, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "in place needs the same layout");
    /* nothing to do */
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, 2, 0, NULL, 2, 4, NULL, 2, 4, NULL, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.nbatch == 0 && rep.failed == 0, "empty batch report");
    /* pointers */
    CHECK_STATUS(minv_invert_batched_ptr_d(ctx, MINV_METHOD_AUTO, 2, 2, ap, 2, xp, 2, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 5 (a): a[1] is NULL");
    CHECK_STATUS(minv_invert_batched_vsize_d(ctx, MINV_METHOD_AUTO, kk, 2, ap, ld2, xp, ld2, NULL, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (k): k[1] = -1 must be >= 0");
    { /* a member's leading dimension is named with the member */
        const int64_t k3[2] = {2, 3}, ld3[2] = {2, 2}, ldx3[2] = {2, 3};
        const double *a3[2] = {a, a + 4};
        double *x3[2] = {x, x + 4};
        CHECK_STATUS(minv_invert_batched_vsize_d(ctx, MINV_METHOD_AUTO, k3, 2, a3, ld3, x3, ldx3, NULL, &rep),
                     MINV_ERR_INVALID_ARG, ctx);
        HAS(minv_last_error(ctx), "argument 6 (lda): lda[1] = 2 must be >= 3");
    }
    /* subsets */
    CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, idx, 2, cnt, x, 2, 4, NULL, &rep),
                 MINV_SUCCESS, ctx);
    idx[3] = 1;
    CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, idx, 2, cnt, x, 2, 4, NULL, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "member 1 names row 1 twice");
    idx[3] = 2;
    CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, idx, 2, cnt, x, 2, 4, NULL, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "member 1, entry 1 = 2 is outside 0 to k - 1 = 1");
    idx[3] = 0;
    cnt[1] = 3;
    CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, idx, 2, cnt, x, 2, 4, NULL, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "count[1] = 3 must be 0 to k = 2");
    cnt[1] = 2;
    CHECK_STATUS(minv_invert_batched_subset_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, idx, 2, cnt, a, 2, 4, NULL, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "subsets are inverted out of place");
    /* solves */
    { /* no right-hand sides: success, x untouched */
        const double x0 = x[0];
        CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, 2, 0, 2, a, 2, 4, a, 2, 0, x, 2, 0, NULL, &rep),
                     MINV_SUCCESS, ctx);
        CHECK(x[0] == x0, "nrhs = 0 wrote x");
        CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, 2, 0, 2, a, 2, 4, NULL, 2, 0, NULL, 2, 0, NULL, &rep),
                     MINV_SUCCESS, ctx);
        CHECK(rep.nrhs == 0 && rep.k == 2 && rep.failed == 0, "nrhs = 0 report: nrhs %lld k %lld", (long long)rep.nrhs,
              (long long)rep.k);
        const double *aq[2] = {a, a + 4};
        CHECK_STATUS(minv_solve_batched_ptr_d(ctx, MINV_METHOD_AUTO, 2, 0, 2, aq, 2, NULL, 2, NULL, 2, NULL, &rep),
                     MINV_SUCCESS, ctx);
    }
    CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, 2, -1, 2, a, 2, 4, a, 2, 4, x, 2, 4, NULL, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 4 (nrhs) = -1 must be >= 0");
    CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, 2, 1, 2, a, 2, 4, a, 2, 2, a, 2, 2, NULL, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 12 (x) is a");
    CHECK_STATUS(minv_solve_batched_vsize_d(ctx, MINV_METHOD_AUTO, NULL, 1, 2, ap, ld2, ap, ld2, xp, ld2, NULL, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (k) is NULL");
    /* device forms need the GPU */
    if (minv_context_backend(ctx) == MINV_BACKEND_CPU) {
        CHECK_STATUS(minv_invert_batched_device_d(ctx, MINV_METHOD_AUTO, 2, 2, a, 2, 4, x, 2, 4, NULL, &rep), MINV_ERR_NO_GPU, ctx);
        CHECK_STATUS(minv_solve_batched_device_s(ctx, MINV_METHOD_AUTO, 2, 1, 2, (float *)a, 2, 4, (float *)a, 2, 2,
                                                 (float *)x, 2, 2, NULL, &rep),
                     MINV_ERR_NO_GPU, ctx);
    }
}

/* ---- the residual options ---- */

static void residual_modes(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 905);
    const int64_t k = 40, nbatch = 5;
    batch a = batch_new(k, nbatch, k, k * k), x = batch_new(k, nbatch, k, k * k);
    fill(&rng, &a, 0);
    minv_batch_report rep;
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
    CHECK_STATUS(invert(ctx, KIND_D, MINV_METHOD_AUTO, &a, &x, NULL, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.residual == -1 && rep.residual_kind == 0 && rep.worst == -1, "residual off: %g", rep.residual);
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 2);
    CHECK_STATUS(invert(ctx, KIND_D, MINV_METHOD_AUTO, &a, &x, NULL, &rep), MINV_SUCCESS, ctx);
    if (rep.backend == MINV_BACKEND_CPU) {
        double mine = 0;
        for (int64_t m = 0; m < nbatch; m++) {
            double r = tu_inverse_ratio(k, member(&a, m), k, member(&x, m), k, 1.0);
            if (r > mine) mine = r;
        }
        CHECK(rep.residual_kind == 2 && fabs(rep.residual - mine) < 0.5 * mine + 1e-18, "full residual %.3g vs %.3g",
              rep.residual, mine);
    }
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
    free(a.a);
    free(x.a);
}

/* ---- the GPU against the CPU (where both exist) ---- */

static void gpu_against_cpu(minv_context *cpu, minv_context *gpu) {
    static const int64_t ks[] = {1, 2, 5, 8, 16, 17, 31, 32, 33, 48, 64, 65, 96, 128, 129, 200, 256, 500};
    tu_rng rng;
    tu_seed(&rng, 906);
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i], nbatch = k > 128 ? 3 : 37;
        for (int spd = 0; spd <= 1; spd++) {
            batch a = batch_new(k, nbatch, k, k * k), xc = batch_new(k, nbatch, k, k * k), xg = batch_new(k, nbatch, k, k * k);
            fill(&rng, &a, spd);
            minv_batch_report rc, rg;
            for (int kd = KIND_D; kd <= KIND_SD; kd++) {
                CHECK_STATUS(invert(cpu, (kind)kd, MINV_METHOD_AUTO, &a, &xc, NULL, &rc), MINV_SUCCESS, cpu);
                CHECK_STATUS(invert(gpu, (kind)kd, MINV_METHOD_AUTO, &a, &xg, NULL, &rg), MINV_SUCCESS, gpu);
                double worst = 0;
                for (int64_t m = 0; m < nbatch; m++) {
                    double d = tu_rel_diff(k, k, member(&xg, m), k, member(&xc, m), k);
                    if (d > worst) worst = d;
                }
                /* both are accurate to the conditioning; the random matrices are modest */
                CHECK(worst < 1e4 * (double)k * eps_of((kind)kd), "k %lld %s %s: GPU and CPU differ by %.3g", (long long)k,
                      spd ? "spd" : "general", kind_name[kd], worst);
                CHECK(rg.backend == MINV_BACKEND_GPU, "k %lld ran on the %s: %s", (long long)k, minv_backend_name(rg.backend),
                      rg.reason);
                CHECK(worst_inverse_ratio(&a, &xg, (kind)kd) < 30, "k %lld GPU ratio", (long long)k);
                printf("k %4lld %-7s %-2s GPU vs CPU: relative difference %.3g (%s)\n", (long long)k,
                       spd ? "spd" : "general", kind_name[kd], worst, rg.reason);
            }
            free(a.a); free(xc.a); free(xg.a);
        }
    }
}

int main(void) {
    minv_context *ctx[2];
    int count = tu_contexts(ctx);
    for (int c = 0; c < count; c++) {
        printf("== %s backend\n", minv_backend_name(minv_context_backend(ctx[c])));
        orders(ctx[c]);
        layouts(ctx[c]);
        solves(ctx[c]);
        bad_members(ctx[c]);
        float_rounded_symmetry(ctx[c]);
        errors(ctx[c]);
        residual_modes(ctx[c]);
        host_registration(ctx[c]);
    }
    if (count == 2)
        gpu_against_cpu(ctx[0], ctx[1]);
    for (int c = 0; c < count; c++) minv_destroy(ctx[c]);
    return tu_finish("test_batched");
}
