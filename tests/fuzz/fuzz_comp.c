// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_comp: responses from the LAN against pib's completer (pib_comp.c)
 * and requester (pib_req.c): an RC QP with SENDs, WRITEs, READs and
 * atomics out, a UC and a UD QP with sends out; ACKs, NAKs, READ
 * responses and atomic ACKs come back, timers fire. See fuzz_qp.c for the
 * input format.
 */
#include "fuzz_qp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_qp_run(data, size, FUZZ_QP_REQUESTER);
}
