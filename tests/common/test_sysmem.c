/*
 * cz_sys_memory_limit on made-up /proc and /sys trees: cgroup v2 (limit on
 * the group, on an ancestor, "max", memory.high), cgroup v1, a cgroup
 * namespace whose path is not under the mount's root, no cgroup at all,
 * and this machine's own files (whatever they say, the limit never exceeds
 * MemTotal).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/sysmem.h"
#include "testutil.h"

static char g_root[256];

static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", g_root, rel);
    /* mkdir -p of the parent */
    for (char *p = path + strlen(g_root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    if (cz_test_dir_make(g_root, sizeof g_root, "cz-sysmem-")) return -1;
    put("/proc/meminfo", "MemTotal:       16000000 kB\nMemFree:         1000 kB\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cz_test_dir_remove(g_root);
}

static const char V2_MOUNT[] =
    "22 1 0:21 / /proc rw - proc proc rw\n"
    "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";

static void test_v2_group_limit(void **state)
{
    (void)state;
    put("/proc/self/cgroup", "0::/system.slice/cuzkd.service\n");
    put("/proc/self/mountinfo", V2_MOUNT);
    put("/sys/fs/cgroup/memory.max", "max\n");
    put("/sys/fs/cgroup/system.slice/memory.max", "max\n");
    put("/sys/fs/cgroup/system.slice/cuzkd.service/memory.max", "8589934592\n");
    put("/sys/fs/cgroup/system.slice/cuzkd.service/memory.high", "max\n");
    cz_sys_memory m;
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.meminfo, 16000000ull * 1024);
    assert_int_equal(m.cgroup, 8589934592ull);
    assert_int_equal(m.limit, 8589934592ull);
    assert_non_null(strstr(m.source, "cuzkd.service/memory.max"));

    /* an ancestor's lower limit binds, and memory.high counts */
    put("/sys/fs/cgroup/system.slice/memory.max", "4294967296\n");
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.limit, 4294967296ull);
    assert_non_null(strstr(m.source, "system.slice/memory.max"));
    put("/sys/fs/cgroup/system.slice/cuzkd.service/memory.high", "2147483648\n");
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.limit, 2147483648ull);
    assert_non_null(strstr(m.source, "memory.high"));

    /* limits above MemTotal change nothing */
    put("/sys/fs/cgroup/system.slice/memory.max", "max\n");
    put("/sys/fs/cgroup/system.slice/cuzkd.service/memory.max", "99999999999999\n");
    put("/sys/fs/cgroup/system.slice/cuzkd.service/memory.high", "max\n");
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.limit, 16000000ull * 1024);
    assert_string_equal(m.source, "/proc/meminfo");
}

static void test_v2_namespace(void **state)
{
    (void)state;
    /* The container sees its own group as the mount's root, while
     * /proc/self/cgroup names a path that does not exist under it. */
    put("/proc/self/cgroup", "0::/../../host/path\n");
    put("/proc/self/mountinfo",
        "30 25 0:26 /kubepods/pod1/ctr /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw\n");
    put("/sys/fs/cgroup/memory.max", "1073741824\n");
    put("/sys/fs/cgroup/memory.high", "max\n");
    cz_sys_memory m;
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.limit, 1073741824ull);
}

static void test_v1(void **state)
{
    (void)state;
    put("/proc/self/cgroup", "12:pids:/user\n4:memory:/docker/abc\n0::/\n");
    put("/proc/self/mountinfo",
        "25 22 0:23 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"
        "31 25 0:27 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n"
        "32 25 0:28 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids\n");
    put("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put("/sys/fs/cgroup/memory/docker/memory.limit_in_bytes", "9223372036854771712\n");
    put("/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "3221225472\n");
    put("/sys/fs/cgroup/pids/user/memory.limit_in_bytes", "1\n"); /* not the memory hierarchy */
    cz_sys_memory m;
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.limit, 3221225472ull);
    assert_non_null(strstr(m.source, "memory/docker/abc/memory.limit_in_bytes"));

    /* "unlimited" everywhere: MemTotal */
    put("/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.cgroup, 0);
    assert_int_equal(m.limit, 16000000ull * 1024);
}

static void test_no_cgroup_and_nothing(void **state)
{
    (void)state;
    put("/proc/self/cgroup", "");
    put("/proc/self/mountinfo", "22 1 0:21 / /proc rw - proc proc rw\n");
    cz_sys_memory m;
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.limit, 16000000ull * 1024);

    /* junk in a limit file is ignored, not believed */
    put("/proc/self/cgroup", "0::/a\n");
    put("/proc/self/mountinfo", V2_MOUNT);
    put("/sys/fs/cgroup/memory.max", "max\n"); /* left by test_v2_namespace */
    put("/sys/fs/cgroup/a/memory.max", "12abc\n");
    assert_int_equal(cz_sys_memory_limit(&m, g_root), CZ_OK);
    assert_int_equal(m.limit, 16000000ull * 1024);

    char empty[300];
    snprintf(empty, sizeof empty, "%s/nothing", g_root);
    mkdir(empty, 0755);
    assert_int_equal(cz_sys_memory_limit(&m, empty), CZ_ERR_NOT_FOUND);
    assert_int_equal(m.limit, 0);
    assert_int_equal(cz_sys_memory_limit(NULL, NULL), CZ_ERR_INVALID_ARG);
}

static void test_this_machine(void **state)
{
    (void)state;
    cz_sys_memory m;
    assert_int_equal(cz_sys_memory_limit(&m, NULL), CZ_OK);
    assert_true(m.meminfo > 0);
    assert_true(m.limit > 0 && m.limit <= m.meminfo);
    print_message("this machine: limit %llu bytes from %s (MemTotal %llu, cgroup %llu)\n",
                  (unsigned long long)m.limit, m.source, (unsigned long long)m.meminfo,
                  (unsigned long long)m.cgroup);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_group_limit), cmocka_unit_test(test_v2_namespace), cmocka_unit_test(test_v1),
        cmocka_unit_test(test_no_cgroup_and_nothing), cmocka_unit_test(test_this_machine),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
