/* What the minv command prints: one error line on stderr, the report on stdout, a progress
 * bar on stderr when it is a terminal, and the clean-up of temporary output on interruption. */
#include <float.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ncio.h"

int cli_error(int code, const char *fmt, ...) {
    char line[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    for (char *p = line; *p; p++) /* one line, whatever the message holds */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    cli_progress_done();
    fprintf(stderr, "minv: error: %s\n", line);
    return code;
}

int cli_fail(minv_context *ctx, minv_status status) {
    const char *detail = minv_last_error(ctx);
    return cli_error(CLI_FAILED, "%s", detail[0] ? detail : minv_status_string(status));
}

/* ---- the report ---- */

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

void cli_print_report(const char *title, const minv_report *r, minv_precision precision) {
    /* The reason is "; "-separated notes; the NetCDF layer's start with "read ", "wrote ",
     * "compute ", "batch: ", and the core's GPU note with "GPU not used:". The rest says why. */
    char reason[MINV_REASON_LEN], *notes[32];
    int nnotes = 0;
    snprintf(reason, sizeof reason, "%s", r->reason);
    for (char *p = reason; p && *p && nnotes < 32;) {
        notes[nnotes++] = p;
        p = strstr(p, "; ");
        if (p) {
            *p = '\0';
            p += 2;
        }
    }
    const char *gpu = "", *compute = NULL;
    int batch = 0;
    for (int k = 0; k < nnotes; k++) {
        if (starts(notes[k], "GPU not used:")) gpu = notes[k];
        if (starts(notes[k], "compute ")) compute = notes[k] + 8;
        batch |= starts(notes[k], "batch: ");
    }
    printf("%s\n", title);
    printf("%-10s %s\n", "method", minv_method_name(r->method));
    for (int k = 0; k < nnotes; k++)
        if (!starts(notes[k], "GPU not used:") && !starts(notes[k], "read ") && !starts(notes[k], "wrote ") &&
            !starts(notes[k], "compute ") && !starts(notes[k], "batch: "))
            printf("%-10s %s\n", "why", notes[k]);
    printf("%-10s %s%s%s%s\n", "backend", minv_backend_name(r->backend), gpu[0] ? " (" : "", gpu, gpu[0] ? ")" : "");
    printf("%-10s %lld\n", "n", (long long)r->n);
    if (r->nrhs > 0)
        printf("%-10s %lld\n", "nrhs", (long long)r->nrhs);
    if (compute)
        printf("%-10s %s\n", "time", compute);
    else
        printf("%-10s %.3f s\n", "time", r->seconds);
    printf("%-10s %.*f GFLOP/s\n", "rate", r->gflops >= 10 ? 1 : 3, r->gflops);
    if (r->iterations > 0)
        printf("%-10s %lld\n", "iterations", (long long)r->iterations);
    const double eps = precision == MINV_PRECISION_SINGLE ? FLT_EPSILON : DBL_EPSILON;
    if (r->residual_kind > 0 && r->residual >= 0)
        printf("%-10s %.2e (%.2g eps, %s)\n", "residual", r->residual, r->residual / eps,
               r->residual_kind == 1 ? "sampled" : "full");
    else
        printf("%-10s not computed\n", "residual");
    if (r->rcond >= 0)
        printf("%-10s %.2e (%s)\n", "rcond", r->rcond,
               batch ? "the least reciprocal inf-norm condition of the batch" : "reciprocal 1-norm condition estimate");
    for (int k = 0; k < nnotes; k++) {
        if (starts(notes[k], "read ")) printf("%-10s %s\n", "read", notes[k] + 5);
        if (starts(notes[k], "wrote ")) printf("%-10s %s\n", "wrote", notes[k] + 6);
        if (starts(notes[k], "batch: ")) printf("%-10s %s\n", "batch", notes[k] + 7);
    }
}

/* ---- progress ---- */

static struct {
    int checked, tty, drawn;
    double last;
} bar;

void cli_progress(void *user, const char *stage, double fraction) {
    (void)user;
    if (!bar.checked) {
        bar.checked = 1;
        bar.tty = isatty(STDERR_FILENO);
    }
    double now = minv_now();
    if (!bar.tty || (fraction < 1 && now - bar.last < 0.1))
        return;
    bar.last = now;
    int width = 30, done = (int)(fraction * width + 0.5);
    done = done < 0 ? 0 : done > width ? width : done;
    fprintf(stderr, "\r%-8s [%.*s%*s] %3.0f%%", stage, done, "##############################", width - done, "",
            100 * fraction);
    fflush(stderr);
    bar.drawn = 1;
}

void cli_progress_done(void) {
    if (bar.drawn)
        fprintf(stderr, "\r\033[K");
    bar.drawn = 0;
}

/* ---- interruption ---- */

static void remove_temporaries(int sig) {
    minv_nc_remove_temporaries(); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_guard_outputs(void) {
    signal(SIGINT, remove_temporaries);
    signal(SIGTERM, remove_temporaries);
    signal(SIGHUP, remove_temporaries);
}
