/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fuzz_qp.h: the transport engine behind fuzz_resp and fuzz_comp: a
 * device with RC, UC, UD, GSI and SMI QPs in RTS, an SRQ, a CQ and a user MR,
 * driven by a sequence of events (packets in, timers, posts, polls, state
 * changes, a hostile provider's ring writes) read from the fuzz input.
 * The input format is in fuzz_qp.c; docs/fuzzing.md has the overview.
 */
#ifndef PIB_FUZZ_QP_H
#define PIB_FUZZ_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which side the QPs mostly play: responder, or requester (completer). */
enum fuzz_qp_mode {
	FUZZ_QP_RESPONDER,
	FUZZ_QP_REQUESTER,
};

int fuzz_qp_run(const uint8_t *data, size_t size, enum fuzz_qp_mode mode);

#endif /* PIB_FUZZ_QP_H */
