/* The block-cyclic distribution of multi-GPU Gauss-Jordan (src_c/cyclic.c) for 1 to 8
 * devices, on the CPU: every column of D = [A | B'] lands on exactly one device, each device
 * holds its blocks one after another in order, the blocks after any step form a tail of its
 * storage (what the elimination updates), and the blocks are dealt evenly. */
#include <stdlib.h>

#include "internal.h"
#include "testutil.h"

static void check_layout(int64_t n, int64_t rhs, int64_t nb, int ndev) {
    minv_cyclic c;
    int64_t offset[MINV_MAX_DEVICES] = {0}, count[MINV_MAX_DEVICES] = {0}, a_count[MINV_MAX_DEVICES] = {0};
    int64_t next_a = 0, next_b = 0, total = 0;
    minv_cyclic_init(&c, n, rhs, nb, ndev);
    CHECK(c.a_blocks == (n + nb - 1) / nb && c.blocks == c.a_blocks + (rhs + nb - 1) / nb,
          "n=%lld rhs=%lld nb=%lld: %lld blocks", (long long)n, (long long)rhs, (long long)nb, (long long)c.blocks);
    for (int64_t j = 0; j < c.blocks; j++) {
        const int d = minv_cyclic_owner(&c, j);
        const int64_t start = minv_cyclic_start(&c, j), w = minv_cyclic_width(&c, j);
        int64_t *next = j < c.a_blocks ? &next_a : &next_b;
        CHECK(d >= 0 && d < ndev, "block %lld on device %d of %d", (long long)j, d, ndev);
        CHECK(start == *next && w >= 1 && w <= nb, "block %lld: start %lld (expected %lld), width %lld", (long long)j,
              (long long)start, (long long)*next, (long long)w);
        CHECK(minv_cyclic_local(&c, j) == offset[d], "block %lld: local %lld, expected %lld", (long long)j,
              (long long)minv_cyclic_local(&c, j), (long long)offset[d]);
        *next += w;
        offset[d] += w;
        count[d]++;
        if (j < c.a_blocks) a_count[d]++;
    }
    CHECK(next_a == n && next_b == rhs, "columns covered: %lld of A, %lld of B'", (long long)next_a, (long long)next_b);
    for (int d = 0; d < ndev; d++) {
        total += c.rows[d];
        CHECK(c.rows[d] == offset[d], "device %d: %lld rows, blocks sum to %lld", d, (long long)c.rows[d],
              (long long)offset[d]);
        CHECK(count[d] >= count[0] - 1 && count[d] <= count[0] && a_count[d] >= a_count[0] - 1 &&
                  a_count[d] <= a_count[0],
              "dealt unevenly: device %d has %lld blocks (%lld of A), device 0 %lld (%lld)", d, (long long)count[d],
              (long long)a_count[d], (long long)count[0], (long long)a_count[0]);
        for (int64_t k = 0; k <= c.blocks; k++) { /* the tail from block k on */
            int64_t from = c.rows[d];
            for (int64_t j = c.blocks - 1; j >= k; j--)
                if (minv_cyclic_owner(&c, j) == d) from = minv_cyclic_local(&c, j);
            CHECK(minv_cyclic_local_from(&c, d, k) == from, "device %d from block %lld: %lld, expected %lld", d,
                  (long long)k, (long long)minv_cyclic_local_from(&c, d, k), (long long)from);
        }
    }
    CHECK(total == n + rhs, "%lld columns stored of %lld", (long long)total, (long long)(n + rhs));
}

int main(void) {
    static const int64_t sizes[] = {1, 5, 64, 100, 1000, 16384};
    static const int64_t rhs[] = {0, 1, 3, 64, 130};
    static const int64_t nbs[] = {1, 7, 64, 512};
    for (int ndev = 1; ndev <= 8; ndev++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t r = 0; r < sizeof rhs / sizeof rhs[0]; r++)
                for (size_t b = 0; b < sizeof nbs / sizeof nbs[0]; b++)
                    if (sizes[s] / nbs[b] <= 300) check_layout(sizes[s], rhs[r], nbs[b], ndev);
    return tu_finish("test_cyclic");
}
