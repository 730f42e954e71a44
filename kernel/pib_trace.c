// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib's tracepoints: their one definition (pib_trace.h).
 */
#include "pib.h"

#define CREATE_TRACE_POINTS
#include "pib_trace.h"
