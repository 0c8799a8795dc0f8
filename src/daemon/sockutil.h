/*
 * Unix socket files shared by cuzkd's HTTP and gRPC listeners.
 */
#ifndef CZ_DAEMON_SOCKUTIL_H
#define CZ_DAEMON_SOCKUTIL_H

#include <sys/types.h>
#include "cuzk/common.h"

/* Makes path free for a new socket: nothing there is fine; a stale socket
 * (nobody answers) is removed; a live one is CZ_ERR_BUSY ("another daemon
 * is listening"); anything that is not a socket is CZ_ERR_INVALID_ARG
 * (never replaced). */
CZ_WUR cz_status cz_unix_socket_reclaim(const char *path, cz_errbuf *err);

/* Applies the configured permission bits and group (gid (gid_t)-1: leave
 * it) to a socket file created 0600. */
CZ_WUR cz_status cz_unix_socket_perms(const char *path, unsigned mode, gid_t gid, cz_errbuf *err);

/* "" -> (gid_t)-1; a group name or a decimal gid -> its gid. */
CZ_WUR cz_status cz_group_lookup(const char *name, gid_t *out, cz_errbuf *err);

#endif
