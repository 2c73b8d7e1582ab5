/* What the minv command prints: one error line on stderr, the report (from its fields) on
 * stdout, a progress line on stderr when it is a terminal, and the clean-up of temporary output
 * on interruption. */
#include <float.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* the core's note on why AUTO got no GPU */
static const char cpu_note[] = "CPU backend: ";

int cli_notes(const char *reason, char copy[MINV_REASON_LEN], char *notes[CLI_MAX_NOTES]) {
    int nnotes = 0;
    snprintf(copy, MINV_REASON_LEN, "%s", reason);
    /* a note may hold "; " within parentheses: only those outside part notes */
    char *start = copy;
    int depth = 0;
    for (char *p = copy; *p && nnotes < CLI_MAX_NOTES - 1; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && depth > 0)
            depth--;
        else if (depth == 0 && p[0] == ';' && p[1] == ' ') {
            *p++ = '\0';
            notes[nnotes++] = start;
            start = p + 1;
        }
    }
    if (*start)
        notes[nnotes++] = start;
    return nnotes;
}

int cli_is_why(const char *note) { return !starts(note, cpu_note); }

void cli_stage_text(char *buf, size_t len, double seconds, double bytes, const char *how) {
    const double rate = seconds > 0 ? bytes / 1e6 / seconds : 0.0;
    /* two decimals below 10 MB/s, where whole numbers would say 0 for a small, slow write */
    snprintf(buf, len, "%.3g MB in %.3g s (%.*f MB/s)%s%s", bytes / 1e6, seconds, rate < 10 ? 2 : 0, rate, how ? " " : "",
             how ? how : "");
}

void cli_print_stage(const char *label, double seconds, double bytes, const char *how) {
    char text[512];
    cli_stage_text(text, sizeof text, seconds, bytes, how);
    printf("%-10s %s\n", label, text);
}

/* From the report's fields; the reason's notes (for people) are printed as they are, one a
 * line, but for the note on why AUTO got no GPU, which goes with the backend. */
void cli_print_report(const char *title, const minv_report *r, minv_precision precision) {
    char reason[MINV_REASON_LEN], *notes[CLI_MAX_NOTES];
    const int nnotes = cli_notes(r->reason, reason, notes);
    const char *gpu = "";
    for (int k = 0; k < nnotes; k++)
        if (!cli_is_why(notes[k]))
            gpu = notes[k] + strlen(cpu_note);
    printf("%s\n", title);
    printf("%-10s %s\n", "method", minv_method_name(r->method));
    for (int k = 0; k < nnotes; k++)
        if (cli_is_why(notes[k]))
            printf("%-10s %s\n", "why", notes[k]);
    char fallbacks[128] = "";
    for (int bit = 1; bit <= MINV_FALLBACK_PATH; bit <<= 1)
        if (r->fallbacks & bit)
            snprintf(fallbacks + strlen(fallbacks), sizeof fallbacks - strlen(fallbacks), "%s%s",
                     fallbacks[0] ? ", " : "", minv_fallback_name((minv_fallback)bit));
    printf("%-10s %s", "backend", minv_backend_name(r->backend));
    if (r->device >= 0)
        printf(" (device %d)", (int)r->device);
    printf("%s%s%s", fallbacks[0] ? " (fallback: " : "", fallbacks, fallbacks[0] ? ")" : "");
    printf("%s%s%s\n", gpu[0] ? " (" : "", gpu, gpu[0] ? ")" : "");
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
    if (r->rcond >= 0) /* the eigenvalue floor's rcond is 1 / cond_2 of the matrix it inverted (its note says so) */
        printf("%-10s %.2e (%s)\n", "rcond", r->rcond,
               r->recondition == MINV_RECONDITION_FLOOR ? "reciprocal 2-norm condition of the reconditioned matrix"
               : r->matrices > 1                        ? "the least reciprocal inf-norm condition of the batch"
                                                        : "reciprocal 1-norm condition estimate");
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

/* One line on stderr, redrawn in place: the stage, a bar of its fraction, and the seconds since
 * the first report. The library reports a stage from whichever thread runs it; a single long
 * library call (a LAPACK factorisation) reports only its start, so a ticker thread redraws the
 * line meanwhile to keep the seconds moving. */
enum { STAGE_LEN = 32 };
static const double REDRAW = 0.1, TICK = 0.25; /* seconds */

static struct {
    pthread_mutex_t lock;
    int checked, tty, drawn, ticking, stop;
    pthread_t ticker;
    char stage[STAGE_LEN];
    double fraction, t0, last;
} bar = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void draw(double now) {
    int width = 30, done = (int)(bar.fraction * width + 0.5);
    done = done < 0 ? 0 : done > width ? width : done;
    fprintf(stderr, "\r%-16.16s [%.*s%*s] %3.0f%% %6.1f s\033[K", bar.stage, done, "##############################",
            width - done, "", 100 * bar.fraction, now - bar.t0);
    fflush(stderr);
    bar.drawn = 1;
    bar.last = now;
}

static void *tick(void *unused) {
    (void)unused;
    const struct timespec pause = {0, (long)(TICK * 1e9)};
    for (;;) {
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&bar.lock);
        if (bar.stop) {
            pthread_mutex_unlock(&bar.lock);
            return NULL;
        }
        double now = minv_now();
        if (bar.drawn && now - bar.last >= TICK)
            draw(now);
        pthread_mutex_unlock(&bar.lock);
    }
}

void cli_progress(void *user, const char *stage, double fraction) {
    (void)user;
    pthread_mutex_lock(&bar.lock);
    if (!bar.checked) {
        bar.checked = 1;
        bar.tty = isatty(STDERR_FILENO);
        bar.t0 = minv_now();
    }
    if (bar.tty) {
        double now = minv_now();
        int new_stage = strncmp(stage, bar.stage, STAGE_LEN - 1) != 0;
        if (new_stage)
            snprintf(bar.stage, sizeof bar.stage, "%s", stage);
        bar.fraction = fraction;
        if (new_stage || fraction >= 1 || now - bar.last >= REDRAW)
            draw(now);
        if (!bar.ticking) {
            bar.stop = 0;
            bar.ticking = pthread_create(&bar.ticker, NULL, tick, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&bar.lock);
}

void cli_progress_done(void) {
    pthread_mutex_lock(&bar.lock);
    const int joining = bar.ticking;
    bar.stop = 1;
    bar.ticking = 0;
    if (bar.drawn)
        fprintf(stderr, "\r\033[K");
    bar.drawn = 0;
    bar.stage[0] = '\0';
    pthread_mutex_unlock(&bar.lock);
    if (joining)
        pthread_join(bar.ticker, NULL);
}

/* ---- interruption ---- */

static void (*volatile remover)(void);

static void remove_temporaries(int sig) {
    remover(); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_guard_outputs(void (*remove)(void)) {
    remover = remove;
    signal(SIGINT, remove_temporaries);
    signal(SIGTERM, remove_temporaries);
    signal(SIGHUP, remove_temporaries);
}
