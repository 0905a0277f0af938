/* libFuzzer entry: the fuzzer's bytes are request lines for the agent core
 * (one or more, newline-separated), served as tb_agent_main serves its
 * input, with the selftest adapter (no real crypto) and the fuzzing
 * platform layer (platform_fuzz.c), which checks every record and that each
 * request ends with exactly one "end" record. The verbs tls-server and
 * tls-client reach tb_tls_request_parse, handshake reaches it and the
 * in-memory handshake driver. */
#include "fuzz.h"

#include "tb/core.h"
#include "tb/platform.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LINE (1u << 16) /* the agent's own request buffer (core/agent.c) */

/* The selftest double keeps 5000 bytes per "sha1" run on purpose (its
 * "held" heap); a leak anywhere else is a finding. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:st_run\n";
}

/* Work the request asks for that is legitimate but only slows fuzzing down
 * (the host decides how much an agent measures): such inputs are skipped. */
static int too_costly(const char *line)
{
    static const struct {
        const char *key;
        uint64_t max;
    } caps[] = {{"warmup=", 16},          {"repeats=", 16}, {"size=", 1u << 20},
                {"bulk=", 1u << 20},      {"min_ns=", 1000000000u}};
    for (const char *p = line; *p; p++) {
        if (p != line && p[-1] != ' ') continue;
        for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
            size_t k = strlen(caps[i].key);
            if (strncmp(p, caps[i].key, k) != 0) continue;
            char digits[24];
            size_t n = strcspn(p + k, " ");
            uint64_t v = 0;
            if (n >= sizeof(digits)) return 1; /* beyond 64 bits or not a number: the core rejects it anyway */
            memcpy(digits, p + k, n);
            digits[n] = '\0';
            if (tb_field_u64(digits, &v) == 0 && v > caps[i].max) return 1;
        }
    }
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    tb_platform_init();
    return tb_library.init() == TB_OK ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[MAX_LINE];
    tb_fuzz_set_input(data, size);
    for (;;) {
        long n = tb_read_line(buf, sizeof(buf));
        if (n == -1) break;
        tb_fuzz_request_begin();
        if (n == -2) { /* as tb_agent_main answers it */
            tb_end(TB_BAD_INPUT, "request line too long");
        } else {
            if (too_costly(buf)) continue;
            /* exactly the line's bytes on the heap: a read past its end is caught */
            char *line = malloc((size_t)n + 1);
            if (line == NULL) abort();
            memcpy(line, buf, (size_t)n + 1);
            tb_agent_serve_line(line);
            free(line);
        }
        tb_fuzz_request_check(buf);
    }
    return 0;
}
