/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A minimal test harness: CHECK records failures, unit_done reports. */
#ifndef PIB_UNIT_H
#define PIB_UNIT_H

#include <stdio.h>
#include <stdlib.h>

static int unit_checks, unit_failures;

#define CHECK(cond) do {						\
	unit_checks++;							\
	if (!(cond)) {							\
		unit_failures++;					\
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n",		\
			__FILE__, __LINE__, #cond);			\
	}								\
} while (0)

#define CHECK_EQ(got, want) do {					\
	unsigned long long g_ = (got), w_ = (want);			\
	unit_checks++;							\
	if (g_ != w_) {							\
		unit_failures++;					\
		fprintf(stderr, "%s:%d: %s is 0x%llx, want 0x%llx\n",	\
			__FILE__, __LINE__, #got, g_, w_);		\
	}								\
} while (0)

static inline int unit_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
