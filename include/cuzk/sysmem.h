/*
 * cuzk — how much memory this process may use: the machine's RAM, or less
 * when a control group limits it.
 *
 * A daemon under systemd (MemoryMax=, MemoryHigh=), in a container
 * (docker --memory, Kubernetes limits) or in a cgroup set up by hand is
 * killed by the kernel at the group's limit, not at MemTotal. A budget
 * taken from /proc/meminfo alone then lets the engine plan for memory it
 * will never get. cz_sys_memory_limit reads both and returns the smaller.
 *
 * What is read (paths below are under `root`, "/" in production):
 *   /proc/meminfo          MemTotal
 *   /proc/self/cgroup      the process's group path per hierarchy
 *                          ("0::/path" for cgroup v2, "N:memory:/path" v1)
 *   /proc/self/mountinfo   where each hierarchy is mounted, and which part
 *                          of it the mount shows (its root field)
 *   cgroup v2: memory.max and memory.high ("max" = none) of the process's
 *              group and every ancestor up to the mount;
 *   cgroup v1: memory.limit_in_bytes of the same (values at or above 2^62
 *              mean none: the kernel reports "unlimited" as PAGE_COUNTER_MAX
 *              pages, 0x7ffffffffffff000 on x86-64).
 * An ancestor's limit binds its descendants, so the smallest limit on the
 * path wins. memory.high is counted as a limit: past it the kernel
 * throttles the group into reclaim, which for a prover holding tens of
 * GiB of parameters is as bad as being killed.
 *
 * When the group path is not under the mount's root (a cgroup namespace
 * shows the container's group as "/" while /proc/self/cgroup may name the
 * host's path), the mount point itself is the group's directory.
 * Files that cannot be read are skipped: no cgroup file means no cgroup
 * limit, never an error.
 */
#ifndef CUZK_SYSMEM_H
#define CUZK_SYSMEM_H

#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t limit;     /* min(meminfo, cgroup); 0 when neither is known */
    uint64_t meminfo;   /* MemTotal in bytes; 0 if unreadable */
    uint64_t cgroup;    /* the smallest cgroup limit; 0 = none found */
    char source[512];   /* the file that gave `limit` ("/proc/meminfo" or a cgroup file) */
} cz_sys_memory;

/* Fills *out as described above. root NULL means "/" (tests pass a
 * directory that mimics /proc and /sys). Returns CZ_ERR_NOT_FOUND when
 * neither MemTotal nor any cgroup limit could be read (out->limit = 0),
 * CZ_ERR_INVALID_ARG when out is NULL. */
CZ_WUR cz_status cz_sys_memory_limit(cz_sys_memory *out, const char *root);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_SYSMEM_H */
