/* The float forms of the pointer and variable-size batch APIs that test_batched reaches in
 * double only: minv_invert_batched_ptr_s, minv_solve_batched_ptr_s/_sd and
 * minv_solve_batched_vsize_s/_sd, on every backend here. Each member is checked by the
 * LAPACK-tester ratio in float's eps against the input rounded to float (< 30); a float-storage,
 * double-compute (_sd) result must moreover be the double solve of that input rounded once to
 * float (1-norm difference below float's eps, which a float computation would not reach);
 * an empty member (order 0) is allowed and leaves the others alone. */
#include <float.h>
#include <stdlib.h>

#include "testutil.h"

enum { NB = 6, NRHS = 3 };
/* orders on both sides of the GPU's one-warp (32) and one-block (128) kernels, one empty */
static const int64_t orders[NB] = {1, 5, 32, 0, 33, 130};

/* One member: A (SPD for even members, general for odd), B, their float copies, and the
 * double solve of the rounded input. */
typedef struct {
    int64_t k, ld;
    double *a, *b, *x; /* a, b rounded to float values; x = A^-1 B in double */
    float *af, *bf, *xf;
} member;

static member member_new(tu_rng *rng, int64_t k, int spd) {
    member m = {k, k + 2, NULL, NULL, NULL, NULL, NULL, NULL};
    const int64_t n = k > 0 ? k : 1;
    m.a = tu_alloc(n, n, m.ld);
    m.b = tu_alloc(n, NRHS, m.ld);
    m.x = tu_alloc(n, NRHS, m.ld);
    if (k > 0 && spd) tu_spd(rng, k, m.a, m.ld);
    else if (k > 0) tu_general(rng, k, m.a, m.ld);
    tu_rect(rng, k, NRHS, m.b, m.ld);
    m.af = tu_to_float(k, k, m.a, m.ld, m.ld);
    m.bf = tu_to_float(k, NRHS, m.b, m.ld, m.ld);
    m.xf = tu_to_float(k, NRHS, m.b, m.ld, m.ld);
    free(m.a);
    free(m.b);
    m.a = tu_to_double(m.ld, k, m.af, m.ld);
    m.b = tu_to_double(m.ld, NRHS, m.bf, m.ld);
    if (k > 0) CHECK(tu_lapack_solve(k, NRHS, m.a, m.ld, m.b, m.ld, spd, m.x, m.ld) == 0, "reference solve");
    return m;
}

static void member_free(member *m) {
    free(m->a); free(m->b); free(m->x); free(m->af); free(m->bf); free(m->xf);
}

/* The float solution of member m, checked as the header says; `what` names the call. */
static void check_solution(const member *m, int double_compute, const char *what, minv_backend backend) {
    if (m->k == 0) return;
    double *x = tu_to_double(m->ld, NRHS, m->xf, m->ld);
    const double r = tu_solve_ratio(m->k, NRHS, m->a, m->ld, m->b, m->ld, x, m->ld, FLT_EPSILON);
    CHECK(r < 30, "%s k %lld on the %s: ratio %.3g", what, (long long)m->k, minv_backend_name(backend), r);
    if (double_compute) {
        const double d = tu_rel_diff(m->k, NRHS, x, m->ld, m->x, m->ld);
        CHECK(d < FLT_EPSILON, "%s k %lld on the %s: %.3g from the double solve, more than one rounding", what,
              (long long)m->k, minv_backend_name(backend), d);
    }
    free(x);
}

static void check_report(const minv_batch_report *rep, const minv_status *st, int64_t kmax, const char *what) {
    CHECK(rep->failed == 0 && rep->first_failed == -1 && rep->nbatch == NB && rep->k == kmax && rep->nrhs == NRHS,
          "%s report: failed %lld, first %lld, nbatch %lld, k %lld, nrhs %lld", what, (long long)rep->failed,
          (long long)rep->first_failed, (long long)rep->nbatch, (long long)rep->k, (long long)rep->nrhs);
    for (int b = 0; b < NB; b++)
        CHECK(st[b] == MINV_SUCCESS, "%s member %d: %s", what, b, minv_status_string(st[b]));
}

/* Pointer arrays of equal orders: every member of order k, leading dimension k + 2. */
static void pointer_forms(minv_context *ctx, tu_rng *rng, int64_t k) {
    member m[NB];
    const float *ap[NB], *bp[NB];
    float *xp[NB], *invp[NB];
    minv_status st[NB];
    minv_batch_report rep;
    for (int b = 0; b < NB; b++) {
        m[b] = member_new(rng, k, b % 2 == 0);
        ap[b] = m[b].af;
        bp[b] = m[b].bf;
        xp[b] = m[b].xf;
    }
    for (int sd = 0; sd <= 1; sd++) {
        const char *what = sd ? "minv_solve_batched_ptr_sd" : "minv_solve_batched_ptr_s";
        CHECK_STATUS((sd ? minv_solve_batched_ptr_sd : minv_solve_batched_ptr_s)(
                         ctx, MINV_METHOD_AUTO, k, NRHS, NB, ap, m[0].ld, bp, m[0].ld, xp, m[0].ld, st, &rep),
                     MINV_SUCCESS, ctx);
        check_report(&rep, st, k, what);
        for (int b = 0; b < NB; b++) check_solution(&m[b], sd, what, rep.backend);
    }
    /* inversion in place: each ainv[b] is a[b] */
    for (int b = 0; b < NB; b++) invp[b] = m[b].af;
    CHECK_STATUS(minv_invert_batched_ptr_s(ctx, MINV_METHOD_AUTO, k, NB, ap, m[0].ld, invp, m[0].ld, st, &rep),
                 MINV_SUCCESS, ctx);
    CHECK(rep.failed == 0 && rep.nrhs == 0 && rep.k == k, "minv_invert_batched_ptr_s report: failed %lld",
          (long long)rep.failed);
    for (int b = 0; b < NB; b++) {
        double *inv = tu_to_double(m[b].ld, k, m[b].af, m[b].ld);
        const double r = tu_inverse_ratio(k, m[b].a, m[b].ld, inv, m[b].ld, FLT_EPSILON);
        CHECK(st[b] == MINV_SUCCESS && r < 30, "minv_invert_batched_ptr_s k %lld member %d on the %s: %s, ratio %.3g",
              (long long)k, b, minv_backend_name(rep.backend), minv_status_string(st[b]), r);
        free(inv);
        member_free(&m[b]);
    }
}

/* Variable orders, one of them 0. */
static void vsize_forms(minv_context *ctx, tu_rng *rng) {
    member m[NB];
    const float *ap[NB], *bp[NB];
    float *xp[NB];
    int64_t ks[NB], ld[NB], kmax = 0;
    minv_status st[NB];
    minv_batch_report rep;
    for (int b = 0; b < NB; b++) {
        m[b] = member_new(rng, orders[b], b % 2 == 0);
        ks[b] = m[b].k;
        ld[b] = m[b].ld;
        ap[b] = m[b].af;
        bp[b] = m[b].bf;
        xp[b] = m[b].xf;
        if (ks[b] > kmax) kmax = ks[b];
    }
    for (int sd = 0; sd <= 1; sd++) {
        const char *what = sd ? "minv_solve_batched_vsize_sd" : "minv_solve_batched_vsize_s";
        CHECK_STATUS((sd ? minv_solve_batched_vsize_sd : minv_solve_batched_vsize_s)(
                         ctx, MINV_METHOD_AUTO, ks, NRHS, NB, ap, ld, bp, ld, xp, ld, st, &rep),
                     MINV_SUCCESS, ctx);
        check_report(&rep, st, kmax, what);
        for (int b = 0; b < NB; b++) check_solution(&m[b], sd, what, rep.backend);
    }
    for (int b = 0; b < NB; b++) member_free(&m[b]);
}

int main(void) {
    minv_context *ctx[2];
    const int count = tu_contexts(ctx);
    for (int c = 0; c < count; c++) {
        tu_rng rng;
        tu_seed(&rng, 1201);
        for (int i = 0; i < NB; i++)
            if (orders[i] > 0) pointer_forms(ctx[c], &rng, orders[i]);
        vsize_forms(ctx[c], &rng);
        minv_destroy(ctx[c]);
    }
    return tu_finish("test_batched_forms");
}
