#!/usr/bin/env bash
# What the README's commands print while they work (sourced by setup.sh): each step when it
# starts and how long it took, and the package installation and the build as they go, so that
# minutes of apt-get or compiling never pass in silence. On a terminal a count moves on one
# line; in a log (CI) a line is printed every tenth of the way.

# minv_elapsed SECONDS: "42 s" or "3m05s".
minv_elapsed() {
    if [ "$1" -ge 60 ]; then printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); else printf '%d s' "$1"; fi
}

# minv_show LABEL DONE TOTAL SINCE [WHAT]: one progress report. On a terminal it redraws the
# line (minv_show_end clears it); otherwise it prints a line when DONE enters a new tenth of
# TOTAL, remembered in minv_shown.
minv_shown=-1
minv_show() {
    local label=$1 done=$2 total=$3 since=$4 what=${5:-}
    [ "$total" -gt 0 ] || return 0
    local pct=$((100 * done / total))
    if [ -t 1 ]; then
        printf '\r%s: %3d%% (%s) %.50s\033[K' "$label" "$pct" "$(minv_elapsed $((SECONDS - since)))" "$what"
    elif [ $((pct / 10)) -gt "$minv_shown" ]; then
        minv_shown=$((pct / 10))
        printf '%s: %3d%% (%s)\n' "$label" "$pct" "$(minv_elapsed $((SECONDS - since)))"
    fi
}

minv_show_end() {
    if [ -t 1 ]; then printf '\r\033[K'; fi
    minv_shown=-1
}

# minv_build_progress LABEL < cmake --build output: its percentage (Makefiles: "[ 47%] ...",
# Ninja: "[12/345] ...") and what it is building.
minv_build_progress() {
    local label=$1 t0=$SECONDS line
    while IFS= read -r line; do
        if [[ $line =~ ^\[\ *([0-9]+)%\]\ (.*)$ ]]; then
            minv_show "$label" "${BASH_REMATCH[1]}" 100 "$t0" "${BASH_REMATCH[2]}"
        elif [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\ (.*)$ ]]; then
            minv_show "$label" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "$t0" "${BASH_REMATCH[3]}"
        fi
    done
    minv_show_end
}

# minv_apt_progress LABEL < apt-get install output: packages set up of those to install.
minv_apt_progress() {
    local label=$1 t0=$SECONDS line total=0 done=0
    while IFS= read -r line; do
        if [[ $line =~ ([0-9]+)\ newly\ installed ]]; then
            total=${BASH_REMATCH[1]}
        elif [[ $line =~ ^Setting\ up\ ([^ ]+) ]]; then
            done=$((done + 1))
            minv_show "$label" "$done" "$total" "$t0" "${BASH_REMATCH[1]}"
        fi
    done
    minv_show_end
}

# A step whose output only goes to its log.
minv_no_progress() { cat >/dev/null; }

# minv_step LABEL LOG PROGRESS COMMAND...: runs COMMAND with its output in LOG, shown through
# the filter PROGRESS (minv_build_progress, minv_apt_progress or minv_no_progress); says when
# it starts and how long it took, or shows the end of LOG when it fails.
minv_step() {
    local - label=$1 log=$2 progress=$3 t0=$SECONDS
    shift 3
    set -o pipefail
    echo "$label (log: $log)"
    if "$@" 2>&1 | tee "$log" | "$progress" "$label"; then
        echo "$label: done in $(minv_elapsed $((SECONDS - t0)))"
    else
        tail -n 60 "$log"
        echo "$label: failed after $(minv_elapsed $((SECONDS - t0))); the whole output is in $log"
        return 1
    fi
}
