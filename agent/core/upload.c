/* Byte fields delivered over several request lines (tb/upload.h).
 *
 * Each upload is one heap block of the size announced first, so the bytes
 * are never copied and the heap they take is known: the harness's, outside
 * any side's count, reported by the request that uses them
 * (tls-device's "tls_harness" record). */
#include "tb/upload.h"

#include "tb/platform.h"
#include "tb/protocol.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS 4    /* a side's chain and key, and room for a root and a PSK */
#define UPLOAD_NAME_MAX 16

typedef struct {
    char name[UPLOAD_NAME_MAX];
    uint8_t *data;
    size_t size, have;
    uint64_t held; /* usable bytes, as counted */
} slot_t;

static slot_t slots[SLOTS];

static slot_t *find(const char *name)
{
    for (size_t i = 0; i < SLOTS; i++)
        if (slots[i].data != NULL && strcmp(slots[i].name, name) == 0) return &slots[i];
    return NULL;
}

static void release(slot_t *s)
{
    free(s->data);
    memset(s, 0, sizeof(*s));
}

void tb_upload_clear(void)
{
    for (size_t i = 0; i < SLOTS; i++)
        if (slots[i].data != NULL) release(&slots[i]);
}

uint64_t tb_upload_heap_held(void)
{
    uint64_t n = 0;
    for (size_t i = 0; i < SLOTS; i++) n += slots[i].held;
    return n;
}

int tb_upload_take(const char *name, tb_bytes *out)
{
    const slot_t *s = find(name);
    if (s == NULL || s->have != s->size) {
        if (s == NULL) tb_set_error("field %s=@: nothing was uploaded as %s", name, name);
        else tb_set_error("field %s=@: its upload is incomplete (%u of %u B)", name, (unsigned)s->have,
                          (unsigned)s->size);
        return -1;
    }
    out->data = s->data;
    out->len = s->size;
    return 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static const char *start(const char *name, const char *size_text)
{
    uint64_t size = 0;
    if (tb_field_u64(size_text, &size) != 0 || size == 0 || size > TB_UPLOAD_MAX) return "size must be 1..65536";
    slot_t *s = find(name);
    if (s != NULL) release(s);
    for (size_t i = 0; s == NULL && i < SLOTS; i++)
        if (slots[i].data == NULL) s = &slots[i];
    if (s == NULL) return "no upload slot free (at most 4 before the request that uses them)";
    tb_heap_usage u;
    tb_heap_begin();
    s->data = malloc((size_t)size);
    tb_heap_end(&u);
    if (s->data == NULL) {
        tb_note_no_room();
        return "out of memory for the upload";
    }
    strcpy(s->name, name);
    s->size = (size_t)size;
    s->held = u.held;
    return NULL;
}

static const char *append(const char *name, const char *hex)
{
    slot_t *s = find(name);
    size_t n = strlen(hex);
    if (s == NULL) return "data before the upload's size (upload name=... size=... first)";
    if (n % 2 != 0) return "data is not hex";
    if (n / 2 > s->size - s->have) return "more data than the upload's size";
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return "data is not hex";
        s->data[s->have + i] = (uint8_t)(hi << 4 | lo);
    }
    s->have += n / 2;
    return NULL;
}

void tb_upload_serve(const tb_field *fields, size_t n)
{
    const char *name = NULL, *size = NULL, *data = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *k = fields[i].key;
        if (strcmp(k, "name") == 0) name = fields[i].value;
        else if (strcmp(k, "size") == 0) size = fields[i].value;
        else if (strcmp(k, "data") == 0) data = fields[i].value;
        else {
            tb_set_error("unknown field %s (upload takes name, and size or data)", k);
            tb_end(TB_BAD_INPUT, tb_last_error());
            return;
        }
    }
    const char *why = NULL;
    if (name == NULL || name[0] == '\0' || strlen(name) >= UPLOAD_NAME_MAX) why = "name must be 1..15 characters";
    else if ((size == NULL) == (data == NULL)) why = "give size (to start) or data (to append), not both";
    else why = size != NULL ? start(name, size) : append(name, data);
    if (why != NULL) {
        tb_set_error("upload %s: %s", name != NULL ? name : "?", why);
        tb_end(TB_BAD_INPUT, tb_last_error());
        return;
    }
    tb_end(TB_OK, NULL);
}
