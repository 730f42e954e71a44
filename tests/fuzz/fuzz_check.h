/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fuzz_check.h: FUZZ_CHECK, for every harness: those on pib_hdr.h alone
 * and those on the shimmed kernel (through fuzz.h).
 */
#ifndef PIB_FUZZ_CHECK_H
#define PIB_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* Abort with a message: libFuzzer reports it as a crash. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

#endif
