/* A request's fields and its final record, shared by every verb's code
 * (core/request.c): the agent's dispatcher, the in-memory TLS driver and the
 * platform's own verbs all decode fields and end requests through it. */
#ifndef TB_REQUEST_H
#define TB_REQUEST_H

#include "tb/adapter.h"

typedef struct {
    char *key;
    char *value;
} tb_field;

/* Forgets the previous request's decoded bytes (before parsing a new one). */
void tb_request_reset(void);
/* Decodes a hex field value into the request's byte pool (valid until the
 * next request). Returns 0 on success. */
int tb_field_bytes(const char *hex, tb_bytes *out);
int tb_field_u64(const char *text, uint64_t *out);
/* Ends a request with the final "end" record. */
void tb_end(tb_status s, const char *msg);

#endif
