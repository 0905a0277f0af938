/* Byte fields too long for one request line, delivered in several
 * (core/upload.c): the "upload" request appends them to a named buffer on
 * the heap, and the next request takes them with the value "@" (e.g.
 * tls-device side=server chain=@ key=@ ...). A one-side image's request line
 * is sized for a client's credentials; a server's certificate chain and key
 * come this way instead of a longer line in every image. */
#ifndef TB_UPLOAD_H
#define TB_UPLOAD_H

#include "tb/core.h"

/* The largest upload (a chain of a few RSA-4096 certificates in PEM fits). */
#define TB_UPLOAD_MAX (1u << 16)

/* "upload name=<field> size=<bytes>" starts a buffer of that size (one
 * allocation, replacing any of that name); "upload name=<field>
 * data=<hex>" appends to it. */
void tb_upload_serve(const tb_field *fields, size_t n);
/* The complete upload of that name: 0 and *out, or -1 (with tb_set_error). */
int tb_upload_take(const char *name, tb_bytes *out);
/* Usable heap bytes the uploads hold (as the counting allocator counts them). */
uint64_t tb_upload_heap_held(void);
/* Frees every upload: they serve only the request after them. */
void tb_upload_clear(void);

#endif
