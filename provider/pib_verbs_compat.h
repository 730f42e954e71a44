/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The differences between the rdma-core versions that libpib builds
 * against (44 to 65), so that the rest of the provider reads as written for
 * the newest. Each entry is keyed on the private ABI of the rdma-core
 * source in use (IBVERBS_PABI_VERSION, from its config.h), which rdma-core
 * changes with every change of the functions below: 34 up to rdma-core 56,
 * then 57, 59 (59 to 63), 64 and 65.
 *
 * The macros keep the library's names and drop the arguments that the
 * older private ABI does not have; the callers pass NULL for them.
 */
#ifndef PIB_VERBS_COMPAT_H
#define PIB_VERBS_COMPAT_H

#include <assert.h>
#include <infiniband/driver.h>
#include <rdma/pib-abi.h>

#if IBVERBS_PABI_VERSION < 57
/* rdma-core 57 (ABI 57): file descriptors to pass along with the command. */
#define ibv_cmd_get_context(context, cmd, cmd_size, fd_arr, resp, resp_size) \
	ibv_cmd_get_context(context, cmd, cmd_size, resp, resp_size)
#endif

#if IBVERBS_PABI_VERSION < 59
/* rdma-core 59 (ABI 59): a CQ buffer that the provider allocated. */
#define ibv_cmd_create_cq_ex(context, cq_attr, prov_attr, cq, cmd, cmd_size, \
			     resp, resp_size, cmd_flags)		       \
	ibv_cmd_create_cq_ex(context, cq_attr, cq, cmd, cmd_size, resp,      \
			     resp_size, cmd_flags)
#endif

#if IBVERBS_PABI_VERSION < 64
/* rdma-core 64 (ABI 64): driver attributes chained to the QP command. */
#define ibv_cmd_create_qp_ex2(context, qp, attr_ex, cmd, cmd_size, resp,     \
			      resp_size, driver)			       \
	ibv_cmd_create_qp_ex2(context, qp, attr_ex, cmd, cmd_size, resp,     \
			      resp_size)
#endif

/*
 * ibv_wr_flush() (IBV_WR_FLUSH, IBV_QP_EX_WITH_FLUSH, IBV_FLUSH_*) came to
 * libibverbs after ibv_wr_atomic_write(): Debian 12's rdma-core 44 has the
 * latter only, with the same private ABI. No macro tells, so the Makefile
 * looks (PIB_IBV_HAS_FLUSH). Without it libpib offers no FLUSH builder:
 * no program could call one.
 */
#if PIB_IBV_HAS_FLUSH
#define PIB_QP_EX_WITH_FLUSH		IBV_QP_EX_WITH_FLUSH
#define pib_qp_ex_set_wr_flush(qpx, fn)	((qpx)->wr_flush = (fn))
static_assert((int)PIB_WR_FLUSH == (int)IBV_WR_FLUSH &&
	      PIB_FLUSH_TYPE_GLOBAL == IBV_FLUSH_GLOBAL &&
	      PIB_FLUSH_TYPE_PERSISTENT == IBV_FLUSH_PERSISTENT &&
	      PIB_FLUSH_LEVEL_RANGE == IBV_FLUSH_RANGE &&
	      PIB_FLUSH_LEVEL_MR == IBV_FLUSH_MR, "ibv_wr_flush()'s values");
#else
#define PIB_QP_EX_WITH_FLUSH		0
#define pib_qp_ex_set_wr_flush(qpx, fn)	((void)(fn))
#endif

#endif /* PIB_VERBS_COMPAT_H */
