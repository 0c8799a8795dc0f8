/* Minimal HTTP/1.1 client for cuzkd (see client.h). */
#include "daemon/client.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "daemon/api.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int cz_http_connect(const char *address, cz_errbuf *err)
{
    cz_listen_addr a;
    char msg[256];
    if (!cz_api_parse_listen(address, &a, msg, sizeof msg)) {
        cz_err(err, CZ_ERR_INVALID_ARG, "daemon address: %s", msg);
        return -1;
    }
    if (a.is_unix) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", a.path);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            cz_err(err, CZ_ERR_IO, "connect %s: %s", address, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        return fd;
    }
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    hints.ai_socktype = SOCK_STREAM;
    char port[8];
    snprintf(port, sizeof port, "%u", a.port);
    /* a wildcard listen address is reached through loopback */
    const char *host = a.host;
    if (!strcmp(host, "0.0.0.0"))
        host = "127.0.0.1";
    else if (!strcmp(host, "::"))
        host = "::1";
    if (getaddrinfo(host, port, &hints, &ai) != 0) {
        cz_err(err, CZ_ERR_INVALID_ARG, "bad address %s", address);
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        cz_err(err, CZ_ERR_IO, "connect %s: %s", address, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    return fd;
}

static cz_status wait_fd(const char *address, int fd, short ev, int64_t deadline, cz_errbuf *err)
{
    for (;;) {
        int t = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0)
                return cz_err(err, CZ_ERR_TIMEOUT, "no answer from %s in time", address);
            t = left > 1000000 ? 1000000 : (int)left;
        }
        struct pollfd p = {fd, ev, 0};
        int rc = poll(&p, 1, t);
        if (rc > 0)
            return CZ_OK;
        if (rc < 0 && errno != EINTR)
            return cz_err(err, CZ_ERR_IO, "%s: poll: %s", address, strerror(errno));
    }
}

static cz_status exchange(const char *address, int fd, const void *req, size_t len, const void *body, size_t blen,
                          int timeout_ms, cz_http_response *out, cz_errbuf *err)
{
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    const struct {
        const char *p;
        size_t n;
    } parts[2] = {{req, len}, {body, blen}};
    for (int k = 0; k < 2; k++) {
        size_t off = 0;
        while (off < parts[k].n) {
            cz_status st = wait_fd(address, fd, POLLOUT, deadline, err);
            if (st != CZ_OK)
                return st;
            ssize_t w = send(fd, parts[k].p + off, parts[k].n - off, MSG_NOSIGNAL);
            if (w < 0) {
                if (errno == EINTR || errno == EAGAIN)
                    continue;
                /* the server may answer early (413/401) and close: read it */
                if (errno == EPIPE || errno == ECONNRESET)
                    break;
                return cz_err(err, CZ_ERR_IO, "send to %s: %s", address, strerror(errno));
            }
            off += (size_t)w;
        }
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return CZ_ERR_NOMEM;
    for (;;) {
        cz_status st = wait_fd(address, fd, POLLIN, deadline, err);
        if (st != CZ_OK) {
            free(buf);
            return st;
        }
        if (n + 4096 > cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return CZ_ERR_NOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = recv(fd, buf + n, cap - n - 1, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == ECONNRESET && n > 0)
            break;
        if (r < 0) {
            free(buf);
            return cz_err(err, CZ_ERR_IO, "receive from %s: %s", address, strerror(errno));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    int code = 0;
    char *hend = strstr(buf, "\r\n\r\n");
    if (n < 12 || strncmp(buf, "HTTP/1.", 7) || sscanf(buf + 9, "%3d", &code) != 1 || !hend) {
        free(buf);
        return cz_err(err, CZ_ERR_FORMAT, "%s: not an HTTP response (%zu bytes)", address, n);
    }
    char *b = hend + 4;
    size_t blen2 = n - (size_t)(b - buf);
    /* honour Content-Length if present (never read past it) */
    for (char *h = strstr(buf, "\r\n"); h && h < hend; h = strstr(h + 2, "\r\n")) {
        if (!strncasecmp(h + 2, "Content-Length:", 15)) {
            unsigned long long cl = strtoull(h + 17, NULL, 10);
            if (cl < blen2)
                blen2 = (size_t)cl;
        }
    }
    memmove(buf, b, blen2);
    buf[blen2] = 0;
    out->status = code;
    out->body = buf;
    out->len = blen2;
    return CZ_OK;
}

cz_status cz_http_raw(const char *address, const void *req, size_t len, int timeout_ms, cz_http_response *out,
                      cz_errbuf *err)
{
    memset(out, 0, sizeof *out);
    int fd = cz_http_connect(address, err);
    if (fd < 0)
        return CZ_ERR_IO;
    cz_status st = exchange(address, fd, req, len, NULL, 0, timeout_ms, out, err);
    close(fd);
    return st;
}

cz_status cz_http_call(const char *address, const char *token, const char *method, const char *path,
                       const void *body, size_t len, int timeout_ms, cz_http_response *out, cz_errbuf *err)
{
    memset(out, 0, sizeof *out);
    int fd = cz_http_connect(address, err);
    if (fd < 0)
        return CZ_ERR_IO;
    char hdr[2048];
    int hn = snprintf(hdr, sizeof hdr,
                      "%s %s HTTP/1.1\r\nHost: cuzkd\r\nConnection: close\r\nContent-Length: %zu\r\n"
                      "%s%s%s%s\r\n",
                      method, path, len, body ? "Content-Type: application/json\r\n" : "",
                      token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "");
    if (hn < 0 || (size_t)hn >= sizeof hdr) {
        close(fd);
        return cz_err(err, CZ_ERR_INVALID_ARG, "request header too long");
    }
    cz_status st = exchange(address, fd, hdr, (size_t)hn, body, body ? len : 0, timeout_ms, out, err);
    close(fd);
    return st;
}

void cz_http_response_free(cz_http_response *r)
{
    if (r) {
        free(r->body);
        r->body = NULL;
        r->len = 0;
    }
}
