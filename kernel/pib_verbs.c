// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verbs entry points: device and port queries, user contexts, protection
 * domains, XRC domains, address handles, and the table of every verb pib
 * implements.
 *
 * Verbs pib does not implement (flows, device memory, ...)
 * are left out of pib_dev_ops, so the RDMA core answers -EOPNOTSUPP. The
 * PIB_OP_* entries are verbs whose prototype changed between kernels: see
 * pib_compat.h.
 */
#include <linux/sysfs.h>
#include <rdma/ib_mad.h>
#include <rdma/pib-abi.h>

#include "pib.h"

/* @udata is a user's query_device call; the core's own query has none. */
static int pib_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibdev);

	if (udata && (udata->inlen || udata->outlen))
		return pib_refuse(ibdev, -EINVAL,
				  "query_device: %zu bytes in, %zu out: pib has no extension",
				  udata->inlen, udata->outlen);
	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = dev->guid;
	attr->vendor_id = PIB_VENDOR_ID;
	attr->fw_ver = PIB_FW_VER;
	attr->max_mr_size = PIB_MAX_MSG * 2ULL;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = PIB_MAX_QP;
	attr->max_qp_wr = PIB_MAX_QP_WR;
	attr->max_send_sge = PIB_MAX_SGE;
	attr->max_recv_sge = PIB_MAX_SGE;
	attr->max_sge_rd = PIB_MAX_SGE;
	attr->max_cq = PIB_MAX_CQ;
	attr->max_cqe = PIB_MAX_CQE;
	attr->max_mr = PIB_MAX_MR;
	/* (windows and MRs share the MR table and its limit) */
	attr->max_mw = PIB_MAX_MR;
	attr->max_pd = PIB_MAX_PD;
	attr->max_qp_rd_atom = PIB_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = PIB_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = PIB_MAX_RD_ATOMIC * PIB_MAX_QP;
	attr->atomic_cap = IB_ATOMIC_HCA;
	/* Completion timestamps: nanoseconds of CLOCK_REALTIME (pib_cq.c). */
	attr->timestamp_mask = U64_MAX;
	attr->hca_core_clock = NSEC_PER_SEC / 1000;	/* kHz */
	attr->max_ah = PIB_MAX_AH;
	attr->max_srq = PIB_MAX_SRQ;
	attr->max_srq_wr = PIB_MAX_QP_WR;
	attr->max_srq_sge = PIB_MAX_SGE;
	attr->max_fast_reg_page_list_len = PIB_MAX_FAST_PAGES;
	attr->max_pkeys = PIB_PKEY_TABLE_LEN;
	attr->max_mcast_grp = PIB_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = PIB_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = PIB_MAX_MCAST_ATTACH;
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_FLUSH_GLOBAL |
				 IB_DEVICE_ATOMIC_WRITE |
				 IB_DEVICE_XRC |
				 IB_DEVICE_AUTO_PATH_MIG;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG | IBK_ON_DEMAND_PAGING;
	/*
	 * Explicit ODP MRs (pib_odp.c). A fault at the responder costs an
	 * RC request an RNR NAK, and a UC or UD one its message.
	 */
	attr->odp_caps.general_caps = IB_ODP_SUPPORT;
	attr->odp_caps.per_transport_caps.rc_odp_caps = PIB_ODP_RC_CAPS;
	attr->odp_caps.per_transport_caps.uc_odp_caps = IB_ODP_SUPPORT_SEND;
	attr->odp_caps.per_transport_caps.ud_odp_caps = IB_ODP_SUPPORT_SEND;
	attr->odp_caps.per_transport_caps.xrc_odp_caps = PIB_ODP_RC_CAPS;
	return 0;
}

static int pib_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct pib_port *port = &to_pib_dev(ibdev)->port;
	unsigned long flags;

	/* The core zeroes *attr and checks port_num. */
	spin_lock_irqsave(&port->lock, flags);
	attr->state = port->state;
	attr->phys_state = port->phys_state;
	attr->max_mtu = port->max_mtu;
	attr->active_mtu = port->active_mtu;
	attr->phys_mtu = ib_mtu_enum_to_int(port->max_mtu);
	attr->port_cap_flags = port->cap_flags;
	attr->active_width = port->width;
	attr->active_speed = port->speed;
	attr->lid = port->lid;
	attr->lmc = port->lmc;
	attr->sm_lid = port->sm_lid;
	attr->sm_sl = port->sm_sl;
	attr->subnet_timeout = port->subnet_timeout;
	attr->subnet_prefix = port->subnet_prefix;
	spin_unlock_irqrestore(&port->lock, flags);

	attr->gid_tbl_len = PIB_GID_TABLE_LEN;
	attr->pkey_tbl_len = PIB_PKEY_TABLE_LEN;
	attr->max_vl_num = 1;	/* VL0 only */
	attr->max_msg_sz = PIB_MAX_MSG;
	return 0;
}

static int pib_modify_port(struct ib_device *ibdev, u32 port_num, int mask,
			   struct ib_port_modify *props)
{
	struct pib_port *port = &to_pib_dev(ibdev)->port;
	unsigned long flags;

	/* Q_Key violations are not counted yet, so a reset has nothing to do. */
	if (mask & ~IB_PORT_RESET_QKEY_CNTR)
		return pib_refuse(ibdev, -EOPNOTSUPP,
				  "modify_port: mask 0x%x (pib has IB_PORT_RESET_QKEY_CNTR)",
				  mask);
	spin_lock_irqsave(&port->lock, flags);
	port->cap_flags |= props->set_port_cap_mask;
	port->cap_flags &= ~props->clr_port_cap_mask;
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

static int pib_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->pkey_tbl_len = PIB_PKEY_TABLE_LEN;
	immutable->gid_tbl_len = PIB_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer pib_get_link_layer(struct ib_device *ibdev,
					       u32 port_num)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static int pib_query_gid(struct ib_device *ibdev, u32 port_num, int index,
			 union ib_gid *gid)
{
	struct pib_dev *dev = to_pib_dev(ibdev);

	if (index < 0 || index >= PIB_GID_TABLE_LEN)
		return pib_refuse(ibdev, -EINVAL, "query_gid: index %d (below %d)",
				  index, PIB_GID_TABLE_LEN);
	pib_port_gid(dev, index, gid);
	return 0;
}

static int pib_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	struct pib_port *port = &to_pib_dev(ibdev)->port;
	unsigned long flags;

	if (index >= PIB_PKEY_TABLE_LEN)
		return pib_refuse(ibdev, -EINVAL, "query_pkey: index %u (below %d)",
				  index, PIB_PKEY_TABLE_LEN);
	spin_lock_irqsave(&port->lock, flags);
	*pkey = port->pkeys[index];
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

static void pib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%d.%d.%d", PIB_VER_MAJOR,
		 PIB_VER_MINOR, PIB_VER_SUB);
}

/* A user context holds nothing of pib's own but its debugfs line. */
static int pib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct pib_ucontext *uc = container_of(ibuc, struct pib_ucontext, ibuc);
	int err;

	err = pib_inject_verb_fail(to_pib_dev(ibuc->device),
				   PIB_INJ_ALLOC_UCONTEXT);
	if (!err)
		pib_obj_add(to_pib_dev(ibuc->device), PIB_OBJ_CTX, &uc->obj,
			    true, NULL);
	return err;
}

static void pib_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct pib_ucontext *uc = container_of(ibuc, struct pib_ucontext, ibuc);

	pib_obj_del(to_pib_dev(ibuc->device), &uc->obj);
}

/*
 * What a context is, for a process that imports it (ibv_import_device):
 * the core answers the common part, and pib's contexts have nothing more
 * (the provider finds every ring through its object's own answer).
 */
static int pib_query_ucontext(struct ib_ucontext *ibuc,
			      struct uverbs_attr_bundle *attrs)
{
	return 0;
}

/*
 * The device goes away under an open context. The rings a process mapped
 * keep their pages until it unmaps them (the mapping holds references), and
 * the kernel stops looking at them when their objects are destroyed, so
 * there is nothing to revoke: unregistration need not wait for the process.
 */
static void pib_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int pib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibpd->device);
	struct pib_pd *pd = container_of(ibpd, struct pib_pd, ibpd);
	int err;

	err = pib_inject_verb_fail(dev, PIB_INJ_ALLOC_PD) ?:
	      pib_res_get(&dev->ibdev, &dev->pd_count, PIB_MAX_PD, "PDs");
	if (!err)
		pib_obj_add(dev, PIB_OBJ_PD, &pd->obj, !!udata,
			    ibpd->res.kern_name);
	return err;
}

static int pib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibpd->device);

	pib_obj_del(dev, &container_of(ibpd, struct pib_pd, ibpd)->obj);
	atomic_dec(&dev->pd_count);
	return 0;
}

/*
 * An XRC domain, for processes only: the RDMA core has no verb that posts
 * to an XRC SRQ by number for a kernel consumer. The core keeps which
 * SRQs and TGT QPs are in it, and which processes share it (by inode).
 */
static int pib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibxrcd->device);

	if (!udata)
		return pib_refuse(&dev->ibdev, -EOPNOTSUPP,
				  "alloc_xrcd: XRC is for processes (ibv_open_xrcd)");
	return pib_res_get(&dev->ibdev, &dev->xrcd_count, PIB_MAX_PD,
			   "XRC domains");
}

static int pib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	atomic_dec(&to_pib_dev(ibxrcd->device)->xrcd_count);
	return 0;
}

/**
 * pib_av_from_ah() - the address vector of a send WQE, from AH attributes
 * @ah: the attributes (checked by create_ah)
 * @av: filled in
 */
void pib_av_from_ah(const struct rdma_ah_attr *ah, struct pib_av *av)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	memset(av, 0, sizeof(*av));
	av->dlid = rdma_ah_get_dlid(ah);
	av->sl = rdma_ah_get_sl(ah);
	av->src_path_bits = rdma_ah_get_path_bits(ah);
	av->static_rate = rdma_ah_get_static_rate(ah);
	av->port_num = PIB_PORT_NUM;
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return;
	av->is_global = 1;
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	av->flow_label = grh->flow_label;
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
}

static int pib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata)
{
	struct pib_ah *ah = container_of(ibah, struct pib_ah, ibah);
	struct rdma_ah_attr *attr = init->ah_attr;
	int err;

	err = pib_inject_verb_fail(to_pib_dev(ibah->device), PIB_INJ_CREATE_AH);
	if (err)
		return err;
	if (attr->type != RDMA_AH_ATTR_TYPE_IB ||
	    rdma_ah_get_port_num(attr) != PIB_PORT_NUM)
		return pib_refuse(ibah->device, -EINVAL,
				  "create_ah: type %d, port %u (pib has IB, port 1)",
				  attr->type, rdma_ah_get_port_num(attr));
	if ((rdma_ah_get_ah_flags(attr) & IB_AH_GRH) &&
	    rdma_ah_read_grh(attr)->sgid_index >= PIB_GID_TABLE_LEN)
		return pib_refuse(ibah->device, -EINVAL,
				  "create_ah: sgid_index %u (below %d)",
				  rdma_ah_read_grh(attr)->sgid_index,
				  PIB_GID_TABLE_LEN);
	ah->attr = *attr;
	err = pib_res_get(ibah->device, &to_pib_dev(ibah->device)->ah_count,
			  PIB_MAX_AH, "AHs");
	if (!err)
		pib_obj_add(to_pib_dev(ibah->device), PIB_OBJ_AH, &ah->obj,
			    !!udata, ibah->pd->res.kern_name);
	return err;
}

/* The MAD layer matches a response to its request by the request's AH. */
static int pib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = container_of(ibah, struct pib_ah, ibah)->attr;
	return 0;
}

static int pib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct pib_dev *dev = to_pib_dev(ibah->device);

	pib_obj_del(dev, &container_of(ibah, struct pib_ah, ibah)->obj);
	atomic_dec(&dev->ah_count);
	return 0;
}

static const struct rdma_stat_desc pib_stat_descs[PIB_NUM_STATS] = {
	[PIB_STAT_RETRANSMIT_TIMEOUTS].name = "retransmit_timeouts",
	[PIB_STAT_RETRANSMIT_PROBES].name = "retransmit_probes",
	[PIB_STAT_SEQ_NAKS_RCVD].name = "seq_naks_rcvd",
	[PIB_STAT_RNR_NAKS_RCVD].name = "rnr_naks_rcvd",
	[PIB_STAT_SEQ_NAKS_SENT].name = "seq_naks_sent",
	[PIB_STAT_RNR_NAKS_SENT].name = "rnr_naks_sent",
	[PIB_STAT_DUP_REQUESTS].name = "duplicate_requests",
	[PIB_STAT_READ_GAPS].name = "read_response_gaps",
	[PIB_STAT_RCV_NO_QP].name = "rcv_no_qp",
	[PIB_STAT_RCV_BAD_PKEY].name = "rcv_bad_pkey",
	[PIB_STAT_UD_DROPS].name = "ud_no_recv_wqe",
	[PIB_STAT_RESP_PSN_UNSENT].name = "resp_psn_unsent",
	[PIB_STAT_RCV_BAD_MAD].name = "rcv_bad_mad",
	[PIB_STAT_RCV_MCAST_BAD_GID].name = "rcv_mcast_bad_gid",
	[PIB_STAT_RCV_PORT_DOWN].name = "rcv_port_down",
	[PIB_STAT_RCV_MALFORMED].name = "rcv_malformed",
	[PIB_STAT_RCV_BAD_DLID].name = "rcv_bad_dlid",
	[PIB_STAT_RCV_BAD_DGID].name = "rcv_bad_dgid",
	[PIB_STAT_RCV_BAD_TRANSPORT].name = "rcv_bad_transport",
	[PIB_STAT_RCV_BAD_SLID].name = "rcv_bad_slid",
	[PIB_STAT_RCV_BAD_QKEY].name = "rcv_bad_qkey",
	[PIB_STAT_RCV_QP_NOT_READY].name = "rcv_qp_not_ready",
	[PIB_STAT_XMIT_NOT_ACTIVE].name = "xmit_not_active",
	[PIB_STAT_INJECTED_DROPS].name = "injected_drops",
	[PIB_STAT_INJECTED_FAULTS].name = "injected_faults",
	[PIB_STAT_STRICT_REPORTS].name = "strict_reports",
	[PIB_STAT_ODP_RESP_FAULTS].name = "odp_responder_faults",
	[PIB_STAT_ODP_REQ_FAULTS].name = "odp_requester_faults",
};

static struct rdma_hw_stats *pib_alloc_hw_port_stats(struct ib_device *ibdev,
						     u32 port_num)
{
	return rdma_alloc_hw_stats_struct(pib_stat_descs, PIB_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int pib_get_hw_stats(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port, int index)
{
	struct pib_dev *dev = to_pib_dev(ibdev);
	int i;

	for (i = 0; i < PIB_NUM_STATS; i++)
		stats->value[i] = atomic64_read(&dev->stats[i]);
	return PIB_NUM_STATS;
}

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", PIB_ABI_HCA_TYPE);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t netdev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct pib_dev *dev = rdma_device_to_drv_device(device, struct pib_dev,
							ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(dev->ndev));
}
static DEVICE_ATTR_RO(netdev);

static struct attribute *pib_dev_attrs[] = {
	&dev_attr_hca_type.attr,
	&dev_attr_netdev.attr,
	NULL,
};

static const struct attribute_group pib_dev_attr_group = {
	.attrs = pib_dev_attrs,
};

const struct ib_device_ops pib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = PIB_UVERBS_ABI_VERSION,
	.device_group = &pib_dev_attr_group,

	.alloc_hw_port_stats = pib_alloc_hw_port_stats,
	.advise_mr = pib_advise_mr,
	.alloc_mr = pib_alloc_mr,
	.alloc_mw = pib_alloc_mw,
	.alloc_pd = pib_alloc_pd,
	.alloc_xrcd = pib_alloc_xrcd,
	.alloc_ucontext = pib_alloc_ucontext,
	.attach_mcast = pib_attach_mcast,
	.create_ah = pib_create_ah,
	PIB_OP_CREATE_CQ,
	.create_qp = pib_create_qp,
	.create_srq = pib_create_srq,
	.dealloc_driver = pib_dev_dealloc,
	.dealloc_pd = pib_dealloc_pd,
	.dealloc_xrcd = pib_dealloc_xrcd,
	.dealloc_ucontext = pib_dealloc_ucontext,
	.dealloc_mw = pib_dealloc_mw,
	.dereg_mr = pib_dereg_mr,
	.disassociate_ucontext = pib_disassociate_ucontext,
	.destroy_ah = pib_destroy_ah,
	.destroy_cq = pib_destroy_cq,
	.destroy_qp = pib_destroy_qp,
	.destroy_srq = pib_destroy_srq,
	.detach_mcast = pib_detach_mcast,
	.fill_res_cq_entry = pib_fill_res_cq_entry,
	.fill_res_mr_entry = pib_fill_res_mr_entry,
	.fill_res_qp_entry = pib_fill_res_qp_entry,
	.get_dev_fw_str = pib_get_dev_fw_str,
	.get_hw_stats = pib_get_hw_stats,
	.get_dma_mr = pib_get_dma_mr,
	.get_link_layer = pib_get_link_layer,
	.get_port_immutable = pib_get_port_immutable,
	.map_mr_sg = pib_map_mr_sg,
	.mmap = pib_mmap,
	.mmap_free = pib_mmap_free,
	.modify_port = pib_modify_port,
	.modify_qp = pib_modify_qp,
	.modify_srq = pib_modify_srq,
	.poll_cq = pib_poll_cq,
	.post_recv = pib_post_recv,
	.post_send = pib_post_send,
	.post_srq_recv = pib_post_srq_recv,
	.process_mad = pib_process_mad,
	.query_ah = pib_query_ah,
	.query_device = pib_query_device,
	.query_gid = pib_query_gid,
	.query_pkey = pib_query_pkey,
	.query_port = pib_query_port,
	.query_qp = pib_query_qp,
	.query_srq = pib_query_srq,
	.query_ucontext = pib_query_ucontext,
	PIB_OP_REG_USER_MR,
	.rereg_user_mr = pib_rereg_user_mr,
	.req_notify_cq = pib_req_notify_cq,
	PIB_OP_RESIZE_CQ,

	INIT_RDMA_OBJ_SIZE(ib_ah, pib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, pib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, pib_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, pib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, pib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, pib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, pib_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, pib_xrcd, ibxrcd),
};
