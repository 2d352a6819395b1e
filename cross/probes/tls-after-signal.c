/*
 * Does a thread keep its own thread-local storage after a signal handler
 * returns, when a newer thread exists? Natively and under qemu-aarch64 /
 * qemu-s390x: yes (prints 1). Under qemu-i386 (qemu 7.2, linux-user): no
 * (prints 2, the newer thread's), because the emulator keeps one GDT for
 * every thread and reloads %gs from it on sigreturn. Not a test of ours:
 * the evidence behind README's "qemu-i386 and signals" and the thread
 * order in test/test-versions-stress.c's signal scenario.
 *
 *   i686-linux-gnu-gcc -O1 -pthread cross/probes/tls-after-signal.c -o tls32
 *   LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib qemu-i386 -L /usr/i686-linux-gnu ./tls32
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static _Thread_local int who;
static atomic_int ready, release, seen = -1;

static void on_signal(int sig)
{
    (void)sig;
}

static void *older(void *arg)
{
    (void)arg;
    who = 1;
    atomic_store(&ready, 1);
    while (!atomic_load(&release))
        usleep(1000);
    atomic_store(&seen, who); /* after the handler has run */
    return NULL;
}

static void *newer(void *arg)
{
    (void)arg;
    who = 2;
    sleep(1);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    signal(SIGUSR1, on_signal);
    pthread_create(&a, NULL, older, NULL);
    while (!atomic_load(&ready))
        usleep(1000);
    pthread_create(&b, NULL, newer, NULL);
    usleep(100000);
    pthread_kill(a, SIGUSR1);
    usleep(100000);
    atomic_store(&release, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("older thread's TLS after its signal handler: %d (1: its own, 2: the newer "
           "thread's)\n", atomic_load(&seen));
    return atomic_load(&seen) == 1 ? 0 : 1;
}
