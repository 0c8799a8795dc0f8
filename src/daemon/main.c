/* cuzkd — the proving daemon. Everything is in the cz_daemon library
 * (src/daemon/options.c: cz_daemon_main), so tests can drive the same code. */
#include "cuzk/daemon.h"

int main(int argc, char **argv)
{
    return cz_daemon_main(argc, argv);
}
