#!/usr/bin/env bash
# What ctest's JUnit file (ctest --output-junit FILE) says that its "100% tests passed" line
# does not: which tests were skipped (exit 77: no usable GPU) and which ran their CPU half
# only (tu_contexts prints "GPU half not run"). Sourced by test.sh and gpu-suite.sh.

# junit_counts FILE: "PASSED FAILED SKIPPED CPU_ONLY TOTAL"
junit_counts() {
    [ -f "$1" ] || { echo "0 0 0 0 0"; return 0; }
    awk '
        /<testcase / { n++; cur = $0; sub(/.* name="/, "", cur); sub(/".*/, "", cur)
                       if ($0 ~ /status="run"/) p++; else if ($0 ~ /status="fail"/) f++; else s++ }
        /GPU half not run/ { if (!(cur in half)) { half[cur] = 1; h++ } }
        END { printf "%d %d %d %d %d\n", p, f, s, h, n }' "$1"
}

# junit_names FILE WHAT: the names of the tests skipped (WHAT = skipped), failed (failed) or
# run with their CPU half only (cpu-only), space separated
junit_names() {
    [ -f "$1" ] || return 0
    awk -v what="$2" '
        /<testcase / { cur = $0; sub(/.* name="/, "", cur); sub(/".*/, "", cur)
                       if (what == "skipped" && $0 ~ /status="notrun"/) printf "%s ", cur
                       if (what == "failed" && $0 ~ /status="fail"/) printf "%s ", cur }
        what == "cpu-only" && /GPU half not run/ && !(cur in seen) { seen[cur] = 1; printf "%s ", cur }' "$1" |
        sed 's/ $//'
}

# junit_report FILE LABEL: the lines printed after ctest's own
junit_report() {
    local c skipped cpu_only
    read -r -a c < <(junit_counts "$1")
    skipped=$(junit_names "$1" skipped)
    cpu_only=$(junit_names "$1" cpu-only)
    echo "$2: ${c[0]} passed, ${c[1]} failed, ${c[2]} skipped of ${c[4]}"
    [ "${c[2]}" -gt 0 ] && echo "$2: ${c[2]} skipped (exit 77: no usable GPU, or not meaningful in this build; each one's output says which): $skipped"
    [ "${c[3]}" -gt 0 ] && echo "$2: ${c[3]} ran their CPU half only (no usable GPU; AUTO tests ran on the CPU too): $cpu_only"
    return 0
}

# junit_rows FILE: "name|outcome|seconds" per test, outcome passed, FAILED or skipped
junit_rows() {
    [ -f "$1" ] || return 0
    awk '/<testcase / {
            name = $0; sub(/.* name="/, "", name); sub(/".*/, "", name)
            t = $0; sub(/.* time="/, "", t); sub(/".*/, "", t)
            o = $0 ~ /status="run"/ ? "passed" : $0 ~ /status="fail"/ ? "FAILED" : "skipped"
            printf "%s|%s|%.1f\n", name, o, t }' "$1"
}
