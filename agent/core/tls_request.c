#include "tb/tls_request.h"

#include "tb/core.h"
#include "tb/upload.h"

#include <string.h>

const char *tb_side_name(int side)
{
    return side == 0 ? "client" : "server";
}

static int parse_resume(const char *v, tb_resume *out)
{
    static const char *const names[] = {"none", "session-id", "ticket", "psk-only"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(v, names[i]) == 0) {
            *out = (tb_resume)i;
            return 0;
        }
    }
    return -1;
}

static int parse_side(const char *v, int *out)
{
    if (strcmp(v, "client") == 0) *out = 0;
    else if (strcmp(v, "server") == 0) *out = 1;
    else return -1;
    return 0;
}

/* RFC 6066's four lengths: 2^9..2^12 */
static int parse_max_frag(const char *v, uint32_t *out)
{
    uint64_t n = 0;
    if (tb_field_u64(v, &n) != 0 || (n != 512 && n != 1024 && n != 2048 && n != 4096)) return -1;
    *out = (uint32_t)n;
    return 0;
}

/* A byte field: its hex, or "@": the bytes uploaded under its name (tb/upload.h). */
static int bytes_field(const char *key, const char *value, tb_bytes *out, int *uploaded)
{
    if (strcmp(value, "@") != 0) return tb_field_bytes(value, out);
    *uploaded = 1;
    return tb_upload_take(key, out);
}

int tb_tls_request_parse(const tb_field *fields, size_t n, tb_tls_request *req)
{
    tb_tls_config *cfg = &req->cfg;
    uint64_t version = 13, max_early = 0, verify = 1;
    int limit_given = 0;
    memset(req, 0, sizeof(*req));
    req->warmup = 1;
    req->repeats = 10;
    req->batch = 1;
    req->workers = 1;
    req->wait_ms = 20000;
    req->stack = 1;
    req->memory = 1;
    req->memory_passes = 1;
    req->stack_at = TB_STACK_PAGE;
    req->side = -1;
    req->limit_side = -1;
    for (size_t i = 0; i < n; i++) {
        const char *k = fields[i].key, *v = fields[i].value;
        int bad = 0, uploaded = 0;
        if (strcmp(k, "version") == 0) bad = tb_field_u64(v, &version);
        else if (strcmp(k, "warmup") == 0) bad = tb_field_u64(v, &req->warmup);
        else if (strcmp(k, "repeats") == 0) bad = tb_field_u64(v, &req->repeats);
        else if (strcmp(k, "batch") == 0) bad = tb_field_u64(v, &req->batch) || req->batch == 0 || req->batch > TB_TLS_MAX_BATCH;
        else if (strcmp(k, "transcript") == 0) bad = tb_field_u64(v, &req->transcript);
        else if (strcmp(k, "early") == 0) bad = tb_field_u64(v, &req->early);
        else if (strcmp(k, "bulk") == 0) bad = tb_field_u64(v, &req->bulk);
        else if (strcmp(k, "stack") == 0) bad = tb_field_u64(v, &req->stack);
        else if (strcmp(k, "verify") == 0) bad = tb_field_u64(v, &verify) || verify > 1;
        else if (strcmp(k, "memory") == 0) bad = tb_field_u64(v, &req->memory) || req->memory > 1;
        else if (strcmp(k, "memory_passes") == 0)
            bad = tb_field_u64(v, &req->memory_passes) || req->memory_passes == 0
                  || req->memory_passes > TB_TLS_MAX_MEMORY_PASSES;
        else if (strcmp(k, "setup") == 0) bad = tb_field_u64(v, &req->setup) || req->setup > 1;
        else if (strcmp(k, "stack_at") == 0) bad = tb_field_u64(v, &req->stack_at) || req->stack_at >= TB_STACK_PAGE;
        else if (strcmp(k, "heap_shift") == 0) bad = tb_field_u64(v, &req->heap_shift) || req->heap_shift > TB_MAX_HEAP_SHIFT;
        else if (strcmp(k, "port") == 0) bad = tb_field_u64(v, &req->port) || req->port > 65535;
        else if (strcmp(k, "duration_ms") == 0) bad = tb_field_u64(v, &req->duration_ms);
        else if (strcmp(k, "window_ms") == 0) bad = tb_field_u64(v, &req->window_ms) || req->window_ms > 3600000;
        else if (strcmp(k, "workers") == 0) bad = tb_field_u64(v, &req->workers) || req->workers == 0 || req->workers > TB_TLS_MAX_WORKERS;
        else if (strcmp(k, "plain") == 0) bad = tb_field_u64(v, &req->plain);
        else if (strcmp(k, "foreign") == 0) bad = tb_field_u64(v, &req->foreign);
        else if (strcmp(k, "warm") == 0) bad = tb_field_u64(v, &req->warm) || req->warm > 1;
        else if (strcmp(k, "wait_ms") == 0) bad = tb_field_u64(v, &req->wait_ms) || req->wait_ms == 0 || req->wait_ms > 600000;
        else if (strcmp(k, "max_early") == 0) bad = tb_field_u64(v, &max_early) || max_early > 1u << 20;
        else if (strcmp(k, "suite") == 0) cfg->suite = v;
        else if (strcmp(k, "group") == 0) cfg->group = v;
        else if (strcmp(k, "client_share") == 0) cfg->client_share = v;
        else if (strcmp(k, "name") == 0) cfg->server_name = v;
        else if (strcmp(k, "resume") == 0) bad = parse_resume(v, &cfg->resume);
        else if (strcmp(k, "chain") == 0) bad = bytes_field(k, v, &cfg->server_chain, &uploaded);
        else if (strcmp(k, "key") == 0) bad = bytes_field(k, v, &cfg->server_key, &uploaded);
        else if (strcmp(k, "trust") == 0) bad = bytes_field(k, v, &cfg->trust, &uploaded);
        else if (strcmp(k, "client_chain") == 0) bad = bytes_field(k, v, &cfg->client_chain, &uploaded);
        else if (strcmp(k, "client_key") == 0) bad = bytes_field(k, v, &cfg->client_key, &uploaded);
        else if (strcmp(k, "psk") == 0) bad = bytes_field(k, v, &cfg->psk, &uploaded);
        else if (strcmp(k, "psk_identity") == 0) cfg->psk_identity = v;
        else if (strcmp(k, "side") == 0) bad = parse_side(v, &req->side);
        else if (strcmp(k, "heap_limit") == 0) {
            bad = tb_field_u64(v, &req->heap_limit);
            limit_given = 1;
        }
        else if (strcmp(k, "max_frag") == 0) bad = parse_max_frag(v, &cfg->max_frag);
        else if (strcmp(k, "heap_limit_side") == 0) bad = parse_side(v, &req->limit_side);
        else {
            tb_set_error("unknown field %s", k);
            tb_end(TB_BAD_INPUT, tb_last_error());
            return -1;
        }
        if (bad) {
            if (!uploaded) tb_set_error("field %s is malformed", k); /* an upload's error names itself */
            tb_end(TB_BAD_INPUT, tb_last_error());
            return -1;
        }
    }
    cfg->skip_verify = verify == 0;
    if (req->warmup > UINT64_MAX - req->repeats) { /* the drivers loop to warmup + repeats */
        tb_end(TB_BAD_INPUT, "warmup + repeats is beyond 64 bits");
        return -1;
    }
    cfg->version = (int)version;
    cfg->max_early_data = (uint32_t)max_early;
    if (req->plain) return 0; /* the TCP baseline needs nothing else */
    /* one side alone needs only its own half: a client the root it trusts, a server its chain and key */
    int own = cfg->server_chain.len > 0 && cfg->server_key.len > 0, trusts = cfg->trust.len > 0;
    int certs = req->side == 0 ? trusts : req->side == 1 ? own : own && trusts;
    int psk = cfg->psk.len > 0 && cfg->psk_identity != NULL;
    int anonymous = cfg->suite != NULL && strstr(cfg->suite, "_anon_") != NULL; /* no authentication at all */
    const char *why = NULL;
    if (version != 12 && version != 13) why = "version must be 12 or 13";
    else if (cfg->suite == NULL || cfg->server_name == NULL) why = "a handshake needs suite and name";
    else if (!certs && !psk && !anonymous) why = "a handshake needs chain, key and trust, or psk and psk_identity";
    else if ((cfg->client_chain.len > 0) != (cfg->client_key.len > 0)) why = "client_chain and client_key go together";
    else if (req->early && (version != 13 || cfg->resume == TB_RESUME_NONE || cfg->max_early_data < TB_APP_BYTES))
        why = "early data needs TLS 1.3, resumption and max_early >= 64";
    else if (cfg->resume == TB_RESUME_SESSION_ID && version != 12) why = "session-id resumption is TLS 1.2";
    else if (cfg->resume == TB_RESUME_PSK_ONLY && version != 13) why = "psk-only resumption is TLS 1.3";
    else if (cfg->client_share != NULL && version != 13) why = "client_share (HelloRetryRequest) is TLS 1.3";
    else if (limit_given != (req->limit_side >= 0)) why = "heap_limit and heap_limit_side go together";
    else if (req->limit_side >= 0 && req->side >= 0 && req->limit_side != req->side)
        why = "heap_limit_side must be the side on the device";
    if (why != NULL) {
        tb_end(TB_BAD_INPUT, why);
        return -1;
    }
    return 0;
}
