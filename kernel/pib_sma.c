// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HCA's subnet management agent: SMPs (LID-routed or directed-route)
 * that reach the port are answered here, through process_mad. SMInfo is
 * left to the subnet manager; traps and responses go on to the MAD agents.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>

#include "pib.h"
#include "pib_trace.h"

/* What a handler decided: a MAD status (host order) or "drop silently". */
#define PIB_SMA_DROP	-1
#define PIB_WIDTH_ALL	0xff	/* LinkWidthEnabled: set to supported */
#define PIB_SPEED_ALL	0xf	/* LinkSpeedEnabled: set to supported */

/**
 * struct pib_sma_attr - how the SMA handles one attribute
 * @id: attribute ID
 * @get: fills the reply's data for Get; returns a MAD status
 * @set: applies a Set from the SMP's data; returns a MAD status. The reply
 *	 is then a Get. NULL if the attribute is read-only.
 */
struct pib_sma_attr {
	__be16 id;
	int (*get)(struct pib_dev *dev, struct ib_smp *smp);
	int (*set)(struct pib_dev *dev, struct ib_smp *smp);
};

static int pib_get_node_desc(struct pib_dev *dev, struct ib_smp *smp)
{
	memcpy(smp->data, dev->ibdev.node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

static int pib_get_node_info(struct pib_dev *dev, struct ib_smp *smp)
{
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;

	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = PIB_SMP_CLASS_VERSION;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = 1;
	ni->sys_guid = dev->guid;
	ni->node_guid = dev->guid;
	ni->port_guid = dev->guid;
	ni->partition_cap = cpu_to_be16(PIB_PKEY_TABLE_LEN);
	ni->revision = cpu_to_be32(PIB_VER_MAJOR << 16 | PIB_VER_MINOR << 8 |
				   PIB_VER_SUB);
	ni->local_port_num = PIB_PORT_NUM;
	pib_node_info_vendor(ni);
	return 0;
}

/**
 * pib_port_guid() - a GUID of the port's GID table
 * @dev: the device
 * @index: the entry, below PIB_GID_TABLE_LEN
 *
 * Return: the port GUID for entry 0, the alias GUID the SM set for the
 * others, 0 for an empty entry.
 */
__be64 pib_port_guid(struct pib_dev *dev, u32 index)
{
	struct pib_port *port = &dev->port;
	unsigned long flags;
	__be64 guid;

	if (!index)
		return dev->guid;
	spin_lock_irqsave(&port->lock, flags);
	guid = port->guids[index % PIB_GID_TABLE_LEN];
	spin_unlock_irqrestore(&port->lock, flags);
	return guid;
}

/**
 * pib_port_gid() - an entry of the port's GID table
 * @dev: the device
 * @index: the entry, below PIB_GID_TABLE_LEN
 * @gid: set to the GID prefix and the entry's GUID, or to all zeros for an
 *	empty entry (which the RDMA core leaves out of its GID cache)
 */
void pib_port_gid(struct pib_dev *dev, u32 index, union ib_gid *gid)
{
	__be64 guid = pib_port_guid(dev, index);

	gid->global.subnet_prefix = guid ?
		cpu_to_be64(READ_ONCE(dev->port.subnet_prefix)) : 0;
	gid->global.interface_id = guid;
}

/**
 * pib_port_owns_gid() - is @raw one of the port's GIDs?
 * @dev: the device
 * @raw: a GID, 16 bytes as on the wire
 *
 * Return: true if it is the GID prefix and a GUID of the port's table.
 */
bool pib_port_owns_gid(struct pib_dev *dev, const u8 *raw)
{
	__be64 prefix = cpu_to_be64(READ_ONCE(dev->port.subnet_prefix));
	struct pib_port *port = &dev->port;
	unsigned long flags;
	bool found = false;
	__be64 guid;
	u32 i;

	if (memcmp(raw, &prefix, sizeof(prefix)))
		return false;
	memcpy(&guid, raw + sizeof(prefix), sizeof(guid));
	if (guid == dev->guid)
		return true;
	spin_lock_irqsave(&port->lock, flags);
	for (i = 1; i < PIB_GID_TABLE_LEN && guid && !found; i++)
		found = guid == port->guids[i];
	spin_unlock_irqrestore(&port->lock, flags);
	return found;
}

/* GUIDInfo: one block of 8 (GUIDCap); entry 0 is the port GUID. */
static int pib_get_guid_info(struct pib_dev *dev, struct ib_smp *smp)
{
	__be64 *p = (__be64 *)smp->data;
	u32 i;

	if (be32_to_cpu(smp->attr_mod))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < PIB_GID_TABLE_LEN; i++)
		p[i] = pib_port_guid(dev, i);
	return 0;
}

/*
 * The SM sets alias GUIDs in entries 1 to 7; entry 0, the port GUID, is
 * read-only (IBA 14.2.5.5). A change is a GID change for consumers.
 */
static int pib_set_guid_info(struct pib_dev *dev, struct ib_smp *smp)
{
	struct pib_port *port = &dev->port;
	const __be64 *p = (const __be64 *)smp->data;
	bool changed = false;
	unsigned long flags;
	u32 i;

	if (be32_to_cpu(smp->attr_mod))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&port->lock, flags);
	for (i = 1; i < PIB_GID_TABLE_LEN; i++) {
		changed |= port->guids[i] != p[i];
		port->guids[i] = p[i];
	}
	spin_unlock_irqrestore(&port->lock, flags);
	if (changed)
		pib_dispatch_events(dev, BIT(IB_EVENT_GID_CHANGE));
	return 0;
}

/* PKeyTable: blocks of 32 entries; the port has one block of 16. */
static int pib_get_pkeys(struct pib_dev *dev, struct ib_smp *smp)
{
	struct pib_port *port = &dev->port;
	__be16 *p = (__be16 *)smp->data;
	unsigned long flags;
	int i;

	if (be32_to_cpu(smp->attr_mod) & 0xffff)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&port->lock, flags);
	for (i = 0; i < PIB_PKEY_TABLE_LEN; i++)
		p[i] = cpu_to_be16(port->pkeys[i]);
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

static int pib_set_pkeys(struct pib_dev *dev, struct ib_smp *smp)
{
	struct pib_port *port = &dev->port;
	__be16 *p = (__be16 *)smp->data;
	unsigned long flags;
	bool changed = false;
	int i;

	if (be32_to_cpu(smp->attr_mod) & 0xffff)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&port->lock, flags);
	for (i = 0; i < PIB_PKEY_TABLE_LEN; i++) {
		changed |= port->pkeys[i] != be16_to_cpu(p[i]);
		port->pkeys[i] = be16_to_cpu(p[i]);
	}
	spin_unlock_irqrestore(&port->lock, flags);
	if (changed)
		pib_dispatch_events(dev, BIT(IB_EVENT_PKEY_CHANGE));
	return 0;
}

/* SLtoVLMappingTable: 16 SLs, 4 bits each; only VL0 (or VL15, drop) exist. */
static int pib_get_sl2vl(struct pib_dev *dev, struct ib_smp *smp)
{
	struct pib_port *port = &dev->port;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&port->lock, flags);
	for (i = 0; i < 8; i++)
		smp->data[i] = port->sl2vl[2 * i] << 4 | port->sl2vl[2 * i + 1];
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

static int pib_set_sl2vl(struct pib_dev *dev, struct ib_smp *smp)
{
	struct pib_port *port = &dev->port;
	unsigned long flags;
	u8 vl[16];
	int i;

	for (i = 0; i < 16; i++) {
		vl[i] = (smp->data[i / 2] >> (i % 2 ? 0 : 4)) & 0xf;
		if (vl[i] != 0 && vl[i] != PIB_VL15)
			return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
	spin_lock_irqsave(&port->lock, flags);
	memcpy(port->sl2vl, vl, sizeof(vl));
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

/* VLArbitrationTable: block 1..4 in the modifier's upper half; VL0 only. */
static int pib_vlarb_block(struct ib_smp *smp)
{
	u32 block = be32_to_cpu(smp->attr_mod) >> 16;

	return block >= 1 && block <= PIB_VLARB_BLOCKS ? block - 1 : -1;
}

static int pib_get_vlarb(struct pib_dev *dev, struct ib_smp *smp)
{
	struct pib_port *port = &dev->port;
	int block = pib_vlarb_block(smp);
	unsigned long flags;

	if (block < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&port->lock, flags);
	memcpy(smp->data, port->vlarb[block], IB_SMP_DATA_SIZE);
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

static int pib_set_vlarb(struct pib_dev *dev, struct ib_smp *smp)
{
	struct ib_vl_weight_elem *e = (struct ib_vl_weight_elem *)smp->data;
	struct pib_port *port = &dev->port;
	int block = pib_vlarb_block(smp);
	unsigned long flags;
	int i;

	if (block < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < IB_SMP_DATA_SIZE / sizeof(*e); i++)
		if (e[i].weight && (e[i].vl & 0xf))
			return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&port->lock, flags);
	memcpy(port->vlarb[block], smp->data, IB_SMP_DATA_SIZE);
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

/* LinkSpeed (SDR/DDR/QDR) and LinkSpeedExt (FDR and up) codes of a speed. */
static void pib_speed_codes(u8 speed, u8 *base, u8 *ext)
{
	*base = speed <= IB_SPEED_QDR ? speed : IB_SPEED_QDR;
	*ext = speed > IB_SPEED_FDR10 ? speed / IB_SPEED_FDR : 0;
}

/* Fill @pi (zeroed) with the port's PortInfo. */
static void pib_portinfo_read(struct pib_dev *dev, struct ib_port_info *pi)
{
	struct pib_port *port = &dev->port;
	unsigned long flags;
	u8 speed, ext;

	spin_lock_irqsave(&port->lock, flags);
	pib_speed_codes(port->speed, &speed, &ext);
	pi->mkey = cpu_to_be64(port->mkey);
	pi->gid_prefix = cpu_to_be64(port->subnet_prefix);
	pi->lid = cpu_to_be16(port->lid);
	pi->sm_lid = cpu_to_be16(port->sm_lid);
	pi->cap_mask = cpu_to_be32(port->cap_flags |
				   (ext ? IB_PORT_EXTENDED_SPEEDS_SUP : 0));
	pi->mkey_lease_period = cpu_to_be16(port->mkey_lease);
	pi->local_port_num = PIB_PORT_NUM;
	pi->link_width_enabled = port->width_enabled ?: port->width;
	pi->link_width_supported = port->width;
	pi->link_width_active = port->width;
	pib_pi_set_link_speed_supported(pi, speed);
	pib_pi_set_port_state(pi, port->state);
	pib_pi_set_phys_state(pi, port->phys_state);
	pib_pi_set_link_down_default(pi, PIB_PHYS_POLLING);
	pib_pi_set_mkey_protect(pi, port->mkey_protect);
	pib_pi_set_lmc(pi, port->lmc);
	pib_pi_set_link_speed_active(pi, speed);
	pib_pi_set_link_speed_enabled(pi, port->speed_enabled ?: speed);
	pib_pi_set_neighbor_mtu(pi, port->active_mtu);
	pib_pi_set_sm_sl(pi, port->sm_sl);
	pib_pi_set_vl_cap(pi, 1);		/* VL0 only */
	pi->vl_arb_high_cap = PIB_VLARB_CAP;
	pi->vl_arb_low_cap = PIB_VLARB_CAP;
	pib_pi_set_mtu_cap(pi, port->max_mtu);
	pib_pi_set_operational_vls(pi, 1);
	pi->mkey_violations = cpu_to_be16(port->mkey_violations);
	pi->guid_cap = PIB_GID_TABLE_LEN;
	pib_pi_set_subnet_timeout(pi, port->subnet_timeout);
	pib_pi_set_resp_time_value(pi, PIB_SMA_RESP_TIME);
	pib_pi_set_link_speed_ext_active(pi, ext);
	pib_pi_set_link_speed_ext_supported(pi, ext);
	pib_pi_set_link_speed_ext_enabled(pi, ext);
	spin_unlock_irqrestore(&port->lock, flags);
}

/* Is a PortInfo Set acceptable as a whole? Called under the port lock. */
static bool pib_portinfo_valid(struct pib_port *port,
			       const struct ib_port_info *pi)
{
	u8 width = pi->link_width_enabled;
	u8 speed_enabled = pib_pi_link_speed_enabled(pi);
	u8 phys = pib_pi_phys_state(pi);
	u8 speed, ext;

	pib_speed_codes(port->speed, &speed, &ext);
	if (be16_to_cpu(pi->lid) >= PIB_LID_MCAST ||
	    be16_to_cpu(pi->sm_lid) >= PIB_LID_MCAST)
		return false;
	if (!pib_port_state_change_ok(port->state, pib_pi_port_state(pi)))
		return false;
	if (phys != PIB_PHYS_NOP && phys != PIB_PHYS_POLLING &&
	    phys != PIB_PHYS_DISABLED)
		return false;
	if (pib_pi_neighbor_mtu(pi) > port->max_mtu ||
	    pib_pi_operational_vls(pi) > 1)
		return false;
	if (width != PIB_WIDTH_ALL && (width & ~port->width))
		return false;
	return speed_enabled == PIB_SPEED_ALL || !(speed_enabled & ~speed);
}

/* Apply the logical and physical state a PortInfo Set asks for. */
static void pib_portinfo_write_state(struct pib_dev *dev,
				     const struct ib_port_info *pi,
				     u32 *events)
{
	struct pib_port *port = &dev->port;
	u8 state = pib_pi_port_state(pi);

	if (pib_pi_phys_state(pi) == PIB_PHYS_DISABLED)
		port->disabled = true;
	else if (pib_pi_phys_state(pi) == PIB_PHYS_POLLING)
		port->disabled = false;
	if (state == IB_PORT_DOWN) {
		/* The link goes down and retrains to INIT if it can. */
		pib_port_set_state(dev, IB_PORT_DOWN, events);
		if (port->phys_state == IB_PORT_PHYS_STATE_LINK_UP)
			pib_port_set_state(dev, IB_PORT_INIT, events);
	} else if (state != IB_PORT_NOP) {
		pib_port_set_state(dev, state, events);
	}
}

/* The events a valid PortInfo Set causes. Called under the port lock. */
static u32 pib_portinfo_events(const struct pib_port *port,
			       const struct ib_port_info *pi)
{
	u32 events = 0;

	if (be16_to_cpu(pi->lid) != port->lid || pib_pi_lmc(pi) != port->lmc)
		events |= BIT(IB_EVENT_LID_CHANGE);
	if (be16_to_cpu(pi->sm_lid) != port->sm_lid ||
	    pib_pi_sm_sl(pi) != port->sm_sl)
		events |= BIT(IB_EVENT_SM_CHANGE);
	if (be64_to_cpu(pi->gid_prefix) != port->subnet_prefix)
		events |= BIT(IB_EVENT_GID_CHANGE);
	if (pib_pi_client_reregister(pi))
		events |= BIT(IB_EVENT_CLIENT_REREGISTER);
	return events;
}

/*
 * PortInfo Set: all or nothing. Returns a MAD status and collects the
 * events the change causes.
 */
static int pib_portinfo_write(struct pib_dev *dev,
			      const struct ib_port_info *pi, u32 *events)
{
	struct pib_port *port = &dev->port;
	u8 width = pi->link_width_enabled;
	u8 speed = pib_pi_link_speed_enabled(pi);
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	if (!pib_portinfo_valid(port, pi)) {
		spin_unlock_irqrestore(&port->lock, flags);
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
	*events |= pib_portinfo_events(port, pi);
	port->mkey = be64_to_cpu(pi->mkey);
	port->mkey_protect = pib_pi_mkey_protect(pi);
	port->mkey_lease = be16_to_cpu(pi->mkey_lease_period);
	port->subnet_prefix = be64_to_cpu(pi->gid_prefix);
	port->lid = be16_to_cpu(pi->lid);
	port->lmc = pib_pi_lmc(pi);
	port->sm_lid = be16_to_cpu(pi->sm_lid);
	port->sm_sl = pib_pi_sm_sl(pi);
	port->subnet_timeout = pib_pi_subnet_timeout(pi);
	if (pib_pi_neighbor_mtu(pi)) {
		port->sm_mtu = pib_pi_neighbor_mtu(pi);
		port->active_mtu = min(port->sm_mtu, port->max_mtu);
	}
	if (width)
		port->width_enabled = width == PIB_WIDTH_ALL ? port->width :
							      width;
	if (speed)
		port->speed_enabled = speed == PIB_SPEED_ALL ? 0 : speed;
	pib_portinfo_write_state(dev, pi, events);
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

static int pib_get_port_info(struct pib_dev *dev, struct ib_smp *smp)
{
	union pib_port_info u;

	if (be32_to_cpu(smp->attr_mod) > PIB_PORT_NUM)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memset(&u, 0, sizeof(u));
	pib_portinfo_read(dev, &u.pi);
	memcpy(smp->data, u.raw, sizeof(u.raw));
	return 0;
}

static int pib_set_port_info(struct pib_dev *dev, struct ib_smp *smp)
{
	union pib_port_info u;
	u32 events = 0;
	int status;

	if (be32_to_cpu(smp->attr_mod) > PIB_PORT_NUM)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(u.raw, smp->data, sizeof(u.raw));
	status = pib_portinfo_write(dev, &u.pi, &events);
	pib_dispatch_events(dev, events);
	if (!status && pib_pi_phys_state(&u.pi) != PIB_PHYS_NOP)
		pib_port_link_update(dev, true);
	return status;
}

static const struct pib_sma_attr pib_sma_attrs[] = {
	{ IB_SMP_ATTR_NODE_DESC, pib_get_node_desc, NULL },
	{ IB_SMP_ATTR_NODE_INFO, pib_get_node_info, NULL },
	{ IB_SMP_ATTR_GUID_INFO, pib_get_guid_info, pib_set_guid_info },
	{ IB_SMP_ATTR_PORT_INFO, pib_get_port_info, pib_set_port_info },
	{ IB_SMP_ATTR_PKEY_TABLE, pib_get_pkeys, pib_set_pkeys },
	{ IB_SMP_ATTR_SL_TO_VL_TABLE, pib_get_sl2vl, pib_set_sl2vl },
	{ IB_SMP_ATTR_VL_ARB_TABLE, pib_get_vlarb, pib_set_vlarb },
};

/* The M_Key check (pib_mkey_check()); a dropped SMP is counted. */
static int pib_sma_check_mkey(struct pib_dev *dev, struct ib_smp *smp,
			      bool *hide_mkey)
{
	struct pib_port *port = &dev->port;
	enum pib_mkey_verdict v;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	v = pib_mkey_check(port->mkey, port->mkey_protect,
			   be64_to_cpu(smp->mkey), smp->method);
	if (v == PIB_MKEY_DROP && port->mkey_violations != U16_MAX)
		port->mkey_violations++;
	spin_unlock_irqrestore(&port->lock, flags);
	*hide_mkey = v == PIB_MKEY_HIDE;
	return v == PIB_MKEY_DROP ? PIB_SMA_DROP : 0;
}

static int pib_sma_handle(struct pib_dev *dev, int flags, struct ib_smp *smp)
{
	const struct pib_sma_attr *a = NULL;
	bool hide_mkey = false;
	int i, status, get_status;

	for (i = 0; i < ARRAY_SIZE(pib_sma_attrs); i++)
		if (pib_sma_attrs[i].id == smp->attr_id)
			a = &pib_sma_attrs[i];
	if (!(flags & IB_MAD_IGNORE_MKEY) &&
	    pib_sma_check_mkey(dev, smp, &hide_mkey))
		return PIB_SMA_DROP;
	if (!a || (smp->method == IB_MGMT_METHOD_SET && !a->set))
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	status = smp->method == IB_MGMT_METHOD_SET ? a->set(dev, smp) : 0;
	/* The reply shows what stands, whether or not a Set was refused. */
	memset(smp->data, 0, IB_SMP_DATA_SIZE);
	get_status = a->get(dev, smp);
	status = status ?: get_status;
	if (hide_mkey && smp->attr_id == IB_SMP_ATTR_PORT_INFO)
		memset(smp->data, 0, sizeof(u64));
	return status;
}

static int pib_sma(struct pib_dev *dev, int flags, const struct ib_mad *in,
		   struct ib_mad *out)
{
	struct ib_smp *smp = (struct ib_smp *)out;
	int status;

	switch (in->mad_hdr.method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
		break;
	case IB_MGMT_METHOD_TRAP:
	case IB_MGMT_METHOD_TRAP_REPRESS:
	case IB_MGMT_METHOD_GET_RESP:
		return IB_MAD_RESULT_SUCCESS;	/* for the SM or the requester */
	default:
		*out = *in;
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
		goto reply;
	}
	if (in->mad_hdr.attr_id == IB_SMP_ATTR_SM_INFO)
		return IB_MAD_RESULT_SUCCESS;	/* SMInfo is the SM's */
	*out = *in;
	if (in->mad_hdr.class_version != PIB_SMP_CLASS_VERSION) {
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
		goto reply;
	}
	status = pib_sma_handle(dev, flags, smp);
	if (status == PIB_SMA_DROP)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
reply:
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status);
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		smp->status |= IB_SMP_DIRECTION;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/* Trace a MAD the SMA or PMA took, and its reply's status (D bit aside). */
static void pib_mad_trace(struct pib_dev *dev, u32 port_num,
			  const struct ib_mad *in, const struct ib_mad *out,
			  int ret)
{
	__be16 st;
	int status = -1;

	if (!trace_pib_mad_enabled())
		return;
	if (ret & IB_MAD_RESULT_REPLY) {
		st = out->mad_hdr.status;
		if (in->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
			st &= ~IB_SMP_DIRECTION;
		status = be16_to_cpu(st);
	}
	trace_pib_mad(dev->ibdev.name, port_num, &in->mad_hdr, status);
}

/**
 * pib_process_mad() - the HCA's management agents
 * @ibdev: the pib device
 * @flags: IB_MAD_IGNORE_* flags of the MAD layer
 * @port_num: the port the MAD arrived on (pib has one)
 * @in_wc: the MAD's work completion (unused)
 * @in_grh: the MAD's GRH, if it had one (unused)
 * @in: the MAD
 * @out: the reply, if the result says IB_MAD_RESULT_REPLY
 * @out_size: room at @out in bytes; set to the reply's size
 * @out_pkey_index: the reply's P_Key index (unused)
 *
 * Answers SMPs (SMA) and performance management MADs (PMA) addressed to
 * the port; everything else is left to the MAD layer's agents.
 *
 * Return: IB_MAD_RESULT_* flags.
 */
int pib_process_mad(struct ib_device *ibdev, int flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index)
{
	struct pib_dev *dev = to_pib_dev(ibdev);
	int ret;

	if (in->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    *out_size < sizeof(*out))
		return IB_MAD_RESULT_SUCCESS;
	*out_size = sizeof(*out);
	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		ret = pib_sma(dev, flags, in, out);
		break;
	case IB_MGMT_CLASS_PERF_MGMT:
		ret = pib_pma(dev, in, out);
		break;
	default:
		return IB_MAD_RESULT_SUCCESS;
	}
	pib_mad_trace(dev, port_num, in, out, ret);
	return ret;
}
