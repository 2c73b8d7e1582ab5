/* What the minv command prints: one error line on stderr, the report (from its fields) on
 * stdout, a progress bar on stderr when it is a terminal, and the clean-up of temporary output
 * on interruption. */
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

void cli_print_stage(const char *label, double seconds, double bytes, const char *how) {
    printf("%-10s %.3g MB in %.3g s (%.0f MB/s)%s%s\n", label, bytes / 1e6, seconds,
           seconds > 0 ? bytes / 1e6 / seconds : 0.0, how ? " " : "", how ? how : "");
}

/* From the report's fields; the reason's notes (for people) are printed as they are, one a
 * line. */
void cli_print_report(const char *title, const minv_report *r, minv_precision precision) {
    printf("%s\n", title);
    printf("%-10s %s\n", "method", minv_method_name(r->method));
    for (const char *note = r->reason; *note;) {
        const char *end = strstr(note, "; ");
        const int len = end ? (int)(end - note) : (int)strlen(note);
        printf("%-10s %.*s\n", "why", len, note);
        note += len + (end ? 2 : 0);
    }
    char fallbacks[128] = "";
    for (int bit = 1; bit <= MINV_FALLBACK_PATH; bit <<= 1)
        if (r->fallbacks & bit)
            snprintf(fallbacks + strlen(fallbacks), sizeof fallbacks - strlen(fallbacks), "%s%s",
                     fallbacks[0] ? ", " : "", minv_fallback_name((minv_fallback)bit));
    printf("%-10s %s", "backend", minv_backend_name(r->backend));
    if (r->device >= 0)
        printf(" (device %d)", (int)r->device);
    printf("%s%s%s\n", fallbacks[0] ? " (fallback: " : "", fallbacks, fallbacks[0] ? ")" : "");
    printf("%-10s %lld\n", "n", (long long)r->n);
    if (r->nrhs > 0)
        printf("%-10s %lld\n", "nrhs", (long long)r->nrhs);
    const double files = r->stages.read_seconds + r->stages.write_seconds;
    if (files > 0)
        printf("%-10s %.3g s, %.3g s in all with reading and writing\n", "time", r->seconds, r->seconds + files);
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
               r->matrices > 1 ? "the least reciprocal inf-norm condition of the batch" : "reciprocal 1-norm condition estimate");
    if (r->recondition != MINV_RECONDITION_NONE)
        printf("%-10s %s: condition number %.3g -> %.3g\n", "recondition", minv_recondition_name((minv_recondition)r->recondition),
               r->condition_before, r->condition_after);
    /* the stages, where the time went */
    if (r->stages.read_bytes > 0)
        cli_print_stage("read", r->stages.read_seconds, r->stages.read_bytes, NULL);
    if (r->stages.upload_bytes > 0)
        cli_print_stage("upload", r->stages.upload_seconds, r->stages.upload_bytes, NULL);
    printf("%-10s %.3g s\n", "compute", r->stages.compute_seconds);
    if (r->stages.download_bytes > 0)
        cli_print_stage("download", r->stages.download_seconds, r->stages.download_bytes, NULL);
    if (r->stages.write_bytes > 0)
        cli_print_stage("wrote", r->stages.write_seconds, r->stages.write_bytes, "(fsynced)");
    if (r->matrices > 1)
        printf("%-10s %lld matrices, the largest residual is matrix %lld's (0-based)\n", "batch", (long long)r->matrices,
               (long long)r->worst);
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

static char *guarded[4];

static void remove_guarded(int sig) {
    for (size_t k = 0; k < sizeof guarded / sizeof guarded[0]; k++)
        if (guarded[k])
            unlink(guarded[k]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_guard_output(const char *path) {
    for (size_t k = 0; k < sizeof guarded / sizeof guarded[0]; k++)
        if (!guarded[k]) {
            guarded[k] = minv_nc_tmp_name(path);
            break;
        }
    signal(SIGINT, remove_guarded);
    signal(SIGTERM, remove_guarded);
    signal(SIGHUP, remove_guarded);
}
