// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_resp: requests from the LAN against pib's responder (pib_recv.c's
 * receive checks, pib_resp.c) on RC, UC, UD, GSI and SMI QPs with receives
 * posted, an SRQ and a user MR. See fuzz_qp.c for the input format.
 */
#include "fuzz_qp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_qp_run(data, size, FUZZ_QP_RESPONDER);
}
