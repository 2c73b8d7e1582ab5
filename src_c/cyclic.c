/* The block-cyclic distribution of D = [A | B] over the GPUs of a multi-GPU Gauss-Jordan (the
 * many-RHS paper's section 2.3): the columns of A in blocks of nb, then those of B in blocks of
 * nb (B's first block starts afresh, so no block mixes A and B), block j on device j % ndev.
 * A device keeps its blocks in order, one after another, so the blocks after any step form a
 * contiguous tail of its local storage. */
#include "internal.h"

void minv_cyclic_init(minv_cyclic *c, int64_t n, int64_t rhs, int64_t nb, int ndev) {
    c->n = n;
    c->rhs = rhs;
    c->nb = nb;
    c->ndev = ndev;
    c->a_blocks = (n + nb - 1) / nb;
    c->blocks = c->a_blocks + (rhs + nb - 1) / nb;
    for (int d = 0; d < MINV_MAX_DEVICES; d++) c->rows[d] = 0;
    for (int64_t j = 0; j < c->blocks; j++) c->rows[minv_cyclic_owner(c, j)] += minv_cyclic_width(c, j);
}

int minv_cyclic_owner(const minv_cyclic *c, int64_t block) { return (int)(block % c->ndev); }

int64_t minv_cyclic_start(const minv_cyclic *c, int64_t block) {
    return block < c->a_blocks ? block * c->nb : (block - c->a_blocks) * c->nb;
}

int64_t minv_cyclic_width(const minv_cyclic *c, int64_t block) {
    const int64_t end = block < c->a_blocks ? c->n : c->rhs, start = minv_cyclic_start(c, block);
    return end - start < c->nb ? end - start : c->nb;
}

int64_t minv_cyclic_local_from(const minv_cyclic *c, int device, int64_t block) {
    int64_t offset = 0;
    for (int64_t j = device; j < block && j < c->blocks; j += c->ndev) offset += minv_cyclic_width(c, j);
    return offset;
}

int64_t minv_cyclic_local(const minv_cyclic *c, int64_t block) {
    return minv_cyclic_local_from(c, minv_cyclic_owner(c, block), block);
}
