/* libFuzzer entry: TLS request fields straight into tb_tls_request_parse,
 * one "key=value" per line (so keys and values may hold what a request line
 * cannot: spaces, empty keys). Checks the parser's promises: a refused
 * request ends with exactly one "end" record, an accepted one writes
 * nothing and holds only values the drivers accept. */
#include "fuzz.h"

#include "tb/core.h"
#include "tb/tls_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 24 /* as a request line (core/agent.c) */

static void fail(const char *what)
{
    fprintf(stderr, "fuzz: accepted TLS request with %s\n", what);
    abort();
}

static void check_accepted(const tb_tls_request *r)
{
    const tb_tls_config *c = &r->cfg;
    if (r->port > 65535) fail("port > 65535");
    if (r->workers == 0 || r->workers > TB_TLS_MAX_WORKERS) fail("workers out of range");
    if (r->wait_ms == 0 || r->wait_ms > 600000) fail("wait_ms out of range");
    if (r->warm > 1) fail("warm other than 0 or 1");
    if (c->max_early_data > 1u << 20) fail("max_early > 1 MiB");
    if (r->warmup + r->repeats < r->warmup) fail("warmup + repeats beyond 64 bits");
    if (r->plain) return;
    if (c->version != 12 && c->version != 13) fail("a version other than 12 or 13");
    if (c->suite == NULL || c->server_name == NULL) fail("no suite or name");
    if ((c->client_chain.len > 0) != (c->client_key.len > 0)) fail("client_chain without client_key");
    if (c->resume == TB_RESUME_SESSION_ID && c->version != 12) fail("session-id resumption in TLS 1.3");
    if (c->resume == TB_RESUME_PSK_ONLY && c->version != 13) fail("psk-only resumption in TLS 1.2");
    if (r->early && (c->version != 13 || c->resume == TB_RESUME_NONE || c->max_early_data < TB_APP_BYTES))
        fail("early data without TLS 1.3, resumption and max_early >= 64");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1); /* exactly the input: a read past it is caught */
    if (text == NULL) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    tb_field fields[MAX_FIELDS];
    size_t n = 0;
    char *save = NULL;
    for (char *f = strtok_r(text, "\n", &save); f != NULL && n < MAX_FIELDS; f = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(f, '=');
        if (eq == NULL) continue;
        *eq = '\0';
        fields[n].key = f;
        fields[n].value = eq + 1;
        n++;
    }
    char empty[1] = "";
    tb_agent_serve_line(empty); /* like every request, resets the byte pool hex fields are decoded into */
    tb_fuzz_request_begin();
    tb_tls_request req;
    if (tb_tls_request_parse(fields, n, &req) != 0) {
        tb_fuzz_request_check("(TLS fields)");
    } else {
        if (tb_fuzz_records() != 0) fail("records written");
        check_accepted(&req);
    }
    free(text);
    return 0;
}
