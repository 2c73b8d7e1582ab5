/* The metadata an output carries over from its input, as NCO and CDO users expect:
 *   - a new file takes the input file's global attributes (title, institution, Conventions);
 *   - history gains a first line, "<date>: <command line> (<what minv did>)", before the
 *     history it had (the input's, for a new file), as NCO prepends its commands;
 *   - the output variable keeps the input variable's attributes that still hold for it: not
 *     those about the stored values (_FillValue, missing_value, valid_*, scale_factor,
 *     add_offset, actual_range, flag_*), its quantity (standard_name; long_name is minv's
 *     own), facts about the input's values (cell_methods, axis, positive, calendar), nor
 *     references to variables the output may lack (coordinates, bounds, grid_mapping,
 *     cell_measures, ancillary_variables, formula_terms). Units become their inverse, or B's
 *     over A's for a solve, where they read as a product of powers of symbols ("m2 s-2",
 *     "K^2", "kg.m-2", "m/s", "1"); otherwise the caller drops them and says so. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ncio.h"

/* ---- units: a product of powers of symbols ---- */

enum { MAX_FACTORS = 16 };

typedef struct {
    char symbol[32];
    int power;
} factor;

typedef struct {
    factor f[MAX_FACTORS];
    int n;
} unit_product;

static int add_factor(unit_product *u, const char *symbol, size_t len, int power) {
    if (len == 0 || len >= sizeof u->f[0].symbol)
        return 0;
    for (int k = 0; k < u->n; k++)
        if (strlen(u->f[k].symbol) == len && strncmp(u->f[k].symbol, symbol, len) == 0) {
            u->f[k].power += power;
            return 1;
        }
    if (u->n == MAX_FACTORS)
        return 0;
    snprintf(u->f[u->n].symbol, sizeof u->f[0].symbol, "%.*s", (int)len, symbol);
    u->f[u->n++].power = power;
    return 1;
}

/* UDUNITS' simple grammar: factors apart by spaces, '.' or '*', each a symbol of letters (and
 * '_', '%') with an optional integer power (m2, m^2, m**2, s-1); one '/' puts what follows in
 * the denominator; "1" alone is dimensionless. 0 for anything else: numbers, offsets ("degC
 * since"), parentheses, logarithms. `sign` is +1 or -1 (the units are divided by). */
static int parse_units(const char *text, int sign, unit_product *u) {
    const char *p = text;
    int side = 1, factors = 0;
    while (*p) {
        if (isspace((unsigned char)*p) || *p == '.' || *p == '*') {
            p++;
            continue;
        }
        if (*p == '/') {
            if (side < 0 || !factors)
                return 0;
            side = -1;
            p++;
            continue;
        }
        if (*p == '1' && (!p[1] || isspace((unsigned char)p[1]) || p[1] == '/')) { /* a bare 1 */
            p++;
            factors++;
            continue;
        }
        const char *start = p;
        while (isalpha((unsigned char)*p) || *p == '_' || *p == '%')
            p++;
        size_t len = (size_t)(p - start);
        if (!len)
            return 0;
        if (*p == '^')
            p++;
        else if (p[0] == '*' && p[1] == '*')
            p += 2;
        int power = 1;
        if (*p == '-' || *p == '+' || isdigit((unsigned char)*p)) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p || v < -99 || v > 99)
                return 0;
            power = (int)v;
            p = end;
        }
        if (!add_factor(u, start, len, sign * side * power))
            return 0;
        factors++;
    }
    return factors > 0;
}

int minv_nc_units_ratio(const char *num, const char *den, char *out, size_t len) {
    unit_product u = {.n = 0};
    if ((num && !parse_units(num, 1, &u)) || (den && !parse_units(den, -1, &u)))
        return 0;
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < u.n && used < len; k++) {
        if (u.f[k].power == 0)
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", u.f[k].symbol);
        if (u.f[k].power != 1 && used < len)
            used += (size_t)snprintf(out + used, len - used, "%d", u.f[k].power);
    }
    if (!out[0])
        snprintf(out, len, "1");
    return used < len;
}

char *minv_nc_text_att_dup(int grpid, int varid, const char *name, nc_type *type) {
    size_t n;
    char *text = NULL;
    if (nc_inq_att(grpid, varid, name, type, &n) != NC_NOERR)
        return NULL;
    if (*type == NC_STRING && n == 1) { /* netCDF-4's variable-length string (h5py, h5netcdf write them) */
        char *s = NULL;
        if (nc_get_att_string(grpid, varid, name, &s) == NC_NOERR && s)
            text = strdup(s);
        nc_free_string(1, &s);
        return text;
    }
    if (*type != NC_CHAR || !(text = calloc(n + 1, 1)))
        return NULL;
    if (nc_get_att_text(grpid, varid, name, text) != NC_NOERR) {
        free(text);
        return NULL;
    }
    return text;
}

int minv_nc_text_att(int grpid, int varid, const char *name, char *buf, size_t len) {
    nc_type type;
    char *text = minv_nc_text_att_dup(grpid, varid, name, &type);
    const int fits = text && strlen(text) < len;
    if (fits)
        strcpy(buf, text);
    free(text);
    return fits;
}

/* ---- attributes ---- */

/* What does not hold for a result computed from the variable (see the top). */
static int stays_behind(const char *name) {
    static const char *const names[] = {
        "_FillValue", "missing_value", "valid_min", "valid_max", "valid_range", "scale_factor", "add_offset",
        "actual_range", "actual_min", "actual_max", "flag_values", "flag_masks", "flag_meanings", "standard_name",
        "long_name", "units", "cell_methods", "axis", "positive", "calendar", "coordinates", "bounds", "grid_mapping",
        "cell_measures", "ancillary_variables", "formula_terms", "compress", "history"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k]) == 0)
            return 1;
    return strncmp(name, "minv_", 5) == 0 || name[0] == '_';
}

void minv_nc_list_name(char *list, size_t len, const char *name) {
    size_t used = strlen(list);
    if (used + strlen(name) + 3 < len)
        snprintf(list + used, len - used, "%s%s", used ? ", " : "", name);
}

/* nc_copy_att's and nc_put_att's errors for an attribute type the output's format lacks. */
static int lacks_type(int st) { return st == NC_EBADTYPE || st == NC_ESTRICTNC3 || st == NC_ENOTNC4 || st == NC_ECHAR; }

int minv_nc_copy_atts(int from_grpid, int from_varid, int to_ncid, int to_varid, char *dropped, char *lacking, size_t len) {
    int natts = 0;
    int st = from_varid == NC_GLOBAL ? nc_inq_natts(from_grpid, &natts) : nc_inq_varnatts(from_grpid, from_varid, &natts);
    for (int a = 0; st == NC_NOERR && a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        if ((st = nc_inq_attname(from_grpid, from_varid, a, name)) != NC_NOERR)
            break;
        /* globals: all but history (which gains a line) and the library's own */
        if (from_varid == NC_GLOBAL ? strcmp(name, "history") == 0 || name[0] == '_' : stays_behind(name)) {
            /* of the reserved names only _FillValue says something of the values a reader may
             * look for; _Netcdf4Dimid and the like are storage */
            if (from_varid != NC_GLOBAL && strcmp(name, "long_name") != 0 && strcmp(name, "units") != 0 &&
                strncmp(name, "minv_", 5) != 0 && (name[0] != '_' || strcmp(name, "_FillValue") == 0))
                minv_nc_list_name(dropped, len, name);
            continue;
        }
        int put = nc_copy_att(from_grpid, from_varid, name, to_ncid, to_varid);
        if (lacks_type(put)) {
            /* a type the output's format lacks: a single string (h5netcdf's title) goes as text */
            nc_type type;
            char *text = minv_nc_text_att_dup(from_grpid, from_varid, name, &type);
            if (text && type == NC_STRING)
                put = nc_put_att_text(to_ncid, to_varid, name, strlen(text), text);
            free(text);
        }
        if (lacks_type(put))
            minv_nc_list_name(lacking, len, name);
        else
            st = put;
    }
    return st;
}

/* ---- history ---- */

/* This process's command line, as typed ("minv invert in.nc:B out.nc -O"): argv[0]'s own
 * name and the arguments, those with blanks or quotes in single quotes. "" where unknown. */
static void command_line(char *buf, size_t len) {
    char raw[8192];
    size_t got = 0, used = 0;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    buf[0] = '\0';
    if (!f)
        return;
    got = fread(raw, 1, sizeof raw - 1, f);
    fclose(f);
    raw[got] = '\0';
    for (size_t at = 0; at < got && used + 4 < len; at += strlen(raw + at) + 1) {
        const char *arg = raw + at, *slash = strrchr(arg, '/');
        if (at == 0 && slash)
            arg = slash + 1;
        const int quote = !arg[0] || strpbrk(arg, " \t\n'\"\\$*?;&|<>()") != NULL;
        used += (size_t)snprintf(buf + used, len - used, quote ? "%s'%s'" : "%s%s", at ? " " : "", arg);
    }
}

char *minv_nc_history(const char *old, const char *what) {
    char date[64], cmd[4096];
    time_t now = time(NULL);
    struct tm tm;
    /* NCO's stamp: ctime()'s "Tue Nov 25 15:30:00 2026", local time */
    strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y", localtime_r(&now, &tm));
    command_line(cmd, sizeof cmd);
    size_t len = strlen(date) + strlen(cmd) + strlen(what) + (old ? strlen(old) : 0) + 16;
    char *text = malloc(len);
    if (text)
        snprintf(text, len, "%s: %s%s%s%s%s%s", date, cmd, cmd[0] ? " (" : "", what, cmd[0] ? ")" : "",
                 old && old[0] ? "\n" : "", old ? old : "");
    return text;
}

/* ---- the result's units ---- */

const char *minv_nc_result_units(const minv_nc_source *num, const minv_nc_source *den, char *units, size_t len,
                                 char *note, size_t nlen) {
    char a[256] = "", b[256] = "";
    const int has_num = num && minv_nc_text_att(num->grpid, num->varid, "units", b, sizeof b);
    const int has_den = minv_nc_text_att(den->grpid, den->varid, "units", a, sizeof a);
    note[0] = '\0';
    if (!has_den && !has_num)
        return NULL;
    if (has_den && (has_num || !num) && minv_nc_units_ratio(num ? b : NULL, a, units, len))
        return units;
    if (!num)
        snprintf(note, nlen, "units '%s' (minv cannot invert them)", a);
    else if (has_num && has_den)
        snprintf(note, nlen, "units '%s' over '%s' (minv cannot divide them)", b, a);
    else
        snprintf(note, nlen, "units '%s' (%s has units, %s none)", has_num ? b : a, has_num ? num->var : den->var,
                 has_num ? den->var : num->var);
    return NULL;
}
