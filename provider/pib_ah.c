// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles live in the provider only: an AH is the address vector
 * that every UD send WQE carries, so creating one makes no system call
 * (except the first global one of a context, which learns the GID table
 * size).
 */
#include <errno.h>
#include <stdlib.h>

#include "pib.h"

/* The GID table size of the port, asked once per context. */
static int pib_gid_tbl_len(struct pib_context *ctx, uint32_t *len)
{
	struct ibv_port_attr attr;
	int ret;

	*len = __atomic_load_n(&ctx->gid_tbl_len, __ATOMIC_RELAXED);
	if (*len)
		return 0;
	ret = pib_query_port(&ctx->ibv_ctx.context, PIB_PORT_NUM, &attr);
	if (ret)
		return ret;
	*len = attr.gid_tbl_len;
	/* Racing threads store the same value. */
	__atomic_store_n(&ctx->gid_tbl_len, *len, __ATOMIC_RELAXED);
	return 0;
}

struct ibv_ah *pib_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	uint32_t gid_tbl_len = 0;
	struct pib_ah *ah;
	int ret = 0;

	if (attr->is_global)
		ret = pib_gid_tbl_len(to_pib_ctx(pd->context), &gid_tbl_len);
	if (ret) {
		errno = ret;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = pib_av_from_attr(attr, gid_tbl_len, &ah->av);
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	/* libibverbs sets these too, but UD sends check the context. */
	ah->ibv_ah.context = pd->context;
	ah->ibv_ah.pd = pd;
	return &ah->ibv_ah;
}

int pib_destroy_ah(struct ibv_ah *ibah)
{
	free(to_pib_ah(ibah));
	return 0;
}
