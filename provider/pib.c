// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libpib: the rdma-core userspace provider for pib devices. This file:
 * matching devices, contexts, device and port queries, PDs.
 *
 * The kernel reports pib devices with driver_id RDMA_DRIVER_UNKNOWN, so the
 * provider claims them by their sysfs hca_type ("pib"), or by the name
 * prefix "pib" where hca_type cannot be read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pib.h"

struct pib_device {
	struct verbs_device ibv_dev;
};

static int pib_query_device(struct ibv_context *ctx,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

int pib_query_port(struct ibv_context *ctx, uint8_t port,
		   struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

/*
 * An XRC domain, shared by the processes that open it through the same
 * file (the kernel keeps which): nothing of it lives here.
 */
static struct ibv_xrcd *pib_open_xrcd(struct ibv_context *ctx,
				      struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd *xrcd = calloc(1, sizeof(*xrcd));
	int ret;

	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_open_xrcd(ctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

static int pib_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int ret = ibv_cmd_close_xrcd(xrcd);

	if (!ret)
		free(xrcd);
	return ret;
}

static void pib_free_context(struct ibv_context *ibctx)
{
	struct pib_context *ctx = to_pib_ctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

/*
 * What is not here (flows, device memory, ...) stays NULL, and libibverbs
 * answers EOPNOTSUPP.
 */
static const struct verbs_context_ops pib_ctx_ops = {
	.alloc_mw = pib_alloc_mw,
	.alloc_parent_domain = pib_alloc_parent_domain,
	.advise_mr = pib_advise_mr,
	.alloc_pd = pib_alloc_pd,
	.alloc_td = pib_alloc_td,
	.attach_mcast = pib_attach_mcast,
	.bind_mw = pib_bind_mw,
	.close_xrcd = pib_close_xrcd,
	.create_ah = pib_create_ah,
	.create_cq = pib_create_cq,
	.create_cq_ex = pib_create_cq_ex,
	.create_qp = pib_create_qp,
	.create_qp_ex = pib_create_qp_ex,
	.create_srq = pib_create_srq,
	.create_srq_ex = pib_create_srq_ex,
	.dealloc_mw = pib_dealloc_mw,
	.dealloc_pd = pib_dealloc_pd,
	.dealloc_td = pib_dealloc_td,
	.dereg_mr = pib_dereg_mr,
	.destroy_ah = pib_destroy_ah,
	.destroy_cq = pib_destroy_cq,
	.destroy_qp = pib_destroy_qp,
	.destroy_srq = pib_destroy_srq,
	.detach_mcast = pib_detach_mcast,
	.free_context = pib_free_context,
	.get_srq_num = pib_get_srq_num,
	.import_mr = pib_import_mr,
	.import_pd = pib_import_pd,
	.modify_qp = pib_modify_qp,
	.modify_srq = pib_modify_srq,
	.open_qp = pib_open_qp,
	.open_xrcd = pib_open_xrcd,
	.poll_cq = pib_poll_cq,
	.post_recv = pib_post_recv,
	.post_send = pib_post_send,
	.post_srq_recv = pib_post_srq_recv,
	.query_device_ex = pib_query_device,
	.query_rt_values = pib_query_rt_values,
	.query_port = pib_query_port,
	.query_qp = pib_query_qp,
	.query_srq = pib_query_srq,
	.reg_mr = pib_reg_mr,
	.rereg_mr = pib_rereg_mr,
	.req_notify_cq = pib_req_notify_cq,
	.resize_cq = pib_resize_cq,
	.unimport_mr = pib_unimport_mr,
	.unimport_pd = pib_unimport_pd,
};

static struct verbs_context *pib_alloc_context(struct ibv_device *ibdev,
					       int cmd_fd, void *private_data)
{
	struct ib_uverbs_get_context_resp resp;
	struct ibv_get_context cmd;
	struct pib_context *ctx;

	(void)private_data;
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd, sizeof(cmd), NULL, &resp,
				sizeof(resp))) {
		verbs_uninit_context(&ctx->ibv_ctx);
		free(ctx);
		return NULL;
	}
	verbs_set_ops(&ctx->ibv_ctx, &pib_ctx_ops);
	return &ctx->ibv_ctx;
}

/*
 * ibv_import_device(): a context on another process's (or this one's)
 * uverbs file, whose objects ibv_import_pd() and ibv_import_mr() share.
 * The kernel's context exists already; it is only asked what it is.
 */
static struct verbs_context *pib_import_context(struct ibv_device *ibdev,
						int cmd_fd)
{
	struct pib_context *ctx;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	ret = ibv_cmd_query_context(&ctx->ibv_ctx.context, NULL);
	if (ret) {
		verbs_uninit_context(&ctx->ibv_ctx);
		free(ctx);
		errno = ret;
		return NULL;
	}
	verbs_set_ops(&ctx->ibv_ctx, &pib_ctx_ops);
	return &ctx->ibv_ctx;
}

/*
 * 1 if the file at @path holds @want (and a newline), 0 if it holds
 * something else, -1 if it cannot be read.
 */
static int pib_file_says(const char *path, const char *want)
{
	char buf[64] = "";
	size_t len = strlen(want);
	FILE *f = fopen(path, "r");
	int same;

	if (!f)
		return -1;
	same = fgets(buf, sizeof(buf), f) && !strncmp(buf, want, len) &&
	       (buf[len] == '\n' || buf[len] == '\0');
	fclose(f);
	return same;
}

static bool pib_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char path[IBV_SYSFS_PATH_MAX + sizeof("/hca_type")];
	int says;

	snprintf(path, sizeof(path), "%s/hca_type", sysfs_dev->ibdev_path);
	says = pib_file_says(path, PIB_ABI_HCA_TYPE);
	if (says >= 0)
		return says;
	return !strncmp(sysfs_dev->ibdev_name, "pib", strlen("pib"));
}

static struct verbs_device *pib_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct pib_device *dev;

	(void)sysfs_dev;
	dev = calloc(1, sizeof(*dev));
	return dev ? &dev->ibv_dev : NULL;
}

static void pib_uninit_device(struct verbs_device *verbs_device)
{
	free(container_of(verbs_device, struct pib_device, ibv_dev));
}

/*
 * pib_match_device() decides, but libibverbs walks every provider's
 * match_table (without a NULL check) as soon as some device has a known
 * driver_id (rxe, siw, mlx5, ...): an empty table, not none.
 */
static const struct verbs_match_ent pib_match_table[] = {
	{}
};

static const struct verbs_device_ops pib_dev_ops = {
	.name = "pib",
	.match_min_abi_version = PIB_UVERBS_ABI_VERSION,
	.match_max_abi_version = PIB_UVERBS_ABI_VERSION,
	.match_table = pib_match_table,
	.match_device = pib_match_device,
	.alloc_device = pib_alloc_device,
	.uninit_device = pib_uninit_device,
	.alloc_context = pib_alloc_context,
	.import_context = pib_import_context,
};
PROVIDER_DRIVER(pib, pib_dev_ops);
