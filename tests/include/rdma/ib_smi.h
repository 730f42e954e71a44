/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host stand-in (tests/include/README.md): the kernel's <rdma/ib_smi.h>
 * struct ib_port_info, which pib_hdr.h reads and writes PortInfo through.
 * Member names and types are the kernel's; the layout is the IBA's
 * PortInfo (14.2.5.6, Table 148), big-endian, up to LinkRoundTripLatency.
 * Like the kernel's, the struct is not packed: its members fall on their
 * natural alignment, and it is 8-byte aligned, so 64 bytes long.
 */
#ifndef PIB_HOST_IB_SMI_H
#define PIB_HOST_IB_SMI_H

#include <assert.h>
#include <stddef.h>
#include <linux/types.h>

struct ib_port_info {
	__be64 mkey;				/* byte 0 */
	__be64 gid_prefix;			/* 8 */
	__be16 lid;				/* 16 */
	__be16 sm_lid;				/* 18 */
	__be32 cap_mask;			/* 20 */
	__be16 diag_code;			/* 24 */
	__be16 mkey_lease_period;		/* 26 */
	__u8 local_port_num;			/* 28 */
	__u8 link_width_enabled;		/* 29 */
	__u8 link_width_supported;		/* 30 */
	__u8 link_width_active;			/* 31 */
	__u8 linkspeed_portstate;		/* 32: 4 bits, 4 bits */
	__u8 portphysstate_linkdown;		/* 33: 4 bits, 4 bits */
	__u8 mkeyprot_resv_lmc;			/* 34: 2 bits, 3, 3 */
	__u8 linkspeedactive_enabled;		/* 35: 4 bits, 4 bits */
	__u8 neighbormtu_mastersmsl;		/* 36: 4 bits, 4 bits */
	__u8 vlcap_inittype;			/* 37: 4 bits, 4 bits */
	__u8 vl_high_limit;			/* 38 */
	__u8 vl_arb_high_cap;			/* 39 */
	__u8 vl_arb_low_cap;			/* 40 */
	__u8 inittypereply_mtucap;		/* 41: 4 bits, 4 bits */
	__u8 vlstallcnt_hoqlife;		/* 42: 3 bits, 5 bits */
	__u8 operationalvl_pei_peo_fpi_fpo;	/* 43: 4 bits, 1, 1, 1, 1 */
	__be16 mkey_violations;			/* 44 */
	__be16 pkey_violations;			/* 46 */
	__be16 qkey_violations;			/* 48 */
	__u8 guid_cap;				/* 50 */
	__u8 clientrereg_resv_subnetto;		/* 51: 1 bit, 2 bits, 5 */
	__u8 resv_resptimevalue;		/* 52: 3 bits, 5 bits */
	__u8 localphyerrors_overrunerrors;	/* 53: 4 bits, 4 bits */
	__be16 max_credit_hint;			/* 54 */
	__u8 resv;				/* 56 */
	__u8 link_roundtrip_latency[3];		/* 57 */
};

static_assert(sizeof(struct ib_port_info) == 64, "ib_port_info size");
static_assert(offsetof(struct ib_port_info, linkspeed_portstate) == 32,
	      "ib_port_info.linkspeed_portstate");
static_assert(offsetof(struct ib_port_info, mkey_violations) == 44,
	      "ib_port_info.mkey_violations");
static_assert(offsetof(struct ib_port_info, link_roundtrip_latency) == 57,
	      "ib_port_info.link_roundtrip_latency");

#endif
