// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tsc-khz: this machine's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 5 x 50 ms (the median). A guest under QEMU's
 * software emulation reads the host's TSC; left to calibrate it at boot
 * against the emulated PIT or HPET, a guest starved by a busy host took
 * a tenth of the frequency, its clock ran ten times too fast, and its
 * kernel reported RCU stalls. tests/rig/lan gives the guests this value
 * (tsc_early_khz=). Exit status 1, printing nothing, when the TSC is not
 * constant or the reads are too disturbed to tell.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#define TRIES	5
#define SPAN_NS	50000000LL
/* A TSC read whose clock reads around it lie further apart is retried. */
#define PAIR_NS	20000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A TSC read and the clock's time of it; 0 if never close enough. */
static int pair(uint64_t *tsc, long long *ns)
{
	long long a, b;
	int k;

	for (k = 0; k < 100; k++) {
		a = now_ns();
		*tsc = __rdtsc();
		b = now_ns();
		if (b - a <= PAIR_NS) {
			*ns = a + (b - a) / 2;
			return 1;
		}
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int constant_tsc(void)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "flags", 5) &&
			strstr(line, " constant_tsc") != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	struct timespec span = { 0, SPAN_NS };
	long long khz[TRIES], ns0, ns1;
	uint64_t tsc0, tsc1;
	int k;

	if (!constant_tsc())
		return 1;
	for (k = 0; k < TRIES; k++) {
		if (!pair(&tsc0, &ns0))
			return 1;
		nanosleep(&span, NULL);
		if (!pair(&tsc1, &ns1) || ns1 <= ns0)
			return 1;
		khz[k] = (long long)((tsc1 - tsc0) * 1000000ULL /
				     (uint64_t)(ns1 - ns0));
	}
	qsort(khz, TRIES, sizeof(khz[0]), cmp);
	/* The middle three must agree within 0.1%. */
	if (khz[TRIES - 2] - khz[1] > khz[2] / 1000)
		return 1;
	printf("%lld\n", khz[TRIES / 2]);
	return 0;
}
