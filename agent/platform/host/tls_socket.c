/* One side of a TLS connection per process, over a real TCP socket on
 * loopback (the classic method, kernel in the path): "tls-server" listens on
 * 127.0.0.1 and serves connections, "tls-client" connects and makes them.
 * Each process measures only its own side: CPU time of its calls into the
 * library, bytes and records it sent and received (counted at the socket),
 * the round trips it waited for, its heap. With plain=1 there is no TLS at
 * all: the TCP baseline of the same request and response. The peer may be
 * another library's agent or a tool nobody here wrote (foreign=1).
 *
 * Time and memory come from different connections, as in memory
 * (core/tls.c): the timed ones run with the allocation hooks only
 * forwarding (tb_timed_begin), and one more connection before the first
 * measured one (after the warm-ups) is the memory pass, counted and
 * reported as "tls_side_memory". Both sides know which connection that is
 * from warmup and the resumption mode: with resumption, each measured
 * connection follows the full one it resumes. */
#define _GNU_SOURCE
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "tb/tls.h"
#include "tb/tls_request.h"
#include "tb/util.h"
#include "tb/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BULK_CHUNK 16384
#define ACK_BYTES 8

typedef struct {
    int fd;
    int wait_ms; /* a peer silent this long is not coming back */
    int side;   /* ours */
    tb_wire wire; /* by sending side, as in memory: 0 client, 1 server */
    int closed; /* the peer closed or the socket failed */
    uint64_t io_cpu_ns; /* CPU time inside send/recv and their byte counting (kernel time, mostly) */
} sock_t;

/* The thread's CPU clock around one socket call: the kernel's share of a
 * library call, which tools timing user CPU (openssl s_time) leave out. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static long sock_send(void *t, const uint8_t *p, size_t n)
{
    sock_t *s = t;
    size_t done = 0;
    uint64_t t0 = thread_cpu_ns();
    while (done < n) {
        ssize_t k = send(s->fd, p + done, n - done, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            s->closed = 1;
            s->io_cpu_ns += thread_cpu_ns() - t0;
            return -1;
        }
        done += (size_t)k;
    }
    tb_wire_note(&s->wire, s->side, p, n);
    s->io_cpu_ns += thread_cpu_ns() - t0;
    return (long)n;
}

static long sock_recv(void *t, uint8_t *p, size_t n)
{
    sock_t *s = t;
    uint64_t t0 = thread_cpu_ns();
    ssize_t k = recv(s->fd, p, n, MSG_DONTWAIT);
    if (k > 0) tb_wire_note(&s->wire, 1 - s->side, p, (size_t)k);
    s->io_cpu_ns += thread_cpu_ns() - t0;
    if (k > 0) return (long)k;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    s->closed = 1; /* orderly close (0) or an error: nothing more will come */
    return -1;
}

/* Waits until the peer sent something; 0 on time, -1 (with the error set) if not. */
static int wait_input(sock_t *s, const char *what)
{
    struct pollfd p = {s->fd, POLLIN, 0};
    if (s->closed) {
        tb_set_error("the peer closed the connection while we waited for %s", what);
        return -1;
    }
    int rc;
    do rc = poll(&p, 1, s->wait_ms);
    while (rc < 0 && errno == EINTR);
    if (rc == 0) {
        tb_set_error("the peer did not answer within %d ms (waiting for %s)", s->wait_ms, what);
        return -1;
    }
    return rc < 0 ? -1 : 0;
}

typedef struct {
    uint64_t cpu_ns, instructions, io_cpu_ns; /* io_cpu_ns: the part of cpu_ns inside the socket calls */
} cost_t;

/* Times one call into the library and charges its heap to our side. */
#define CHARGED(cost, side, call)                                                                            \
    do {                                                                                                     \
        tb_reading a_, b_;                                                                                   \
        uint64_t io_ = s->sock->io_cpu_ns;                                                                   \
        tb_heap_side(side);                                                                                  \
        tb_read_counters(&a_);                                                                               \
        call;                                                                                                \
        tb_read_counters(&b_);                                                                               \
        tb_heap_side(-1);                                                                                    \
        (cost)->cpu_ns += b_.cpu_ns - a_.cpu_ns;                                                             \
        (cost)->instructions += b_.instructions - a_.instructions;                                           \
        (cost)->io_cpu_ns += s->sock->io_cpu_ns - io_;                                                       \
    } while (0)

typedef struct {
    uint64_t connect_ns, handshake_ns, transaction_ns, bulk_wall_ns;
    cost_t hs, app, bulk;
    tb_wire hs_wire, total_wire;
    uint64_t round_trips;
    tb_heap_side_usage heap;
    int resumed;
    int warmed; /* an untimed connection in memory ran just before this one (req->warm) */
} side_result;

static uint64_t now_ns(void)
{
    tb_reading r;
    tb_read_counters(&r);
    return r.wall_ns;
}

/* ---- application data, over TLS or plain TCP ---- */

typedef struct {
    const tb_tls_request *req;
    void *endpoint; /* NULL for plain TCP */
    void *conn;
    sock_t *sock;
    int side;
} session_t;

static tb_status put(session_t *s, cost_t *cost, const uint8_t *p, size_t n)
{
    const tb_tls_ops *ops = &tb_library_tls;
    tb_status st;
    if (s->endpoint == NULL) return sock_send(s->sock, p, n) == (long)n ? TB_OK : TB_ERROR;
    CHARGED(cost, s->side, st = ops->send(s->conn, p, n));
    return st;
}

/* Receives exactly n bytes (or, from a foreign peer, whatever first arrives
 * when exact is 0). */
static tb_status get(session_t *s, cost_t *cost, uint8_t *p, size_t n, int exact, size_t *got_out)
{
    const tb_tls_ops *ops = &tb_library_tls;
    size_t have = 0;
    while (have < n && (exact || have == 0)) {
        size_t got = 0;
        tb_status st;
        if (s->endpoint == NULL) {
            long k = sock_recv(s->sock, p + have, n - have);
            st = k > 0 ? TB_OK : k == 0 ? TB_WANT_READ : TB_ERROR;
            got = k > 0 ? (size_t)k : 0;
            if (st == TB_ERROR) tb_set_error("the peer closed the connection");
        } else {
            CHARGED(cost, s->side, st = ops->recv(s->conn, p + have, n - have, &got));
        }
        have += got;
        if (st == TB_WANT_READ && wait_input(s->sock, "application data") != 0) return TB_ERROR;
        if (st != TB_OK && st != TB_WANT_READ) return st;
    }
    if (got_out != NULL) *got_out = have;
    return TB_OK;
}

/* ---- the handshake of one side ---- */

static tb_status handshake(session_t *s, void *session, side_result *r)
{
    const tb_tls_ops *ops = &tb_library_tls;
    tb_transport tr = {sock_send, sock_recv, s->sock};
    tb_status st;
    CHARGED(&r->hs, s->side, st = ops->conn_new(s->endpoint, &tr, session, &s->conn));
    if (st == TB_OK && s->side == 0 && s->req->early && session != NULL) {
        uint8_t early[TB_APP_BYTES];
        memset(early, 'q', sizeof(early)); /* the request, sent as early data */
        CHARGED(&r->hs, s->side, st = ops->early_send(s->conn, early, sizeof(early)));
    }
    while (st == TB_OK) {
        CHARGED(&r->hs, s->side, st = ops->step(s->conn));
        if (st != TB_WANT_READ) break;
        if (wait_input(s->sock, "the handshake") != 0) st = TB_ERROR;
        else st = TB_OK;
    }
    if (st == TB_OK) {
        r->round_trips = s->sock->wire.flights[1];
        r->resumed = ops->resumed != NULL ? ops->resumed(s->conn) : 0;
        if (session != NULL && !r->resumed) {
            tb_set_error("the handshake was not resumed (a full handshake instead)");
            st = TB_ERROR;
        }
    }
    return st;
}

/* The exchange after the handshake: request, response, optional bulk with
 * an acknowledgement, as seen from side s. */
static tb_status exchange(session_t *s, side_result *r, int early_done)
{
    const tb_tls_ops *ops = &tb_library_tls;
    uint8_t request[TB_APP_BYTES], response[TB_APP_BYTES], got[TB_APP_BYTES];
    memset(request, 'q', sizeof(request));
    memset(response, 'r', sizeof(response));
    if (s->req->foreign) request[sizeof(request) - 1] = '\n'; /* line-based echo servers */
    int foreign = (int)s->req->foreign;
    tb_status st = TB_OK;
    if (s->side == 0) {
        if (!early_done) st = put(s, &r->app, request, sizeof(request));
        size_t n = 0;
        if (st == TB_OK) st = get(s, &r->app, got, sizeof(got), !foreign, &n);
        if (st == TB_OK && !foreign && memcmp(got, response, sizeof(got)) != 0) {
            tb_set_error("the response arrived altered");
            st = TB_ERROR;
        }
    } else {
        if (early_done) {
            size_t n = 0;
            CHARGED(&r->app, 1, st = ops->early_recv(s->conn, got, sizeof(got), &n));
            if (st == TB_OK && n != sizeof(got)) {
                tb_set_error("the server did not accept the early data (%zu bytes)", n);
                st = TB_ERROR;
            }
        } else {
            st = get(s, &r->app, got, sizeof(got), 1, NULL);
        }
        if (st == TB_OK && memcmp(got, request, sizeof(got)) != 0) {
            tb_set_error("the request arrived altered");
            st = TB_ERROR;
        }
        if (st == TB_OK) st = put(s, &r->app, response, sizeof(response));
    }
    return st;
}

static tb_status bulk(session_t *s, side_result *r)
{
    uint8_t *buf = tb_zalloc(BULK_CHUNK);
    uint8_t ack[ACK_BYTES];
    tb_status st = buf ? TB_OK : TB_ERROR;
    uint64_t t0 = now_ns();
    for (uint64_t done = 0; st == TB_OK && done < s->req->bulk; done += BULK_CHUNK) {
        size_t n = s->req->bulk - done < BULK_CHUNK ? (size_t)(s->req->bulk - done) : BULK_CHUNK;
        st = s->side == 0 ? put(s, &r->bulk, buf, n) : get(s, &r->bulk, buf, n, 1, NULL);
    }
    /* the receiver acknowledges the last byte, so the sender's clock stops when it arrived */
    memset(ack, 'k', sizeof(ack));
    if (st == TB_OK) st = s->side == 1 ? put(s, &r->bulk, ack, sizeof(ack)) : get(s, &r->bulk, ack, sizeof(ack), 1, NULL);
    r->bulk_wall_ns = now_ns() - t0;
    free(buf);
    return st;
}

/* One whole connection on an open socket, from our side. */
static tb_status serve_connection(session_t *s, void *session, void **session_out, side_result *r, uint64_t t0)
{
    const tb_tls_ops *ops = &tb_library_tls;
    tb_status st = TB_OK;
    int early = s->req->early && session != NULL;
    tb_heap_sides_reset();
    if (s->endpoint != NULL) st = handshake(s, session, r);
    if (s->side == 1 && s->endpoint != NULL && s->req->early) early = st == TB_OK && r->resumed;
    r->handshake_ns = now_ns() - t0;
    r->hs_wire = s->sock->wire;
    tb_heap_side_read(s->side, &r->heap);
    if (st == TB_OK) st = exchange(s, r, early);
    r->transaction_ns = now_ns() - t0;
    r->total_wire = s->sock->wire;
    if (st == TB_OK && s->req->bulk > 0 && !s->req->foreign) st = bulk(s, r);
    if (st == TB_OK && session_out != NULL) st = ops->session_get(s->conn, session_out);
    if (s->conn != NULL) ops->conn_free(s->conn);
    s->conn = NULL;
    return st;
}

static void emit_side(const char *type, uint64_t i, int side, const side_result *r, uint64_t bulk_bytes, int counted)
{
    const tb_wire *h = &r->hs_wire, *t = &r->total_wire;
    tb_rec_begin(type);
    tb_rec_u64("i", i);
    tb_rec_str("side", tb_side_name(side));
    tb_rec_u64("connect_ns", r->connect_ns);
    tb_rec_u64("handshake_ns", r->handshake_ns);
    tb_rec_u64("transaction_ns", r->transaction_ns);
    tb_rec_u64("cpu_ns", r->hs.cpu_ns);
    tb_rec_u64("io_cpu_ns", r->hs.io_cpu_ns);
    if (tb_platform_counters() & TB_CTR_INSTRUCTIONS) tb_rec_u64("instructions", r->hs.instructions);
    tb_rec_u64("sent_bytes", h->dir[side].bytes);
    tb_rec_u64("recv_bytes", h->dir[1 - side].bytes);
    tb_rec_u64("sent_records", h->dir[side].records);
    tb_rec_u64("recv_records", h->dir[1 - side].records);
    tb_rec_u64("flights", h->flights[0] + h->flights[1]);
    tb_rec_u64("round_trips", side == 0 ? r->round_trips : 0);
    tb_rec_u64("resumed", (uint64_t)r->resumed);
    if (r->warmed) tb_rec_u64("warmed", 1);
    if (counted && (tb_platform_memory() & TB_MEM_HEAP)) { /* a timed connection counted nothing */
        tb_rec_u64("heap_peak", r->heap.peak);
        tb_rec_u64("heap_held", r->heap.held > 0 ? (uint64_t)r->heap.held : 0);
    }
    tb_rec_u64("app_cpu_ns", r->app.cpu_ns);
    tb_rec_u64("total_sent_bytes", t->dir[side].bytes);
    tb_rec_u64("total_recv_bytes", t->dir[1 - side].bytes);
    if (bulk_bytes > 0) {
        tb_rec_u64("bulk_bytes", bulk_bytes);
        tb_rec_u64("bulk_wall_ns", r->bulk_wall_ns);
        tb_rec_u64("bulk_cpu_ns", r->bulk.cpu_ns);
    }
    tb_rec_end();
    tb_flush();
}

/* ---- sockets ---- */

static void no_delay(int fd)
{
    /* handshake flights are several small writes: without this, Nagle's
     * algorithm and delayed ACKs would add tens of milliseconds */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static struct sockaddr_in loopback(uint16_t port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* never another interface */
    return a;
}

static int listen_loopback(uint16_t port, uint16_t *bound)
{
    struct sockaddr_in a = loopback(port);
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    *bound = ntohs(a.sin_port);
    return fd;
}

static int connect_loopback(uint16_t port)
{
    struct sockaddr_in a = loopback(port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    no_delay(fd);
    return fd;
}

static int accept_within(int lfd, int timeout_ms)
{
    struct pollfd p = {lfd, POLLIN, 0};
    int rc;
    do rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    if (rc <= 0) return -1;
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0) no_delay(fd);
    return fd;
}

/* Closes after the peer did (or a moment passed), so our close never
 * resets a connection whose last bytes the peer has not read yet. */
static void close_gently(int fd)
{
    shutdown(fd, SHUT_WR);
    struct pollfd p = {fd, POLLIN, 0};
    uint8_t sink[256];
    while (poll(&p, 1, 1000) > 0 && recv(fd, sink, sizeof(sink), 0) > 0) {
    }
    close(fd);
}

/* ---- the two verbs ---- */

/* Connections per measured one: a resumed handshake follows the full one it resumes. */
static uint64_t per_measured(const tb_tls_request *req)
{
    return req->cfg.resume != TB_RESUME_NONE && !req->plain ? 2 : 1;
}

/* The connection number of the memory pass's measured connection: right
 * after the warm-ups (and the full handshake it resumes). */
static uint64_t memory_connection(const tb_tls_request *req)
{
    return req->warmup * per_measured(req) + per_measured(req) - 1;
}

static void emit_timed_calls(uint64_t calls_before)
{
    if (!(tb_platform_memory() & TB_MEM_HEAP)) return;
    tb_rec_begin("process_heap");
    tb_rec_u64("peak", tb_heap_process_peak());
    /* the accounting reached inside the timed connections (0: they ran clean) */
    tb_rec_u64("timed_heap_calls", tb_timed_heap_calls() - calls_before);
    tb_rec_end();
}

static tb_status open_endpoint(const tb_tls_request *req, int side, void **endpoint)
{
    *endpoint = NULL;
    if (req->plain) return TB_OK;
    tb_status st = tb_tls_check_features(req, 0);
    return st != TB_OK ? st : tb_library_tls.endpoint_new((tb_side)side, &req->cfg, endpoint);
}

/* The untimed connection in memory just before a measured one (req->warm). */
static tb_status warm_up(const tb_tls_request *req, void *endpoint, void **warm_client)
{
    tb_timed_begin(0); /* the allocation hooks only forward: nothing of it is counted */
    tb_status st = tb_tls_warm(req, endpoint, warm_client);
    tb_timed_end();
    if (st == TB_OK) return st;
    char why[200];
    snprintf(why, sizeof(why), "%s", tb_last_error()); /* the message is rewritten in place */
    tb_set_error("the untimed warm-up connection in memory failed: %s", why);
    return st == TB_UNSUPPORTED ? st : TB_ERROR;
}

static void server(const tb_tls_request *req)
{
    void *endpoint = NULL;
    tb_status st = open_endpoint(req, 1, &endpoint);
    uint16_t port = 0;
    int lfd = st == TB_OK ? listen_loopback((uint16_t)req->port, &port) : -1;
    if (st == TB_OK && lfd < 0) {
        tb_set_error("cannot listen on 127.0.0.1:%u: %s", (unsigned)req->port, strerror(errno));
        st = TB_ERROR;
    }
    if (st == TB_OK) {
        tb_rec_begin("listening");
        tb_rec_u64("port", port);
        tb_rec_end();
        tb_flush();
    }
    /* capacity: more processes accept on the same socket; they die with us */
    int child = 0;
    pid_t workers[TB_TLS_MAX_WORKERS];
    size_t started = 0;
    for (uint64_t w = 1; st == TB_OK && w < req->workers && !child; w++) {
        pid_t pid = fork();
        if (pid == 0) {
            child = 1;
            prctl(PR_SET_PDEATHSIG, SIGKILL);
        } else if (pid > 0) {
            workers[started++] = pid;
        } else {
            tb_set_error("cannot start server worker %llu of %llu: %s", (unsigned long long)w + 1,
                         (unsigned long long)req->workers, strerror(errno));
            st = TB_ERROR;
            /* the workers already started would serve on without us */
            for (size_t i = 0; i < started; i++) kill(workers[i], SIGKILL);
            for (size_t i = 0; i < started; i++) waitpid(workers[i], NULL, 0);
        }
    }
    void *warm_client = NULL; /* the warm-ups' client endpoint (req->warm) */
    uint64_t total = req->repeats; /* connections to serve; 0: until killed */
    uint64_t calls_before = tb_timed_heap_calls();
    for (uint64_t i = 0; st == TB_OK && (total == 0 || i < total); i++) {
        int fd = accept_within(lfd, total == 0 ? -1 : (int)req->wait_ms);
        if (fd < 0) {
            tb_set_error("no client connected within %d ms", (int)req->wait_ms);
            st = TB_ERROR;
            break;
        }
        int counted = total != 0 && req->memory && i == memory_connection(req);
        /* only before the measured ones: the warm-ups and the memory pass keep the history they had */
        int warm = req->warm && i > memory_connection(req) && (i + 1) % per_measured(req) == 0;
        if (warm && (st = warm_up(req, endpoint, &warm_client)) != TB_OK) {
            close(fd);
            break;
        }
        uint64_t t0 = now_ns();
        sock_t sock = {.fd = fd, .wait_ms = (int)req->wait_ms, .side = 1};
        tb_wire_init(&sock.wire);
        session_t s = {req, endpoint, NULL, &sock, 1};
        side_result r;
        memset(&r, 0, sizeof(r));
        r.warmed = warm;
        if (!counted) tb_timed_begin(0);
        tb_status cs = serve_connection(&s, NULL, NULL, &r, t0);
        if (!counted) tb_timed_end();
        close_gently(fd);
        if (total == 0) continue; /* capacity: a failed transaction is the client's to count */
        if (cs != TB_OK) {
            st = cs;
            break;
        }
        emit_side(counted ? "tls_side_memory" : "tls_side", i, 1, &r, req->foreign ? 0 : req->bulk, counted);
    }
    if (child) _exit(0);
    if (st == TB_OK) emit_timed_calls(calls_before);
    if (lfd >= 0) close(lfd);
    if (warm_client != NULL) {
        tb_timed_begin(0); /* made while the hooks only forwarded: freed the same way */
        tb_library_tls.endpoint_free(warm_client);
        tb_timed_end();
    }
    if (endpoint != NULL) tb_library_tls.endpoint_free(endpoint);
    tb_end(st, st == TB_OK ? NULL : tb_last_error());
}

/* One client connection: connect, handshake, exchange, close. */
static tb_status client_connection(const tb_tls_request *req, void *endpoint, void *session, void **session_out,
                                   side_result *r)
{
    memset(r, 0, sizeof(*r));
    uint64_t t0 = now_ns();
    int fd = connect_loopback((uint16_t)req->port);
    if (fd < 0) {
        tb_set_error("cannot connect to 127.0.0.1:%u: %s", (unsigned)req->port, strerror(errno));
        return TB_ERROR;
    }
    r->connect_ns = now_ns() - t0;
    sock_t sock = {.fd = fd, .wait_ms = (int)req->wait_ms, .side = 0};
    tb_wire_init(&sock.wire);
    session_t s = {req, endpoint, NULL, &sock, 0};
    tb_status st = serve_connection(&s, session, session_out, r, t0);
    close_gently(fd);
    return st;
}

/* A capacity client also counts its transactions per window of window_ms.
 * Windows end at the first transaction end after a multiple of window_ms on
 * the monotonic clock, which every client process of a run shares, so the
 * same index is the same stretch of time in each; a window's rate is its
 * whole transactions over their exact time. A shared machine's slow phases
 * last seconds: the fastest windows are what two runs repeat. */
static void capacity_window(uint64_t index, uint64_t transactions, uint64_t wall_ns)
{
    tb_rec_begin("capacity_window");
    tb_rec_u64("index", index);
    tb_rec_u64("transactions", transactions);
    tb_rec_u64("wall_ns", wall_ns);
    tb_rec_end();
}

static void capacity(const tb_tls_request *req, void *endpoint)
{
    uint64_t ok = 0, failed = 0, t0 = now_ns(), end = t0 + req->duration_ms * 1000000u;
    uint64_t window_ns = req->window_ms * 1000000u, window_start = t0, window_ok = 0;
    uint64_t window_end = window_ns ? (t0 / window_ns + 1) * window_ns : 0;
    int first_window = 1; /* from the process's start, not a whole window: not reported */
    tb_reading a, b;
    tb_read_counters(&a);
    char first_error[200] = "";
    while (now_ns() < end) {
        side_result r;
        tb_timed_begin(0);
        tb_status cs = client_connection(req, endpoint, NULL, NULL, &r);
        tb_timed_end();
        if (cs == TB_OK) {
            ok++;
            window_ok++;
        } else {
            if (failed++ == 0) snprintf(first_error, sizeof(first_error), "%s", tb_last_error());
        }
        uint64_t t = window_ns ? now_ns() : 0;
        if (window_ns && t >= window_end) {
            if (!first_window) capacity_window(window_end / window_ns, window_ok, t - window_start);
            first_window = 0;
            window_ok = 0;
            window_start = now_ns(); /* the record's own write is in no window */
            window_end = (window_start / window_ns + 1) * window_ns;
        }
    }
    tb_read_counters(&b);
    tb_rec_begin("capacity");
    tb_rec_u64("transactions", ok);
    tb_rec_u64("failures", failed);
    tb_rec_u64("wall_ns", b.wall_ns - a.wall_ns);
    tb_rec_u64("cpu_ns", b.cpu_ns - a.cpu_ns);
    if (first_error[0]) tb_rec_str("error", first_error);
    tb_rec_end();
    tb_end(TB_OK, NULL);
}

static void client(const tb_tls_request *req)
{
    const tb_tls_ops *ops = &tb_library_tls;
    void *endpoint = NULL;
    tb_status st = open_endpoint(req, 0, &endpoint);
    if (st == TB_OK && (req->port == 0 || (req->repeats == 0 && req->duration_ms == 0))) {
        tb_set_error("tls-client needs the server's port, and repeats >= 1 or duration_ms");
        st = TB_BAD_INPUT;
    }
    if (st == TB_OK && req->duration_ms > 0) {
        capacity(req, endpoint);
        if (endpoint != NULL) ops->endpoint_free(endpoint);
        return;
    }
    /* connection ordinal k counts every connection the server sees,
     * including the full handshakes that resumed ones resume and the
     * memory pass (one more, counted, before the first measured one) */
    uint64_t k = 0, calls_before = tb_timed_heap_calls();
    uint64_t bulk = req->foreign ? 0 : req->bulk;
    uint64_t extra = req->memory ? 1 : 0;
    for (uint64_t i = 0; st == TB_OK && i < req->warmup + extra + req->repeats; i++) {
        int counted = extra && i == req->warmup;
        const char *type = i < req->warmup ? "tls_side_warmup" : counted ? "tls_side_memory" : "tls_side";
        void *session = NULL;
        side_result r;
        if (per_measured(req) == 2) {
            tb_timed_begin(0);
            st = client_connection(req, endpoint, NULL, &session, &r);
            tb_timed_end();
            if (st == TB_OK) emit_side("tls_side_warmup", k++, 0, &r, bulk, 0);
        }
        if (!counted) tb_timed_begin(0);
        if (st == TB_OK) st = client_connection(req, endpoint, session, NULL, &r);
        if (!counted) tb_timed_end();
        if (st == TB_OK) emit_side(type, k++, 0, &r, bulk, counted);
        if (session != NULL) ops->session_free(session);
    }
    if (endpoint != NULL) ops->endpoint_free(endpoint);
    if (st == TB_OK) emit_timed_calls(calls_before);
    tb_end(st, st == TB_OK ? NULL : tb_last_error());
}

int tb_platform_verb(const char *verb, const void *fields, size_t n)
{
    int is_server = strcmp(verb, "tls-server") == 0;
    if (!is_server && strcmp(verb, "tls-client") != 0) return 0;
    tb_tls_request req;
    if (tb_tls_request_parse(fields, n, &req) != 0) return 1;
    tb_clear_error();
    if (is_server) server(&req);
    else client(&req);
    return 1;
}
