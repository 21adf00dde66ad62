/* fault_proxy: an HTTP/1.1 reverse proxy for tests that injects the faults
 * object stores produce (503 ServiceUnavailable, 503 SlowDown, 500
 * InternalError, a connection reset in the middle of a body, a truncated
 * body, a stalled body) with a seeded probability per request.
 *
 *   fault_proxy [flags] UPSTREAM_HOST:PORT
 *
 * It listens on 127.0.0.1 (--port, 0 = any free port), prints "listening PORT"
 * as its first line of stdout, and forwards each request unchanged (Host
 * header included, so SigV4 and Shared Key signatures made for the proxy's
 * address still verify upstream), one thread per client connection, with
 * keep-alive on both sides. On SIGTERM or SIGINT it prints one summary line
 * and writes --stats FILE as JSON.
 *
 * It never prints request or response headers, paths or query strings: they
 * carry credentials (Authorization, presigned URLs).
 *
 * Only libc and pthreads: it is a test tool, not part of the library. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#define HEAD_MAX (64 * 1024)
#define BUF_SIZE (64 * 1024)

enum fault {
  FAULT_NONE = -1,
  FAULT_STATUS_503 = 0,
  FAULT_SLOWDOWN,
  FAULT_ERROR_500,
  FAULT_RESET_MID_BODY,
  FAULT_TRUNCATE,
  FAULT_STALL,
  FAULT_COUNT
};

static const char *const fault_names[FAULT_COUNT] = {
    "status_503", "slowdown", "error_500", "reset_mid_body", "truncate", "stall"};
static const char *const fault_flags[FAULT_COUNT] = {
    "--status-503", "--slowdown", "--error-500", "--reset-mid-body", "--truncate", "--stall"};

struct options {
  const char *upstream_host;
  const char *upstream_port;
  int listen_port;
  double prob[FAULT_COUNT];
  long stall_ms;
  long latency_ms;
  long rate_kib_s; /* 0: as fast as the sockets go */
  long max_faults; /* < 0: no limit */
  uint64_t seed;
  const char *only_method;
  const char *only_path;
  const char *stats_path;
  int verbose;
};

static struct options opt;

/* Counters and the random stream, shared by the connection threads. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rng_state;
static unsigned long long n_requests, n_forwarded, n_connections, n_upstream_errors;
static unsigned long long n_faults[FAULT_COUNT];
static unsigned long long n_faults_total;
static unsigned long long bytes_up, bytes_down;

/* splitmix64: small, well mixed, and the same sequence on every platform. */
static uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double rng_uniform(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void add_counter(unsigned long long *counter, unsigned long long n) {
  pthread_mutex_lock(&lock);
  *counter += n;
  pthread_mutex_unlock(&lock);
}

/* ---- buffered sockets ---- */

struct sock {
  int fd;
  size_t off, len; /* unread bytes are buf[off, len) */
  char buf[BUF_SIZE];
};

static void sock_init(struct sock *s, int fd) {
  s->fd = fd;
  s->off = s->len = 0;
}

static void sock_close(struct sock *s) {
  if (s->fd >= 0) close(s->fd);
  s->fd = -1;
  s->off = s->len = 0;
}

/* Reads more bytes into the buffer. Returns the count, 0 at EOF, -1 on error. */
static ssize_t sock_fill(struct sock *s) {
  if (s->off == s->len) s->off = s->len = 0;
  if (s->off > 0 && s->len == sizeof s->buf) {
    memmove(s->buf, s->buf + s->off, s->len - s->off);
    s->len -= s->off;
    s->off = 0;
  }
  if (s->len == sizeof s->buf) return -1;
  for (;;) {
    ssize_t n = recv(s->fd, s->buf + s->len, sizeof s->buf - s->len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) s->len += (size_t)n;
    return n;
  }
}

static int send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Reads a header block (up to and including the empty line) and moves it out
 * of the buffer into head. Returns its length, 0 at a clean EOF before any
 * byte, -1 on error or when it exceeds HEAD_MAX. */
static long read_head(struct sock *s, char *head) {
  for (;;) {
    size_t avail = s->len - s->off;
    char *start = s->buf + s->off;
    for (size_t i = 3; i < avail; i++) {
      if (start[i] == '\n' && start[i - 1] == '\r' && start[i - 2] == '\n' && start[i - 3] == '\r') {
        size_t n = i + 1;
        if (n >= HEAD_MAX) return -1;
        memcpy(head, start, n);
        head[n] = '\0';
        s->off += n;
        return (long)n;
      }
    }
    if (avail >= HEAD_MAX) return -1;
    /* Interim lines before a request (a stray CRLF between pipelined
     * requests) are tolerated by skipping them. */
    if (avail >= 2 && start[0] == '\r' && start[1] == '\n') {
      s->off += 2;
      continue;
    }
    ssize_t n = sock_fill(s);
    if (n == 0) return avail == 0 ? 0 : -1;
    if (n < 0) return -1;
  }
}

/* ---- HTTP head parsing ---- */

struct head {
  char *raw;  /* the block as received, NUL-terminated */
  long len;
  char method[16];
  const char *target; /* points into a copy, for the path filter */
  char target_buf[8192];
  int minor;       /* HTTP/1.x */
  int status;      /* responses */
  int chunked;
  long long content_length; /* -1: absent */
  int conn_close;
  int conn_keep_alive;
  int expect_continue;
};

static int header_has_token(const char *value, size_t vlen, const char *token) {
  size_t tl = strlen(token);
  size_t i = 0;
  while (i < vlen) {
    while (i < vlen && (value[i] == ' ' || value[i] == '\t' || value[i] == ',')) i++;
    size_t j = i;
    while (j < vlen && value[j] != ',') j++;
    size_t e = j;
    while (e > i && (value[e - 1] == ' ' || value[e - 1] == '\t')) e--;
    if (e - i == tl && strncasecmp(value + i, token, tl) == 0) return 1;
    i = j;
  }
  return 0;
}

/* Parses the header lines after the start line. Returns 0, or -1 if malformed. */
static int parse_headers(struct head *h, const char *p) {
  h->chunked = 0;
  h->content_length = -1;
  h->conn_close = h->conn_keep_alive = h->expect_continue = 0;
  for (;;) {
    const char *eol = strstr(p, "\r\n");
    if (!eol) return -1;
    if (eol == p) return 0;
    const char *colon = memchr(p, ':', (size_t)(eol - p));
    if (!colon || colon == p) return -1;
    size_t nlen = (size_t)(colon - p);
    const char *v = colon + 1;
    while (v < eol && (*v == ' ' || *v == '\t')) v++;
    size_t vlen = (size_t)(eol - v);
    if (nlen == 14 && strncasecmp(p, "content-length", 14) == 0) {
      long long cl = 0;
      if (vlen == 0) return -1;
      for (size_t i = 0; i < vlen; i++) {
        if (v[i] == ' ' || v[i] == '\t') break;
        if (v[i] < '0' || v[i] > '9' || cl > (LLONG_MAX - 9) / 10) return -1;
        cl = cl * 10 + (v[i] - '0');
      }
      if (h->content_length >= 0 && h->content_length != cl) return -1;
      h->content_length = cl;
    } else if (nlen == 17 && strncasecmp(p, "transfer-encoding", 17) == 0) {
      if (header_has_token(v, vlen, "chunked")) h->chunked = 1;
    } else if (nlen == 10 && strncasecmp(p, "connection", 10) == 0) {
      if (header_has_token(v, vlen, "close")) h->conn_close = 1;
      if (header_has_token(v, vlen, "keep-alive")) h->conn_keep_alive = 1;
    } else if (nlen == 6 && strncasecmp(p, "expect", 6) == 0) {
      if (header_has_token(v, vlen, "100-continue")) h->expect_continue = 1;
    }
    p = eol + 2;
  }
}

static int parse_request(struct head *h) {
  const char *p = h->raw;
  const char *sp1 = strchr(p, ' ');
  if (!sp1 || sp1 == p || (size_t)(sp1 - p) >= sizeof h->method) return -1;
  memcpy(h->method, p, (size_t)(sp1 - p));
  h->method[sp1 - p] = '\0';
  const char *sp2 = strchr(sp1 + 1, ' ');
  const char *eol = strstr(p, "\r\n");
  if (!sp2 || !eol || sp2 > eol) return -1;
  size_t tl = (size_t)(sp2 - sp1 - 1);
  if (tl == 0) return -1;
  if (tl >= sizeof h->target_buf) tl = sizeof h->target_buf - 1;
  memcpy(h->target_buf, sp1 + 1, tl);
  h->target_buf[tl] = '\0';
  h->target = h->target_buf;
  if ((size_t)(eol - sp2 - 1) != 8 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0) return -1;
  char minor = sp2[8];
  if (minor != '0' && minor != '1') return -1;
  h->minor = minor - '0';
  return parse_headers(h, eol + 2);
}

static int parse_response(struct head *h) {
  const char *p = h->raw;
  if (strncmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1') || p[8] != ' ') return -1;
  h->minor = p[7] - '0';
  if (p[9] < '0' || p[9] > '9' || p[10] < '0' || p[10] > '9' || p[11] < '0' || p[11] > '9') return -1;
  h->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
  const char *eol = strstr(p, "\r\n");
  if (!eol) return -1;
  return parse_headers(h, eol + 2);
}

/* ---- body relay ---- */

/* Where relayed bytes go: a socket, with an optional budget after which the
 * relay stops (to inject a fault in the middle of a body). */
struct sink {
  int fd;                 /* -1: discard */
  long long budget;       /* bytes still allowed; < 0: unlimited */
  int half_of_first;      /* budget not known yet: half of the first read */
  unsigned long long *counter;
};

enum relay_result { RELAY_OK = 0, RELAY_BUDGET = 1, RELAY_SRC_ERR = -1, RELAY_DST_ERR = -2 };

static enum relay_result sink_write(struct sink *k, const char *p, size_t n) {
  if (k->half_of_first && n > 0) {
    k->budget = (long long)(n / 2);
    k->half_of_first = 0;
  }
  size_t m = n;
  int hit = 0;
  if (k->budget >= 0 && (long long)m >= k->budget) {
    m = (size_t)k->budget;
    hit = 1;
  }
  if (m > 0) {
    if (k->fd >= 0 && send_all(k->fd, p, m) != 0) return RELAY_DST_ERR;
    if (opt.rate_kib_s > 0) {
      /* Paced per connection, so bodies sent at once overlap in time. */
      long long us = (long long)m * 1000000 / ((long long)opt.rate_kib_s * 1024);
      struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
      nanosleep(&ts, NULL);
    }
    if (k->counter) add_counter(k->counter, m);
    if (k->budget >= 0) k->budget -= (long long)m;
  }
  /* A budget of exactly the remaining length still counts as reached: the
   * fault fires before the last byte would have been sent. */
  return hit && (m < n || k->budget == 0) ? RELAY_BUDGET : RELAY_OK;
}

/* Copies n bytes from src to the sink. */
static enum relay_result relay_n(struct sock *src, struct sink *k, long long n) {
  while (n > 0) {
    if (src->off == src->len) {
      ssize_t r = sock_fill(src);
      if (r <= 0) return RELAY_SRC_ERR;
    }
    size_t avail = src->len - src->off;
    size_t m = (long long)avail < n ? avail : (size_t)n;
    enum relay_result rr = sink_write(k, src->buf + src->off, m);
    if (rr != RELAY_OK) return rr;
    src->off += m;
    n -= (long long)m;
  }
  return RELAY_OK;
}

/* Copies one CRLF-terminated line (the terminator included) and returns it,
 * NUL-terminated, in line. */
static enum relay_result relay_line(struct sock *src, struct sink *k, char *line, size_t cap) {
  for (;;) {
    char *start = src->buf + src->off;
    size_t avail = src->len - src->off;
    char *nl = memchr(start, '\n', avail);
    if (nl) {
      size_t n = (size_t)(nl - start) + 1;
      if (n >= cap) return RELAY_SRC_ERR;
      memcpy(line, start, n);
      line[n] = '\0';
      enum relay_result rr = sink_write(k, start, n);
      if (rr != RELAY_OK) return rr;
      src->off += n;
      return RELAY_OK;
    }
    if (avail >= cap) return RELAY_SRC_ERR;
    ssize_t r = sock_fill(src);
    if (r <= 0) return RELAY_SRC_ERR;
  }
}

/* Copies a chunked body as it is, chunk framing and trailers included. */
static enum relay_result relay_chunked(struct sock *src, struct sink *k) {
  char line[4096];
  for (;;) {
    enum relay_result rr = relay_line(src, k, line, sizeof line);
    if (rr != RELAY_OK) return rr;
    long long size = 0;
    int digits = 0;
    for (const char *p = line; *p; p++) {
      int d;
      if (*p >= '0' && *p <= '9') d = *p - '0';
      else if (*p >= 'a' && *p <= 'f') d = *p - 'a' + 10;
      else if (*p >= 'A' && *p <= 'F') d = *p - 'A' + 10;
      else break;
      if (size > (LLONG_MAX >> 4)) return RELAY_SRC_ERR;
      size = size * 16 + d;
      digits++;
    }
    if (digits == 0) return RELAY_SRC_ERR;
    if (size == 0) {
      /* Trailers, up to the empty line. */
      for (;;) {
        rr = relay_line(src, k, line, sizeof line);
        if (rr != RELAY_OK) return rr;
        if (strcmp(line, "\r\n") == 0 || strcmp(line, "\n") == 0) return RELAY_OK;
      }
    }
    rr = relay_n(src, k, size + 2);
    if (rr != RELAY_OK) return rr;
  }
}

/* Copies until the source closes. */
static enum relay_result relay_to_eof(struct sock *src, struct sink *k) {
  for (;;) {
    if (src->off == src->len) {
      ssize_t r = sock_fill(src);
      if (r == 0) return RELAY_OK;
      if (r < 0) return RELAY_SRC_ERR;
    }
    size_t m = src->len - src->off;
    enum relay_result rr = sink_write(k, src->buf + src->off, m);
    if (rr != RELAY_OK) return rr;
    src->off += m;
  }
}

/* ---- faults ---- */

static enum fault choose_fault(const struct head *req) {
  enum fault f = FAULT_NONE;
  pthread_mutex_lock(&lock);
  n_requests++;
  int eligible = (!opt.only_method || strcmp(req->method, opt.only_method) == 0) &&
                 (!opt.only_path || strstr(req->target, opt.only_path) != NULL);
  if (eligible) {
    /* One draw per kind per eligible request, in a fixed order, so a seed
     * gives the same faults whatever the probabilities of the others; the
     * first kind whose draw hits is injected. */
    for (int i = 0; i < FAULT_COUNT; i++) {
      double u = rng_uniform();
      if (f == FAULT_NONE && opt.prob[i] > 0 && u < opt.prob[i]) f = (enum fault)i;
    }
    if (f != FAULT_NONE && opt.max_faults >= 0 && n_faults_total >= (unsigned long long)opt.max_faults)
      f = FAULT_NONE;
    if (f != FAULT_NONE) {
      n_faults[f]++;
      n_faults_total++;
    }
  }
  pthread_mutex_unlock(&lock);
  return f;
}

static int send_error_response(int fd, enum fault f, int head_only, int keep_alive, unsigned long long id) {
  int status;
  const char *reason, *code, *message;
  switch (f) {
  case FAULT_SLOWDOWN:
    status = 503, reason = "Slow Down", code = "SlowDown", message = "Please reduce your request rate.";
    break;
  case FAULT_ERROR_500:
    status = 500, reason = "Internal Server Error", code = "InternalError",
    message = "We encountered an internal error. Please try again.";
    break;
  default:
    status = 503, reason = "Service Unavailable", code = "ServiceUnavailable",
    message = "Service is unable to handle request.";
    break;
  }
  char body[512], out[1024];
  int bn = snprintf(body, sizeof body,
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<Error><Code>%s</Code><Message>%s</Message>"
                    "<RequestId>faultproxy-%llu</RequestId></Error>",
                    code, message, id);
  int on = snprintf(out, sizeof out,
                    "HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n"
                    "x-amz-request-id: faultproxy-%llu\r\nConnection: %s\r\n\r\n%s",
                    status, reason, bn, id, keep_alive ? "keep-alive" : "close", head_only ? "" : body);
  return send_all(fd, out, (size_t)on);
}

static int send_simple(int fd, int status, const char *reason) {
  char out[256];
  int n = snprintf(out, sizeof out,
                   "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status, reason);
  return send_all(fd, out, (size_t)n);
}

static void close_with_reset(struct sock *s) {
  struct linger lg;
  lg.l_onoff = 1;
  lg.l_linger = 0;
  if (s->fd >= 0) setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  sock_close(s);
}

static void close_gracefully(struct sock *s) {
  if (s->fd >= 0) shutdown(s->fd, SHUT_WR);
  sock_close(s);
}

/* ---- connections ---- */

static int connect_upstream(void) {
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(opt.upstream_host, opt.upstream_port, &hints, &res) != 0) return -1;
  int fd = -1;
  for (struct addrinfo *a = res; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd >= 0) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

/* A kept-alive upstream connection the server has closed (or that has stray
 * bytes) reads as ready; it is not reused. */
static int upstream_usable(const struct sock *up) {
  if (up->fd < 0 || up->off != up->len) return 0;
  struct pollfd p;
  p.fd = up->fd;
  p.events = POLLIN;
  p.revents = 0;
  return poll(&p, 1, 0) == 0;
}

struct conn {
  struct sock client;
  struct sock up;
  char req_raw[HEAD_MAX + 1];
  char resp_raw[HEAD_MAX + 1];
  struct head req;
  struct head resp;
};

static void verbose_line(const struct conn *c, enum fault f, int status) {
  if (!opt.verbose) return;
  /* Method, fault and status only: headers, paths and queries may carry secrets. */
  fprintf(stderr, "fault_proxy: %s fault=%s status=%d\n", c->req.method,
          f == FAULT_NONE ? "none" : fault_names[f], status);
}

static int request_has_body(const struct head *h) { return h->chunked || h->content_length > 0; }

/* Reads and drops a request body. */
static int discard_request_body(struct conn *c) {
  struct sink k = {-1, -1, 0, NULL};
  if (c->req.chunked) return relay_chunked(&c->client, &k) == RELAY_OK ? 0 : -1;
  if (c->req.content_length > 0) return relay_n(&c->client, &k, c->req.content_length) == RELAY_OK ? 0 : -1;
  return 0;
}

static int response_has_body(const struct head *req, const struct head *resp) {
  if (strcmp(req->method, "HEAD") == 0) return 0;
  if (resp->status == 204 || resp->status == 304 || resp->status < 200) return 0;
  if (!resp->chunked && resp->content_length == 0) return 0;
  return 1;
}

enum outcome { KEEP = 0, CLOSE = 1 };

/* Handles one request whose head is in c->req. */
static enum outcome handle_request(struct conn *c) {
  enum fault f = choose_fault(&c->req);
  unsigned long long id;
  pthread_mutex_lock(&lock);
  id = n_requests;
  pthread_mutex_unlock(&lock);

  if (opt.latency_ms > 0) sleep_ms(opt.latency_ms);

  int client_keep = c->req.minor == 1 ? !c->req.conn_close : c->req.conn_keep_alive;

  if (f == FAULT_STATUS_503 || f == FAULT_SLOWDOWN || f == FAULT_ERROR_500) {
    /* A client waiting for 100 Continue has not sent its body: answer and
     * close, as servers do when they refuse a body. */
    if (c->req.expect_continue && request_has_body(&c->req)) client_keep = 0;
    else if (discard_request_body(c) != 0) return CLOSE;
    int head_only = strcmp(c->req.method, "HEAD") == 0;
    verbose_line(c, f, f == FAULT_ERROR_500 ? 500 : 503);
    if (send_error_response(c->client.fd, f, head_only, client_keep, id) != 0) return CLOSE;
    return client_keep ? KEEP : CLOSE;
  }

  int reused = 0;
  if (c->up.fd >= 0 && !upstream_usable(&c->up)) sock_close(&c->up);
  if (c->up.fd >= 0) reused = 1;

  struct sink to_up = {-1, -1, 0, &bytes_up};
  struct sink to_client = {c->client.fd, -1, 0, &bytes_down};
  long resp_len;
  int abandon_up = 0;
  for (int attempt = 0;; attempt++) {
    if (c->up.fd < 0) {
      int fd = connect_upstream();
      if (fd < 0) {
        add_counter(&n_upstream_errors, 1);
        verbose_line(c, f, 502);
        send_simple(c->client.fd, 502, "Bad Gateway");
        return CLOSE;
      }
      sock_init(&c->up, fd);
    }
    to_up.fd = c->up.fd;
    if (send_all(c->up.fd, c->req.raw, (size_t)c->req.len) != 0) goto upstream_failed;
    add_counter(&bytes_up, (unsigned long long)c->req.len);
    if (attempt == 0) add_counter(&n_forwarded, 1);

    if (request_has_body(&c->req)) {
      if (c->req.expect_continue) {
        /* Relay the body once the client sends it (it stops waiting for
         * 100 Continue after a while) or once the server says 100 Continue;
         * a final answer instead ends the exchange below. */
        for (;;) {
          if (c->client.off != c->client.len) break;
          struct pollfd p[2];
          p[0].fd = c->client.fd, p[0].events = POLLIN, p[0].revents = 0;
          p[1].fd = c->up.fd, p[1].events = POLLIN, p[1].revents = 0;
          if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return CLOSE;
          }
          if (p[1].revents) {
            resp_len = read_head(&c->up, c->resp_raw);
            if (resp_len <= 0) goto upstream_failed;
            c->resp.raw = c->resp_raw;
            c->resp.len = resp_len;
            if (parse_response(&c->resp) != 0) goto upstream_failed;
            if (c->resp.status == 100) {
              if (send_all(c->client.fd, c->resp.raw, (size_t)c->resp.len) != 0) return CLOSE;
              add_counter(&bytes_down, (unsigned long long)c->resp.len);
              break;
            }
            /* A final answer without the body: pass it on, then close both
             * sides since the client may or may not send the body. */
            client_keep = 0;
            abandon_up = 1;
            goto have_response;
          }
          if (p[0].revents) break;
        }
      }
      enum relay_result rr = c->req.chunked ? relay_chunked(&c->client, &to_up)
                                            : relay_n(&c->client, &to_up, c->req.content_length);
      if (rr == RELAY_SRC_ERR) return CLOSE;
      if (rr != RELAY_OK) goto upstream_failed;
    }

    /* The response head, skipping interim 1xx answers (passed on). */
    for (;;) {
      resp_len = read_head(&c->up, c->resp_raw);
      if (resp_len <= 0) goto upstream_failed;
      c->resp.raw = c->resp_raw;
      c->resp.len = resp_len;
      if (parse_response(&c->resp) != 0) goto upstream_failed;
      if (c->resp.status >= 200 || c->resp.status == 101) break;
      if (send_all(c->client.fd, c->resp.raw, (size_t)c->resp.len) != 0) return CLOSE;
      add_counter(&bytes_down, (unsigned long long)c->resp.len);
    }
    break;

  upstream_failed:
    sock_close(&c->up);
    /* A kept-alive connection the server closed just as the request went
     * out: resend once on a fresh one when the request had no body. */
    if (reused && attempt == 0 && !request_has_body(&c->req)) continue;
    add_counter(&n_upstream_errors, 1);
    verbose_line(c, f, 502);
    send_simple(c->client.fd, 502, "Bad Gateway");
    return CLOSE;
  }

have_response:;
  int up_keep = !abandon_up && (c->resp.minor == 1 ? !c->resp.conn_close : c->resp.conn_keep_alive);
  int has_body = response_has_body(&c->req, &c->resp);
  int delimited_by_close = has_body && !c->resp.chunked && c->resp.content_length < 0;
  if (delimited_by_close) up_keep = 0, client_keep = 0;
  if (c->resp.status == 101) client_keep = 0; /* no upgrades through this proxy */
  verbose_line(c, f, c->resp.status);

  int body_fault = f == FAULT_RESET_MID_BODY || f == FAULT_TRUNCATE || f == FAULT_STALL;
  if (send_all(c->client.fd, c->resp.raw, (size_t)c->resp.len) != 0) return CLOSE;
  add_counter(&bytes_down, (unsigned long long)c->resp.len);

  enum relay_result rr = RELAY_OK;
  if (body_fault && has_body) {
    if (!c->resp.chunked && c->resp.content_length >= 0) to_client.budget = c->resp.content_length / 2;
    else to_client.half_of_first = 1;
  } else if (body_fault) {
    to_client.budget = 0;
    rr = RELAY_BUDGET;
  }
  if (has_body && rr == RELAY_OK) {
    if (c->resp.chunked) rr = relay_chunked(&c->up, &to_client);
    else if (c->resp.content_length >= 0) rr = relay_n(&c->up, &to_client, c->resp.content_length);
    else rr = relay_to_eof(&c->up, &to_client);
  }
  if (rr == RELAY_BUDGET) {
    sock_close(&c->up);
    if (f == FAULT_RESET_MID_BODY) {
      close_with_reset(&c->client);
    } else if (f == FAULT_TRUNCATE) {
      close_gracefully(&c->client);
    } else {
      sleep_ms(opt.stall_ms);
      close_gracefully(&c->client);
    }
    return CLOSE;
  }
  if (rr != RELAY_OK) {
    if (rr == RELAY_SRC_ERR) add_counter(&n_upstream_errors, 1);
    sock_close(&c->up);
    /* The client got part of a response: a reset tells it so. */
    close_with_reset(&c->client);
    return CLOSE;
  }
  if (body_fault) {
    /* The body ended inside the budget (a tiny or empty body): the fault is
     * still delivered, after the last byte, as a broken connection. */
    sock_close(&c->up);
    if (f == FAULT_STALL) sleep_ms(opt.stall_ms);
    if (f == FAULT_RESET_MID_BODY) close_with_reset(&c->client);
    else close_gracefully(&c->client);
    return CLOSE;
  }
  if (!up_keep) sock_close(&c->up);
  if (c->resp.conn_close) client_keep = 0;
  return client_keep ? KEEP : CLOSE;
}

static void *connection_main(void *arg) {
  struct conn *c = arg;
  for (;;) {
    long n = read_head(&c->client, c->req_raw);
    if (n == 0) break;
    if (n < 0) {
      if (c->client.len - c->client.off >= HEAD_MAX) send_simple(c->client.fd, 431, "Request Header Fields Too Large");
      break;
    }
    c->req.raw = c->req_raw;
    c->req.len = n;
    if (parse_request(&c->req) != 0 || (c->req.chunked && c->req.content_length >= 0)) {
      send_simple(c->client.fd, 400, "Bad Request");
      break;
    }
    if (handle_request(c) != KEEP) break;
  }
  sock_close(&c->client);
  sock_close(&c->up);
  free(c);
  return NULL;
}

static int listen_fd = -1;

static void *accept_main(void *arg) {
  (void)arg;
  for (;;) {
    int fd = accept(listen_fd, NULL, NULL);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        sleep_ms(10);
        continue;
      }
      perror("fault_proxy: accept");
      return NULL;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct conn *c = malloc(sizeof *c);
    if (!c) {
      close(fd);
      continue;
    }
    sock_init(&c->client, fd);
    sock_init(&c->up, -1);
    add_counter(&n_connections, 1);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, connection_main, c) != 0) {
      close(fd);
      free(c);
    }
    pthread_attr_destroy(&attr);
  }
}

/* ---- stats ---- */

static void write_stats(void) {
  pthread_mutex_lock(&lock);
  printf("fault_proxy: requests=%llu forwarded=%llu connections=%llu faults=%llu (", n_requests,
         n_forwarded, n_connections, n_faults_total);
  for (int i = 0; i < FAULT_COUNT; i++) printf("%s%s=%llu", i ? " " : "", fault_names[i], n_faults[i]);
  printf(") upstream_errors=%llu bytes_up=%llu bytes_down=%llu\n", n_upstream_errors, bytes_up, bytes_down);
  fflush(stdout);
  if (opt.stats_path) {
    size_t pl = strlen(opt.stats_path);
    char *tmp = malloc(pl + 5);
    if (tmp) {
      memcpy(tmp, opt.stats_path, pl);
      memcpy(tmp + pl, ".tmp", 5);
      FILE *f = fopen(tmp, "w");
      if (f) {
        fprintf(f, "{\"requests\": %llu, \"forwarded\": %llu, \"connections\": %llu, \"faults_total\": %llu, \"faults\": {",
                n_requests, n_forwarded, n_connections, n_faults_total);
        for (int i = 0; i < FAULT_COUNT; i++)
          fprintf(f, "%s\"%s\": %llu", i ? ", " : "", fault_names[i], n_faults[i]);
        fprintf(f, "}, \"upstream_errors\": %llu, \"bytes_up\": %llu, \"bytes_down\": %llu}\n",
                n_upstream_errors, bytes_up, bytes_down);
        if (fclose(f) == 0 && rename(tmp, opt.stats_path) == 0) {
        } else {
          fprintf(stderr, "fault_proxy: cannot write %s\n", opt.stats_path);
        }
      } else {
        fprintf(stderr, "fault_proxy: cannot write %s\n", opt.stats_path);
      }
      free(tmp);
    }
  }
  pthread_mutex_unlock(&lock);
}

/* ---- command line ---- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: fault_proxy [flags] UPSTREAM_HOST:PORT\n"
          "  --port N                 listen on 127.0.0.1:N (default 0: any free port)\n"
          "  --seed N                 seed of the fault draws (default 1)\n"
          "  --status-503 P           answer 503 ServiceUnavailable without forwarding\n"
          "  --slowdown P             answer 503 SlowDown without forwarding\n"
          "  --error-500 P            answer 500 InternalError without forwarding\n"
          "  --reset-mid-body P       forward, send the head and half the body, then reset\n"
          "  --truncate P             forward, send the head and half the body, then close\n"
          "  --stall P                forward, send the head and half the body, wait --stall-ms, close\n"
          "  --stall-ms MS            how long a stall lasts (default 10000)\n"
          "  --latency-ms MS          delay before each request is answered or forwarded\n"
          "  --rate-kib-s N           relay each connection's bytes at most N KiB a second\n"
          "  --max-faults N           inject at most N faults in all\n"
          "  --only-method M          inject faults only into requests with method M\n"
          "  --only-path-substring S  inject faults only into requests whose target contains S\n"
          "  --stats FILE             write counters as JSON at SIGTERM/SIGINT\n"
          "  --verbose                one line per request on stderr (method, fault, status)\n"
          "P is a probability in [0, 1], drawn per request and kind in the order above.\n");
}

static int parse_prob(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= 0.0 && v <= 1.0)) return -1;
  *out = v;
  return 0;
}

static int parse_long(const char *s, long lo, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo) return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv) {
  opt.stall_ms = 10000;
  opt.max_faults = -1;
  opt.seed = 1;
  const char *upstream = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    }
    if (strcmp(a, "--verbose") == 0) {
      opt.verbose = 1;
      continue;
    }
    if (a[0] == '-' && a[1] == '-') {
      if (!v) {
        fprintf(stderr, "fault_proxy: %s needs a value\n", a);
        return -1;
      }
      i++;
      int known = 0, bad = 0;
      for (int k = 0; k < FAULT_COUNT; k++) {
        if (strcmp(a, fault_flags[k]) == 0) known = 1, bad = parse_prob(v, &opt.prob[k]);
      }
      long n = 0;
      if (known) {
      } else if (strcmp(a, "--port") == 0) {
        known = 1, bad = parse_long(v, 0, &n) || n > 65535, opt.listen_port = (int)n;
      } else if (strcmp(a, "--seed") == 0) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 10);
        known = 1, bad = errno || end == v || *end, opt.seed = s;
      } else if (strcmp(a, "--stall-ms") == 0) {
        known = 1, bad = parse_long(v, 0, &opt.stall_ms);
      } else if (strcmp(a, "--latency-ms") == 0) {
        known = 1, bad = parse_long(v, 0, &opt.latency_ms);
      } else if (strcmp(a, "--rate-kib-s") == 0) {
        known = 1, bad = parse_long(v, 0, &opt.rate_kib_s);
      } else if (strcmp(a, "--max-faults") == 0) {
        known = 1, bad = parse_long(v, 0, &opt.max_faults);
      } else if (strcmp(a, "--only-method") == 0) {
        known = 1, opt.only_method = v;
      } else if (strcmp(a, "--only-path-substring") == 0) {
        known = 1, opt.only_path = v;
      } else if (strcmp(a, "--stats") == 0) {
        known = 1, opt.stats_path = v;
      }
      if (!known) {
        fprintf(stderr, "fault_proxy: unknown flag %s\n", a);
        return -1;
      }
      if (bad) {
        fprintf(stderr, "fault_proxy: bad value for %s: %s\n", a, v);
        return -1;
      }
      continue;
    }
    if (upstream) {
      fprintf(stderr, "fault_proxy: more than one upstream given\n");
      return -1;
    }
    upstream = a;
  }
  if (!upstream) {
    fprintf(stderr, "fault_proxy: no upstream HOST:PORT given\n");
    return -1;
  }
  const char *colon = strrchr(upstream, ':');
  if (!colon || colon == upstream || !colon[1]) {
    fprintf(stderr, "fault_proxy: the upstream must be HOST:PORT\n");
    return -1;
  }
  static char host[256];
  size_t hl = (size_t)(colon - upstream);
  if (hl >= sizeof host) return -1;
  memcpy(host, upstream, hl);
  host[hl] = '\0';
  /* [::1]:80 */
  if (host[0] == '[' && hl >= 2 && host[hl - 1] == ']') {
    memmove(host, host + 1, hl - 2);
    host[hl - 2] = '\0';
  }
  opt.upstream_host = host;
  opt.upstream_port = colon + 1;
  return 0;
}

int main(int argc, char **argv) {
  if (parse_args(argc, argv) != 0) {
    usage(stderr);
    return 2;
  }
  rng_state = opt.seed;

  signal(SIGPIPE, SIG_IGN);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  /* The connection threads inherit the mask; only sigwait below sees them. */
  pthread_sigmask(SIG_BLOCK, &stop, NULL);

  listen_fd = socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd < 0) {
    perror("fault_proxy: socket");
    return 1;
  }
  int one = 1;
  setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons((uint16_t)opt.listen_port);
  if (bind(listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listen_fd, 128) != 0) {
    perror("fault_proxy: bind/listen on 127.0.0.1");
    return 1;
  }
  socklen_t alen = sizeof addr;
  if (getsockname(listen_fd, (struct sockaddr *)&addr, &alen) != 0) {
    perror("fault_proxy: getsockname");
    return 1;
  }
  printf("listening %d\n", ntohs(addr.sin_port));
  fflush(stdout);

  pthread_t acceptor;
  if (pthread_create(&acceptor, NULL, accept_main, NULL) != 0) {
    fprintf(stderr, "fault_proxy: cannot start the accept thread\n");
    return 1;
  }
  int sig = 0;
  while (sigwait(&stop, &sig) != 0) {
  }
  write_stats();
  /* The connection threads may be mid-transfer: leave without running
   * exit handlers under them. */
  _exit(0);
}
