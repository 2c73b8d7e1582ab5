/* Type template for iterative.c's CPU engine: the element-wise parts of a step. */

/* dst += gamma I, and ||I - dst||_F^2 into *sumsq when it is not NULL. */
static void FN(diagonal_and_residual)(minv_mat *d, double gamma, double *sumsq, int threads) {
    T *a = (T *)d->data;
    const int64_t n = d->rows, ld = d->ld;
    if (gamma != 0)
        for (int64_t i = 0; i < n; i++) a[(size_t)i * ld + i] += (T)gamma;
    if (!sumsq)
        return;
    double s = 0;
    const int nt = minv_threads_for(threads, (double)n * (double)n);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        minv_worker w;
        minv_worker_begin(&w);
        double part = 0;
#pragma omp for schedule(static)
        for (int64_t j = 0; j < n; j++) {
            const T *col = a + (size_t)j * ld;
            for (int64_t i = 0; i < n; i++) {
                double e = (double)col[i] - (i == j ? 1.0 : 0.0);
                part += e * e;
            }
        }
#pragma omp atomic
        s += part;
        minv_worker_end(&w);
    }
    *sumsq = s;
}

static void FN(guess)(const minv_mat *a, minv_mat *d, minv_guess kind, double scale, int threads) {
    const T *src = (const T *)a->data;
    T *dst = (T *)d->data;
    const int64_t n = d->rows, lda = a->ld, ld = d->ld, tile = 64;
    const int nt = minv_threads_for(threads, (double)n * (double)n);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        minv_worker w;
        minv_worker_begin(&w);
#pragma omp for schedule(static)
        for (int64_t jj = 0; jj < n; jj += tile)
            for (int64_t ii = 0; ii < n; ii += tile)
                for (int64_t j = jj; j < jj + tile && j < n; j++)
                    for (int64_t i = ii; i < ii + tile && i < n; i++) {
                        T v = 0;
                        if (kind == MINV_GUESS_TRANSPOSE) v = (T)(scale * (double)src[(size_t)i * lda + j]);
                        else if (i == j) v = kind == MINV_GUESS_DIAGONAL ? (T)(1.0 / (double)src[(size_t)i * lda + i]) : (T)scale;
                        dst[(size_t)j * ld + i] = v;
                    }
        minv_worker_end(&w);
    }
}
