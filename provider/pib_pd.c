// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains (also imported ones), thread domains and parent
 * domains.
 *
 * A parent domain (ibv_alloc_parent_domain) stands for its protection
 * domain in every verb: it carries that PD's kernel handle, so the
 * commands that name it name the PD. What it adds is its thread domain:
 * the application promises that a QP, SRQ or CQ created on a parent
 * domain with a thread domain is used from one thread at a time, and the
 * provider takes no lock for it. Its allocators are for the buffers a
 * provider allocates for its queues; pib has none (the kernel allocates
 * every ring, and the provider maps it), so they are never called.
 */
#include <errno.h>
#include <stdlib.h>

#include "pib.h"

struct ibv_pd *pib_alloc_pd(struct ibv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct pib_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_pd(ctx, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/*
 * ibv_import_pd(): a PD of the imported context's uverbs file, by its
 * handle (a bad one makes the verbs that name it fail). Unimporting
 * leaves the kernel's PD alone; ibv_dealloc_pd() would free it.
 */
struct ibv_pd *pib_import_pd(struct ibv_context *ctx, uint32_t pd_handle)
{
	struct pib_pd *pd = calloc(1, sizeof(*pd));

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv_pd.context = ctx;
	pd->ibv_pd.handle = pd_handle;
	return &pd->ibv_pd;
}

void pib_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_pib_pd(ibpd));
}

/* A PD goes only once its parent domains have (EBUSY). */
int pib_dealloc_pd(struct ibv_pd *ibpd)
{
	struct pib_pd *pd = to_pib_pd(ibpd);
	int ret;

	if (pd->parent_of) {
		__atomic_sub_fetch(&pd->parent_of->refs, 1, __ATOMIC_RELAXED);
		if (pd->td)
			__atomic_sub_fetch(&pd->td->refs, 1, __ATOMIC_RELAXED);
		free(pd);
		return 0;
	}
	if (__atomic_load_n(&pd->refs, __ATOMIC_RELAXED))
		return EBUSY;
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (!ret)
		free(pd);
	return ret;
}

/* What ibv_alloc_parent_domain may ask for. */
#define PIB_PARENT_DOMAIN_MASK	(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
				 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

struct ibv_pd *pib_alloc_parent_domain(struct ibv_context *ctx,
				       struct ibv_parent_domain_init_attr *attr)
{
	struct pib_pd *parent, *pd;

	if (attr->comp_mask & ~(uint32_t)PIB_PARENT_DOMAIN_MASK) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* A protection domain of this context, not another parent domain. */
	if (!attr->pd || attr->pd->context != ctx ||
	    to_pib_pd(attr->pd)->parent_of ||
	    (attr->td && attr->td->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	pd = to_pib_pd(attr->pd);
	parent = calloc(1, sizeof(*parent));
	if (!parent) {
		errno = ENOMEM;
		return NULL;
	}
	parent->ibv_pd.context = ctx;
	parent->ibv_pd.handle = attr->pd->handle;
	parent->parent_of = pd;
	__atomic_add_fetch(&pd->refs, 1, __ATOMIC_RELAXED);
	if (attr->td) {
		parent->td = to_pib_td(attr->td);
		__atomic_add_fetch(&parent->td->refs, 1, __ATOMIC_RELAXED);
	}
	return &parent->ibv_pd;
}

struct ibv_td *pib_alloc_td(struct ibv_context *ctx,
			    struct ibv_td_init_attr *attr)
{
	struct pib_td *td;

	if (attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv_td.context = ctx;
	return &td->ibv_td;
}

/* A thread domain goes only once its parent domains have (EBUSY). */
int pib_dealloc_td(struct ibv_td *ibtd)
{
	struct pib_td *td = to_pib_td(ibtd);

	if (__atomic_load_n(&td->refs, __ATOMIC_RELAXED))
		return EBUSY;
	free(td);
	return 0;
}

/**
 * pib_pd_single_threaded() - are objects of @ibpd used by one thread at a
 *	time?
 * @ibpd: a PD, or a parent domain
 *
 * Return: true for a parent domain with a thread domain.
 */
bool pib_pd_single_threaded(struct ibv_pd *ibpd)
{
	return ibpd && to_pib_pd(ibpd)->td;
}
