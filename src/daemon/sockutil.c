/*
 * Unix socket files (see sockutil.h).
 */
#include "daemon/sockutil.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

cz_status cz_unix_socket_reclaim(const char *path, cz_errbuf *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return CZ_OK;
    if (!S_ISSOCK(sb.st_mode))
        return cz_err(err, CZ_ERR_INVALID_ARG, "'%s' exists and is not a socket: refusing to replace it", path);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe >= 0) {
        int live = connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0;
        close(probe);
        if (live)
            return cz_err(err, CZ_ERR_BUSY, "another daemon is listening on '%s'", path);
    }
    unlink(path); /* stale socket of a dead daemon */
    return CZ_OK;
}

cz_status cz_unix_socket_perms(const char *path, unsigned mode, gid_t gid, cz_errbuf *err)
{
    if (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) != 0)
        return cz_err(err, CZ_ERR_IO, "cannot give socket '%s' to group %ld: %s (daemon.socket_group)", path,
                      (long)gid, strerror(errno));
    if (chmod(path, mode & 0777) != 0)
        return cz_err(err, CZ_ERR_IO, "cannot set mode %04o on socket '%s': %s (daemon.socket_mode)", mode, path,
                      strerror(errno));
    return CZ_OK;
}

cz_status cz_group_lookup(const char *name, gid_t *out, cz_errbuf *err)
{
    *out = (gid_t)-1;
    if (!name || !*name)
        return CZ_OK;
    char *end;
    errno = 0;
    unsigned long v = strtoul(name, &end, 10);
    if (*name >= '0' && *name <= '9' && !*end && !errno) {
        *out = (gid_t)v;
        return CZ_OK;
    }
    struct group gr, *res = NULL;
    char buf[4096];
    if (getgrnam_r(name, &gr, buf, sizeof buf, &res) != 0 || !res)
        return cz_err(err, CZ_ERR_INVALID_ARG, "daemon.socket_group: no group named '%s'", name);
    *out = res->gr_gid;
    return CZ_OK;
}
