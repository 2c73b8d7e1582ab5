/* Status strings, names, and the per-context error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *minv_status_string(minv_status status) {
    switch (status) {
    case MINV_SUCCESS: return "success";
    case MINV_ERR_INVALID_ARG: return "invalid argument";
    case MINV_ERR_ALLOC: return "host memory allocation failed";
    case MINV_ERR_NOT_FINITE: return "input contains NaN, Inf or a missing value";
    case MINV_ERR_SINGULAR: return "matrix is singular";
    case MINV_ERR_NOT_SPD: return "matrix is not symmetric positive definite";
    case MINV_ERR_NO_CONVERGENCE: return "iteration did not converge";
    case MINV_ERR_NOT_IMPLEMENTED: return "method not implemented on this backend";
    case MINV_ERR_NO_GPU: return "no usable GPU";
    case MINV_ERR_GPU: return "GPU error";
    case MINV_ERR_DEVICE_MEMORY: return "out of device memory";
    case MINV_ERR_SHAPE: return "wrong shape";
    case MINV_ERR_IO: return "file input/output error";
    case MINV_ERR_NOT_FOUND: return "file or variable not found";
    case MINV_ERR_INTERNAL: return "internal error in minv";
    case MINV_ERR_CONTEXT_BUSY:
        return "context in use by another thread (give each thread its own context)";
    }
    return "unknown status";
}

const char *minv_method_name(minv_method method) {
    switch (method) {
    case MINV_METHOD_AUTO: return "auto";
    case MINV_METHOD_CHOLESKY: return "cholesky";
    case MINV_METHOD_LU: return "lu";
    case MINV_METHOD_GAUSS_JORDAN: return "gauss-jordan";
    case MINV_METHOD_ITERATIVE: return "iterative";
    case MINV_METHOD_TRIDIAGONAL: return "tridiagonal";
    }
    return "unknown";
}

const char *minv_backend_name(minv_backend backend) {
    switch (backend) {
    case MINV_BACKEND_AUTO: return "auto";
    case MINV_BACKEND_CPU: return "cpu";
    case MINV_BACKEND_GPU: return "gpu";
    }
    return "unknown";
}

const char *minv_fallback_name(minv_fallback fallback) {
    switch (fallback) {
    case MINV_FALLBACK_NO_GPU: return "no-gpu";
    case MINV_FALLBACK_CPU: return "cpu";
    case MINV_FALLBACK_LU: return "lu";
    case MINV_FALLBACK_DIRECT: return "direct";
    case MINV_FALLBACK_PATH: return "path";
    }
    return "unknown";
}

const char *minv_recondition_name(minv_recondition recondition) {
    switch (recondition) {
    case MINV_RECONDITION_NONE: return "none";
    case MINV_RECONDITION_RIDGE: return "ridge";
    case MINV_RECONDITION_FLOOR: return "floor";
    }
    return "unknown";
}

const char *minv_version(void) { return MINV_VERSION_STRING; }

const char *minv_last_error(const minv_context *ctx) {
    return ctx ? ctx->last_error : minv_create_error();
}

minv_status minv_fail(minv_context *ctx, minv_status status, const char *fmt, ...) {
    if (ctx) {
        int len = snprintf(ctx->last_error, sizeof ctx->last_error, "%s: ",
                           minv_status_string(status));
        if (len < 0 || (size_t)len >= sizeof ctx->last_error)
            len = 0;
        va_list args;
        va_start(args, fmt);
        vsnprintf(ctx->last_error + len, sizeof ctx->last_error - (size_t)len, fmt, args);
        va_end(args);
    }
    return status;
}

const char *minv_error_detail(const minv_context *ctx, minv_status status) {
    const char *prefix = minv_status_string(status);
    const size_t n = strlen(prefix);
    return strncmp(ctx->last_error, prefix, n) == 0 && strncmp(ctx->last_error + n, ": ", 2) == 0 ? ctx->last_error + n + 2
                                                                                                    : ctx->last_error;
}

void minv_clear_error(minv_context *ctx) { ctx->last_error[0] = '\0'; }

/* Appends "; <note>". A reason that would pass the struct's size is cut, and ends in "..." so
 * that the cut shows; later notes are dropped (the fields carry what programs need). */
void minv_reason_vnote(char *reason, size_t size, const char *fmt, va_list args) {
    static const char cut[] = "...";
    size_t len = strlen(reason);
    if (len >= sizeof cut - 1 && strcmp(reason + len - (sizeof cut - 1), cut) == 0)
        return; /* already cut */
    char text[2 * MINV_REASON_LEN];
    int wrote = vsnprintf(text, sizeof text, fmt, args);
    const size_t need = (len > 0 ? 2 : 0) + (wrote > 0 ? (size_t)wrote : 0);
    if (len + need < size && (size_t)wrote < sizeof text) {
        snprintf(reason + len, size - len, "%s%s", len > 0 ? "; " : "", text);
        return;
    }
    snprintf(reason + len, size - len, "%s%s", len > 0 ? "; " : "", text);
    memcpy(reason + size - sizeof cut, cut, sizeof cut); /* the last characters, and the NUL */
}

void minv_report_note_text(minv_report *r, const char *text) {
    size_t len = strlen(r->reason), add = strlen(text);
    if (len > 0 && len + 2 < sizeof r->reason) {
        memcpy(r->reason + len, "; ", 2);
        len += 2;
    }
    if (len + add >= sizeof r->reason) add = sizeof r->reason - len - 1;
    minv_copy_bytes(r->reason + len, text, add);
    r->reason[len + add] = '\0';
}

void minv_report_note(minv_report *r, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    if (strcmp(fmt, "%s") == 0) /* a fixed text, as most notes are: no formatting per call */
        minv_report_note_text(r, va_arg(args, const char *));
    else
        minv_reason_vnote(r->reason, sizeof r->reason, fmt, args);
    va_end(args);
}

void minv_batch_note(minv_batch_report *r, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    minv_reason_vnote(r->reason, sizeof r->reason, fmt, args);
    va_end(args);
}
