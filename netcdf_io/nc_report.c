/* What the file routines add to a report, and the report as attributes of the output: the read
 * and write stages as fields, how the values moved as notes for people, and the fields on the
 * output variable so that a file says how it was made. */
#include <stdio.h>
#include <string.h>

#include "ncio.h"

void minv_nc_source_how(const minv_nc_source *s, char *buf, size_t len) {
    char batch[64] = "";
    const char *threads = s->threads == 1 ? "" : "s";
    if (s->batch_reads > 0)
        snprintf(batch, sizeof batch, "in %lld read%s of whole matrices ", (long long)s->batch_reads,
                 s->batch_reads == 1 ? "" : "s");
    if (s->direct_units > 0 && s->direct.kind == MINV_NC_DIRECT_CHUNKED)
        snprintf(buf, len, "%sas %lld chunk%s of %zu x %zu%s, directly on %d thread%s", batch, (long long)s->direct_units,
                 s->direct_units == 1 ? "" : "s", s->chunk[0], s->chunk[1], s->direct.nfilters ? " decompressed" : "", s->threads,
                 threads);
    else if (s->direct_units > 0)
        snprintf(buf, len, "%sas %lld block%s of rows, directly on %d thread%s", batch, (long long)s->direct_units,
                 s->direct_units == 1 ? "" : "s", s->threads, threads);
    else if (s->batch_reads > 0)
        snprintf(buf, len, "%sthrough NetCDF-C (%s)", batch, s->direct.why_not);
    else
        snprintf(buf, len, "as %lld tile%s of %zu x %zu (%s) through NetCDF-C (%s)", (long long)s->tiles,
                 s->tiles == 1 ? "" : "s", s->tile[0], s->tile[1], s->tile_rule, s->direct.why_not);
}

void minv_nc_sink_how(const minv_nc_sink *w, char *buf, size_t len) {
    const char *threads = w->threads == 1 ? "" : "s";
    if (w->direct_units > 0 && w->chunk_note[0])
        snprintf(buf, len, "%s, directly on %d thread%s", w->chunk_note, w->threads, threads);
    else if (w->direct_units > 0)
        snprintf(buf, len, "as blocks of rows, directly on %d thread%s", w->threads, threads);
    else
        snprintf(buf, len, "through NetCDF-C (%s)", w->why_not);
}

void minv_nc_report_stages(minv_report *r, const minv_nc_source *const *in, int nin, const minv_nc_sink *out,
                           double commit_seconds) {
    r->stages.read_seconds = r->stages.read_bytes = 0;
    for (int k = 0; k < nin; k++) {
        r->stages.read_seconds += in[k]->seconds;
        r->stages.read_bytes += in[k]->bytes;
    }
    r->stages.write_seconds = out->seconds + commit_seconds;
    r->stages.write_bytes = out->bytes;
}

void minv_nc_report_notes(minv_report *r, const minv_nc_source *const *in, int nin, const char *what,
                          const minv_nc_sink *out) {
    char how[256];
    if (what)
        minv_report_note(r, "read %s", what);
    for (int k = 0; k < nin && !what; k++) {
        minv_nc_source_how(in[k], how, sizeof how);
        minv_report_note(r, "read '%s' %s", in[k]->var, how);
    }
    minv_nc_report_output_notes(r, out, NULL);
}

void minv_nc_report_output_notes(minv_report *r, const minv_nc_sink *out, const char *how) {
    char own[256];
    if (!how) {
        minv_nc_sink_how(out, own, sizeof own);
        how = own;
    }
    minv_report_note(r, "wrote '%s' as %s %s", out->path, out->var, how);
    if (out->out.stale_removed > 0)
        minv_report_note(r, "removed %d temporary file%s of '%s' left by minv runs that died", out->out.stale_removed,
                         out->out.stale_removed == 1 ? "" : "s", out->path);
    if (out->format_note[0])
        minv_report_note(r, "%s", out->format_note);
    if (out->not_carried[0])
        minv_report_note(r, "not carried from %s: %s", out->spec.from->var, out->not_carried);
}

int minv_nc_report_attrs(const minv_report *r, minv_nc_attr_store *store, minv_nc_attr *attrs, int n) {
    static const char *const names[] = {"minv_read_seconds", "minv_read_bytes", "minv_upload_seconds",
                                        "minv_upload_bytes", "minv_compute_seconds", "minv_download_seconds",
                                        "minv_download_bytes", "minv_write_seconds", "minv_write_bytes", "minv_device"};
    const double values[] = {r->stages.read_seconds,   r->stages.read_bytes,     r->stages.upload_seconds, r->stages.upload_bytes, r->stages.compute_seconds,
                             r->stages.download_seconds, r->stages.download_bytes, r->stages.write_seconds, r->stages.write_bytes, (double)r->device};
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++) {
        store->values[k] = values[k];
        attrs[n++] = (minv_nc_attr){names[k], NULL, &store->values[k], 1};
    }
    attrs[n++] = (minv_nc_attr){"minv_stages",
                                "seconds and bytes of the job's stages: read (the inputs, as stored), upload and "
                                "download (host-device copies), compute (the library call less its copies), write "
                                "(this variable's values, before the file was closed and synced); minv_device: the CUDA "
                                "device, -1 for the CPU",
                                NULL, 0};
    store->fallbacks[0] = '\0';
    for (int bit = 1; bit <= MINV_FALLBACK_PATH; bit <<= 1)
        if (r->fallbacks & bit) {
            const size_t used = strlen(store->fallbacks);
            snprintf(store->fallbacks + used, sizeof store->fallbacks - used, "%s%s", used ? ", " : "",
                     minv_fallback_name((minv_fallback)bit));
        }
    attrs[n++] = (minv_nc_attr){"minv_fallbacks", store->fallbacks[0] ? store->fallbacks : "none", NULL, 0};
    attrs[n++] = (minv_nc_attr){"minv_recondition", minv_recondition_name((minv_recondition)r->recondition), NULL, 0};
    if (r->condition_before >= 0) {
        store->values[10] = r->recondition_shift;
        store->values[11] = r->condition_before;
        store->values[12] = r->condition_after;
        attrs[n++] = (minv_nc_attr){"minv_recondition_shift", NULL, &store->values[10], 1};
        attrs[n++] = (minv_nc_attr){"minv_condition_before", NULL, &store->values[11], 1};
        attrs[n++] = (minv_nc_attr){"minv_condition_after", NULL, &store->values[12], 1};
    }
    return n;
}
