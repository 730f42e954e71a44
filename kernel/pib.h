/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * objects shared by the files of the pib driver.
 */
#ifndef PIB_H
#define PIB_H

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/udp.h>
#include <linux/xarray.h>
#include <linux/crc32.h>
#include <net/dst_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>
#include <rdma/pib-abi.h>

#include "pib_compat.h"

/* pib_hdr.h computes the ICRC with the kernel's optimized CRC-32. */
#define PIB_CRC32_LE crc32_le
#include "pib_hdr.h"
#include "pib_cwnd.h"
#include "pib_peer.h"
#include "pib_rtt.h"

#define PIB_VER_MAJOR		0
#define PIB_VER_MINOR		1
#define PIB_VER_SUB		0
#define PIB_DRV_VERSION		__stringify(PIB_VER_MAJOR) "." \
				__stringify(PIB_VER_MINOR) "." \
				__stringify(PIB_VER_SUB)
/* query_device's fw_ver: major, minor, sub-minor in 16-bit fields. */
#define PIB_FW_VER		(((u64)PIB_VER_MAJOR << 32) | \
				 (PIB_VER_MINOR << 16) | PIB_VER_SUB)
#define PIB_PORT_NUM		1
#define PIB_PKEY_TABLE_LEN	16
/*
 * GID table: one GUIDInfo block (IBA 14.2.5.5). Entry 0 is the port GUID;
 * the SM may give the port alias GUIDs in the others, empty until then.
 */
#define PIB_GID_TABLE_LEN	8
#define PIB_DEFAULT_PKEY	0xffff
#define PIB_GID_PREFIX		0xfe80000000000000ULL
#define PIB_MAX_PD		0x10000
#define PIB_MAX_CQ		0x10000
#define PIB_MAX_CQE		0x10000
#define PIB_MAX_MR		0x10000
#define PIB_MAX_AH		0x10000
#define PIB_MAX_QP_WR		0x4000
#define PIB_MAX_SGE		32
#define PIB_MAX_INLINE		512
#define PIB_MAX_QP		0x10000
#define PIB_MAX_SRQ		0x10000
#define PIB_MAX_RD_ATOMIC	16
#define PIB_MAX_MCAST_GRP	1024
#define PIB_MAX_MCAST_QP_ATTACH	64
#define PIB_MAX_MCAST_ATTACH	4096
#define PIB_MAX_FAST_PAGES	512
#define PIB_MAX_MSG		0x80000000U
/* Most response packets one READ request of an RC requester asks for. */
#define PIB_READ_CHUNK		32
/* QP0 (SMI) and QP1 (GSI); other QPs are numbered from 2 up. */
#define PIB_NUM_SPECIAL_QPS	2
#define PIB_MAX_QPN		0xffffff
#define PIB_MCAST_QPN		0xffffff
/* An MR key is its index in the device's MR table, shifted past a key byte. */
#define PIB_MR_KEY_SHIFT	8
#define PIB_SMP_CLASS_VERSION	1
/* PortInfo.RespTimeValue: 4.096 us * 2^8, about 1 ms. */
#define PIB_SMA_RESP_TIME	8
/* PortInfo.CapabilityMask bits that always hold for a pib port. */
#define PIB_PORT_CAPS		(IB_PORT_SYS_IMAGE_GUID_SUP | IB_PORT_CLIENT_REG_SUP)
/*
 * No IEEE OUI is assigned to pib: query_device and NodeInfo say so with the
 * all-ones 24-bit VendorID, as rdma_rxe does (rdma-core's tests want a
 * VendorID that is not 0).
 */
#define PIB_VENDOR_ID		PIB_SMP_VENDOR_ID

/**
 * pib_node_info_vendor() - fill NodeInfo.VendorID
 * @ni: the NodeInfo attribute
 */
static inline void pib_node_info_vendor(struct ib_node_info *ni)
{
	ni->vendor_id[0] = (PIB_VENDOR_ID >> 16) & 0xff;
	ni->vendor_id[1] = (PIB_VENDOR_ID >> 8) & 0xff;
	ni->vendor_id[2] = PIB_VENDOR_ID & 0xff;
}

/* PortInfo.VLArbitration{High,Low}Cap: entries per table pib keeps. */
#define PIB_VLARB_CAP		8
/* VLArbitrationTable blocks: low 0-31, low 32-63, high 0-31, high 32-63. */
#define PIB_VLARB_BLOCKS	4

/**
 * struct pib_counters - what the PMA reports (PortCounters[Extended])
 * @xmit_packets: packets sent
 * @xmit_words: 4-byte words sent, LRH through ICRC
 * @rcv_packets: packets received
 * @rcv_words: 4-byte words received
 * @ucast_xmit_packets: packets sent to a unicast LID
 * @ucast_rcv_packets: packets received for a unicast LID
 * @mcast_xmit_packets: packets sent to a multicast LID
 * @mcast_rcv_packets: packets received for a multicast LID
 *
 * Each counter is cleared on its own (PortCountersExtended), so the
 * unicast and multicast counts are kept beside the totals, not derived.
 * @xmit_discards: packets the port had to drop instead of sending
 * @rcv_errors: packets received and dropped as malformed
 * @link_downed: times the link went down
 */
struct pib_counters {
	atomic64_t xmit_packets;
	atomic64_t xmit_words;
	atomic64_t rcv_packets;
	atomic64_t rcv_words;
	atomic64_t ucast_xmit_packets;
	atomic64_t ucast_rcv_packets;
	atomic64_t mcast_xmit_packets;
	atomic64_t mcast_rcv_packets;
	atomic64_t xmit_discards;
	atomic64_t rcv_errors;
	atomic64_t link_downed;
};

/* Why a packet was dropped (tracepoint pib_pkt_drop, pib_trace.h). */
enum pib_drop_reason {
	PIB_DROP_PORT_DOWN,	/* the HCA's port is DOWN */
	PIB_DROP_MALFORMED,	/* fails the IBA's header checks */
	PIB_DROP_DLID,		/* for another LID, or raw */
	PIB_DROP_DGID,		/* for another GID */
	PIB_DROP_NO_QP,		/* no such QP */
	PIB_DROP_TRANSPORT,	/* an opcode of another transport */
	PIB_DROP_PKEY,		/* P_Key not the QP's */
	PIB_DROP_MAD,		/* not a MAD QP0/QP1 take */
	PIB_DROP_SLID,		/* not from the connected QP's peer */
	PIB_DROP_NOT_ACTIVE,	/* not sent: the port is not ACTIVE */
	PIB_DROP_UNROUTED,	/* the switch has no route for it */
	PIB_DROP_INJECTED,	/* an injected fault (pib_inject.c) */
	PIB_DROP_MCAST_GID,	/* multicast for no group attached */
	PIB_DROP_QKEY,		/* a datagram with another Q_Key */
	PIB_DROP_NO_WQE,	/* a datagram with no receive WQE posted */
	PIB_DROP_QP_STATE,	/* for a QP not (yet) able to receive */
	PIB_NUM_DROPS
};

/*
 * Packet faults a QP can be given (pib_inject.c), by count of packets:
 * on the packets it sends (all but PIB_INJ_NAK), or, for PIB_INJ_NAK, on
 * the requests its RC responder takes.
 */
enum pib_inject_pkt {
	PIB_INJ_DROP,		/* lost */
	PIB_INJ_DUP,		/* sent twice */
	PIB_INJ_CORRUPT,	/* a bit flipped: the next hop's VCRC check fails */
	PIB_INJ_DELAY,		/* held back for a time, and overtaken */
	PIB_INJ_NAK,		/* answered with a chosen NAK, not executed */
	PIB_INJ_NUM_PKT
};

/* A pib_qp_fault.opcode that matches every packet. */
#define PIB_INJ_ANY_OPCODE	0x100

/**
 * struct pib_qp_fault - one kind of packet fault a QP was given
 * @left: packets still to fault
 * @opcode: the BTH opcode they must have, or PIB_INJ_ANY_OPCODE
 */
struct pib_qp_fault {
	atomic_t left;
	u16 opcode;
};

/* Verbs whose next call can be made to fail (pib_inject.c). */
enum pib_inject_verb {
	PIB_INJ_ALLOC_PD,
	PIB_INJ_CREATE_AH,
	PIB_INJ_CREATE_CQ,
	PIB_INJ_CREATE_QP,
	PIB_INJ_MODIFY_QP,
	PIB_INJ_CREATE_SRQ,
	PIB_INJ_REG_MR,
	PIB_INJ_ALLOC_UCONTEXT,
	PIB_INJ_ALLOC_MR,
	PIB_INJ_ATTACH_MCAST,
	PIB_INJ_RESIZE_CQ,
	PIB_INJ_MODIFY_SRQ,
	PIB_INJ_POST_SEND,
	PIB_INJ_POST_RECV,
	PIB_INJ_POST_SRQ_RECV,
	PIB_INJ_NUM_VERBS
};

/**
 * struct pib_dev_inject - a device's injected faults (pib_inject.c)
 * @verb: by enum pib_inject_verb, the errno its next call fails with
 * @delayq: packets held back by PIB_INJ_DELAY, in the order they came;
 *	its lock also protects @next and @armed
 * @delay_work: sends them on when they are due
 * @next: jiffies when @delay_work is due
 * @armed: @delay_work is queued for @next
 * @sl_drop: by service level, packets out on it still to be lost ("sl SL
 *	drop N": a path that fails)
 */
struct pib_dev_inject {
	atomic_t verb[PIB_INJ_NUM_VERBS];
	atomic_t sl_drop[16];
	struct sk_buff_head delayq;
	struct delayed_work delay_work;
	unsigned long next;
	bool armed;
};

/* A device's strict mode (pib_strict.c). */
enum pib_strict_mode {
	PIB_STRICT_OFF,		/* nothing checked */
	PIB_STRICT_WARN,	/* mistakes reported */
	PIB_STRICT_ERROR,	/* reported, and errors where the IBA allows */
	PIB_STRICT_NUM_MODES
};

/* The mistakes strict mode looks for: bits of pib_qp.strict_seen. */
enum pib_strict_check {
	PIB_STRICT_UNSIGNALED,	/* unsignaled sends until the SQ wraps */
	PIB_STRICT_CQ_SIZE,	/* a CQ smaller than the queues feeding it */
	PIB_STRICT_RECV_LEN,	/* a message longer than its receive WQE */
	PIB_STRICT_MR_BUSY,	/* an MR deregistered under posted work */
	PIB_STRICT_RKEY_INVALID, /* an R_Key used after invalidation */
	PIB_STRICT_ATOMIC_ALIGN, /* an atomic on an unaligned address */
	PIB_STRICT_MODIFY_ATTRS, /* modify_qp attributes out of the IBA's table */
	PIB_STRICT_RD_ATOMIC,	/* READs beyond the responder's resources */
	PIB_STRICT_NUM_CHECKS
};

/* Why an RC requester retransmits (tracepoint pib_retransmit). */
enum pib_retry_cause {
	PIB_RETRY_TIMEOUT,	/* the ACK timer fired */
	PIB_RETRY_SEQ_NAK,	/* a PSN sequence error NAK */
	PIB_RETRY_READ_GAP,	/* READ responses went missing */
	PIB_RETRY_PROBE,	/* no ACK for a few round trips (pib_rtt.h) */
};

/* Transport events counted per device, shown by `rdma statistic`. */
enum pib_stat {
	PIB_STAT_RETRANSMIT_TIMEOUTS,	/* local ACK timeouts */
	PIB_STAT_RETRANSMIT_PROBES,	/* early go-backs (pib_rtt.h) */
	PIB_STAT_SEQ_NAKS_RCVD,		/* PSN sequence NAKs received */
	PIB_STAT_RNR_NAKS_RCVD,		/* RNR NAKs received */
	PIB_STAT_SEQ_NAKS_SENT,		/* PSN sequence NAKs sent */
	PIB_STAT_RNR_NAKS_SENT,		/* RNR NAKs sent */
	PIB_STAT_DUP_REQUESTS,		/* duplicate requests received */
	PIB_STAT_READ_GAPS,		/* READ responses missing, asked again */
	PIB_STAT_RCV_NO_QP,		/* packets for no QP */
	PIB_STAT_RCV_BAD_PKEY,		/* packets with a P_Key not the QP's */
	PIB_STAT_UD_DROPS,		/* datagrams without a receive WQE */
	PIB_STAT_RESP_PSN_UNSENT,	/* responses for PSNs never sent */
	PIB_STAT_RCV_BAD_MAD,		/* for QP0/QP1, but no MAD they take */
	PIB_STAT_RCV_MCAST_BAD_GID,	/* multicast for no group attached */
	PIB_STAT_RCV_PORT_DOWN,		/* arrived while the port was DOWN */
	PIB_STAT_RCV_MALFORMED,		/* failed the IBA's header checks */
	PIB_STAT_RCV_BAD_DLID,		/* for another LID, or raw */
	PIB_STAT_RCV_BAD_DGID,		/* for another GID */
	PIB_STAT_RCV_BAD_TRANSPORT,	/* an opcode the QP's type has not */
	PIB_STAT_RCV_BAD_SLID,		/* not from a connected QP's peer */
	PIB_STAT_RCV_BAD_QKEY,		/* datagrams with another Q_Key */
	PIB_STAT_RCV_QP_NOT_READY,	/* for a QP in RESET, INIT or ERR */
	PIB_STAT_XMIT_NOT_ACTIVE,	/* not sent: the port not ACTIVE */
	PIB_STAT_INJECTED_DROPS,	/* dropped by an injected fault */
	PIB_STAT_INJECTED_FAULTS,	/* duplicated, corrupted, delayed, NAK'd */
	PIB_STAT_STRICT_REPORTS,	/* mistakes strict mode reported */
	PIB_STAT_ODP_RESP_FAULTS,	/* requests RNR NAK'd for ODP faults */
	PIB_STAT_ODP_REQ_FAULTS,	/* requester waits for ODP faults */
	PIB_NUM_STATS
};

/**
 * struct pib_port - the state of the HCA's one port
 * @lock: protects every field below but @counters
 * @state: logical port state (IBA PortInfo.PortState)
 * @phys_state: physical port state (IBA PortInfo.PortPhysicalState)
 * @disabled: the SM disabled the port (PortPhysicalState set to Disabled)
 * @max_mtu: largest IB MTU the netdev can carry
 * @active_mtu: IB MTU in use: @max_mtu, or less if the SM set NeighborMTU
 * @sm_mtu: NeighborMTU the SM set, 0 if none
 * @cap_flags: PortInfo.CapabilityMask (IsSM etc.)
 * @width: active link width (enum pib_ib_width)
 * @speed: active link speed (enum pib_ib_speed)
 * @width_enabled: PortInfo.LinkWidthEnabled
 * @speed_enabled: PortInfo.LinkSpeedEnabled
 * @lid: base LID
 * @lmc: LID mask control
 * @sm_lid: master SM's LID
 * @sm_sl: master SM's service level
 * @subnet_prefix: GID prefix
 * @mkey: management key
 * @mkey_protect: M_Key protection bits
 * @mkey_lease: M_Key lease period (stored; leases do not expire)
 * @mkey_violations: SMPs dropped for a wrong M_Key
 * @subnet_timeout: PortInfo.SubnetTimeOut
 * @pkeys: P_Key table; entry 0 is the default partition
 * @guids: GUIDInfo's alias GUIDs, as the SM set them; 0 for none. Entry 0
 *	stays 0: it is the port GUID (pib_port_guid())
 * @sl2vl: SL to VL mapping, one VL per SL
 * @vlarb: VL arbitration tables, as the SM set them
 * @counters: traffic and error counters
 */
struct pib_port {
	spinlock_t lock;	/* every field below but @counters */
	enum ib_port_state state;
	enum ib_port_phys_state phys_state;
	bool disabled;
	enum ib_mtu max_mtu;
	enum ib_mtu active_mtu;
	enum ib_mtu sm_mtu;
	u32 cap_flags;
	u8 width;
	u8 speed;
	u8 width_enabled;
	u8 speed_enabled;
	u16 lid;
	u8 lmc;
	u16 sm_lid;
	u8 sm_sl;
	u64 subnet_prefix;
	u64 mkey;
	u8 mkey_protect;
	u16 mkey_lease;
	u16 mkey_violations;
	u8 subnet_timeout;
	u16 pkeys[PIB_PKEY_TABLE_LEN];
	__be64 guids[PIB_GID_TABLE_LEN];
	u8 sl2vl[16];
	u8 vlarb[PIB_VLARB_BLOCKS][PIB_SMP_DATA_LEN];
	struct pib_counters counters;
};

/*
 * Switch ports: 0 is the switch itself, 1..64 the pib devices on the netdev
 * (device index + 1), 65..128 the peers (peer slot + 65).
 */
#define PIB_SW_NUM_PORTS	(PIB_MAX_DEVS_PER_NETDEV + PIB_MAX_PEERS)
#define PIB_SW_FIRST_PEER_PORT	(PIB_MAX_DEVS_PER_NETDEV + 1)
/* SwitchInfo.LinearFDBCap: every unicast LID. */
#define PIB_SW_LFT_CAP		0xc000
/* LinearForwardingTable entry for "no port". */
#define PIB_LFT_NO_PORT		0xff
/* SwitchInfo.MulticastFDBCap: MLIDs 0xc000 up. */
#define PIB_SW_MFT_CAP		1024
/* MulticastForwardingTable PortMask words per MLID, 16 ports each. */
#define PIB_MFT_PORTS_PER_MASK	16
#define PIB_MFT_POSITIONS	DIV_ROUND_UP(PIB_SW_NUM_PORTS + 1, \
					     PIB_MFT_PORTS_PER_MASK)
/* Trap 128: "link state of at least one port of a switch changed". */
#define PIB_TRAP_LINK_STATE	128
/* Trap 128 is sent again this often until the SM represses it... */
#define PIB_TRAP_RESEND_MS	2000
/* ...at most this many times. */
#define PIB_TRAP_TRIES		5
/*
 * Traps of a switch go at most one per PIB_TRAP_RESEND_MS, but this many
 * at once after a quiet time: a link that goes down and comes straight
 * back (a peer's device made anew) tells the SM both at once.
 */
#define PIB_TRAP_BURST		2

/**
 * struct pib_sw_port - a switch port's state, under the switch's lock
 * @state: logical state (enum ib_port_state) the SM drives
 * @mtu: NeighborMTU the SM set, 0 if none
 * @up: physical link, as last seen (pib_switch_track_links)
 */
struct pib_sw_port {
	u8 state;
	u8 mtu;
	bool up;
};

struct pib_udp;

/**
 * struct pib_route_tags - per CPU, the peer address each of a switch's
 *	cached routes was looked up for (struct pib_switch.routes): a slot's
 *	peer may move, and the route is good only for the address it was for
 * @addr: by peer slot
 */
struct pib_route_tags {
	struct pib_ip addr[PIB_MAX_PEERS];
};

/**
 * struct pib_switch - the virtual switch of one netdev
 * @list: entry on pib_switches
 * @ndev: the netdev; a reference is held
 * @users: pib devices attached (under pib_switches_lock)
 * @udp: the UDP sockets on pib's port of @ndev's namespace, which it
 *	shares, by enum pib_ip_family (pib_net.c; the IPv6 one is NULL
 *	where the kernel has IPv6 disabled)
 * @dying: the switch is going away: no work may be queued (under @lock)
 * @guid: switch node GUID
 * @node_desc: NodeDescription, "pib switch <host name> <netdev>", the host
 *	name of the UTS namespace that added the first device (a container's)
 * @incarnation: drawn when the switch was made, said in its hellos
 * @speaking: its first device is on it: it says hello and hears peers'
 *	(under @lock)
 * @hello_work: periodic hello and peer aging
 * @debugfs: /sys/kernel/debug/pib/<netdev>
 * @lock: protects the peer table, @ports and everything the SM sets
 * @peers: other hosts' switches (pib_peer.h)
 * @hellos_tx: hellos sent
 * @hellos_rx: hellos received
 * @bad_hellos: raw packets that were not hellos
 * @hellos_no_addr: hellos over a family the netdev has no address of,
 *	which the switch could not answer, so ignored
 * @ports: port states, port 0 the switch's own
 * @lid: port 0's LID
 * @lmc: port 0's LMC
 * @sm_lid: the master SM's LID
 * @sm_sl: the master SM's SL
 * @subnet_prefix: GID prefix
 * @subnet_timeout: PortInfo.SubnetTimeOut
 * @mkey: port 0's M_Key, which guards the whole switch
 * @mkey_protect: port 0's M_KeyProtectBits
 * @mkey_lease: port 0's M_KeyLeasePeriod (stored; leases do not expire)
 * @mkey_violations: SMPs dropped for a wrong M_Key
 * @pkeys: port 0's P_Key table
 * @lft: LinearForwardingTable, PIB_SW_LFT_CAP entries
 * @lft_top: SwitchInfo.LinearFDBTop
 * @mft: MulticastForwardingTable, PIB_SW_MFT_CAP port masks
 * @mft_top: SwitchInfo.MulticastFDBTop
 * @trap_work: sends Trap 128 until the SM represses it
 * @trap_pending: a port changed and the SM has not repressed the trap
 * @trap_tries: times the pending trap was sent
 * @trap_tid: transaction ID of the pending trap
 * @trap_tat: when the next trap would go at one per PIB_TRAP_RESEND_MS
 *	(jiffies); one may go up to PIB_TRAP_BURST - 1 of those earlier
 * @default_port: SwitchInfo.DefaultPort
 * @life_time: SwitchInfo.LifeTimeValue
 * @port_state_change: SwitchInfo.PortStateChange
 * @hca: the pib devices on the netdev, by index (RCU)
 * @unrouted: IBA packets dropped for want of a route
 * @dr_discards: directed-route SMPs discarded (bad path or hop pointer)
 * @hop_limit: packets not sent on for want of hop budget (PIB_TTL_HERE)
 * @traps_tx: Trap 128 SMPs sent
 * @batches_tx: UDP GSO skbs sent (pib_switch_send())
 * @batched_tx: the packets they carried
 * @batches_rx: skbs of more than one datagram received (UDP GRO, or a
 *	batch that crossed a veth whole; pib_net.c)
 * @batched_rx: the datagrams they carried
 * @udp_csum_errors: datagrams dropped for a bad UDP checksum
 * @drops: received datagrams dropped, by enum pib_pkt_err
 * @routes: by peer slot, the IP route to the peer, cached per CPU
 *	(pib_net.c): a route lookup per batch or packet costs more than the
 *	rest of the way down to the NIC
 * @route_tags: per CPU, the address each slot's cached route is for
 * @routes_cached: sends to a peer that took the cached route
 * @route_lookups: sends to a peer that looked the route up (and cached it)
 */
struct pib_switch {
	struct list_head list;
	struct net_device *ndev;
	unsigned int users;
	struct pib_udp *udp;
	bool dying;
	u64 guid;
	char node_desc[IB_DEVICE_NODE_DESC_MAX];
	u16 incarnation;
	bool speaking;
	struct delayed_work hello_work;
	struct dentry *debugfs;
	spinlock_t lock;	/* the peer table, @ports, what the SM sets */
	struct pib_peer_table peers;
	struct pib_sw_port ports[PIB_SW_NUM_PORTS + 1];
	u16 lid;
	u8 lmc;
	u16 sm_lid;
	u8 sm_sl;
	u64 subnet_prefix;
	u8 subnet_timeout;
	u64 mkey;
	u8 mkey_protect;
	u16 mkey_lease;
	u16 mkey_violations;
	u16 pkeys[PIB_PKEY_TABLE_LEN];
	u8 *lft;
	u16 lft_top;
	u16 (*mft)[PIB_MFT_POSITIONS];
	u16 mft_top;
	struct delayed_work trap_work;
	bool trap_pending;
	u8 trap_tries;
	u64 trap_tid;
	unsigned long trap_tat;
	u8 default_port;
	u8 life_time;
	bool port_state_change;
	atomic64_t hellos_tx;
	atomic64_t hellos_rx;
	atomic64_t bad_hellos;
	atomic64_t hellos_no_addr;
	struct pib_dev __rcu *hca[PIB_MAX_DEVS_PER_NETDEV];
	atomic64_t unrouted;
	atomic64_t dr_discards;
	atomic64_t hop_limit;
	atomic64_t traps_tx;
	atomic64_t batches_tx;
	atomic64_t batched_tx;
	atomic64_t batches_rx;
	atomic64_t batched_rx;
	atomic64_t udp_csum_errors;
	atomic64_t drops[PIB_PKT_NUM_ERRS];
	struct dst_cache routes[PIB_MAX_PEERS];
	struct pib_route_tags __percpu *route_tags;
	atomic64_t routes_cached;
	atomic64_t route_lookups;
};

/**
 * struct pib_owner - who created an object, for its debugfs line
 * @pid: the process (thread group) that created it; 0 for the kernel
 * @comm: that process's name, or the kernel consumer's module
 *
 * Copied at creation: the core's restrack entry lets go of the task before
 * some objects (contexts, MRs) leave pib's lists.
 */
struct pib_owner {
	pid_t pid;
	char comm[TASK_COMM_LEN];
};

/* Objects that debugfs lists from pib_dev.objs (QPs and MRs have tables). */
enum pib_obj {
	PIB_OBJ_CTX,
	PIB_OBJ_PD,
	PIB_OBJ_AH,
	PIB_OBJ_CQ,
	PIB_OBJ_SRQ,
	PIB_NUM_OBJS
};

/**
 * struct pib_obj_entry - an object on its device's debugfs list
 * @node: on pib_dev.objs[type], under pib_dev.objs_lock
 * @owner: who created it
 */
struct pib_obj_entry {
	struct list_head node;
	struct pib_owner owner;
};

/**
 * struct pib_dev - one pib HCA
 * @ibdev: the RDMA core's device; must come first (ib_alloc_device)
 * @list: entry on the driver's device list (pib_devs)
 * @ndev: the netdev this HCA is attached to; a reference is held
 * @sw: the netdev's virtual switch
 * @index: this device's index among the pib devices on @ndev
 * @registered: registration is complete (under pib_devs_lock)
 * @guid: node, port and system image GUID
 * @port: the port's state
 * @rate_work: reads the netdev's link speed into @port (pib_dev_rate_work())
 * @special_qp: QP0 and QP1, once created
 * @mrs: memory regions by key index
 * @txq: packets the port sends, waiting for @tx_work
 * @ackq: responses the port sends (ACKs, NAKs, READ responses, atomic
 *	ACKs); they go before @txq, in order
 * @tx_work: hands @ackq and @txq to the switch, in process context
 * @unreg_work: unregisters the device once its netdev is going
 *	(pib_dev_netdev_event())
 * @tx_flags: PIB_TX_BUSY while a context hands them over (pib_dev_tx())
 * @qps: QPs by number, 2 and up (RCU)
 * @next_qpn: where the search for a free QP number starts
 * @xrc_srqs: XRC SRQs by number, which XRCETHs name (RCU)
 * @next_srqn: where the search for a free XRC SRQ number starts
 * @mcast_lock: protects @mcast
 * @mcast: multicast attachments (struct pib_mcast_attach, RCU)
 * @atomic_lock: makes atomic operations atomic among this HCA's QPs
 * @mw_lock: a memory window's bind takes its MR, and a deregistration
 *	checks that no window is bound, under it
 * @mw2_count: type 2 memory windows (a QP that goes unbinds those bound to
 *	it)
 * @pd_count: protection domains allocated
 * @cq_count: completion queues allocated
 * @mr_count: memory regions allocated
 * @ah_count: address handles allocated
 * @qp_count: QPs allocated
 * @srq_count: SRQs allocated
 * @xrcd_count: XRC domains allocated
 * @mcast_count: multicast attachments
 * @stats: transport events, by enum pib_stat
 * @debugfs: /sys/kernel/debug/pib/<device>/, once registered
 * @captures: the open packet captures (pib_capture.c)
 * @ncaptures: how many
 * @capture_closed: the device is going: no new capture
 * @inject: faults injected into the device (pib_inject.c)
 * @strict: strict mode (enum pib_strict_mode, pib_strict.c)
 * @objs_lock: protects @objs
 * @objs: by enum pib_obj, the objects debugfs lists (struct pib_obj_entry)
 */
struct pib_dev {
	struct ib_device ibdev;
	struct list_head list;
	struct net_device *ndev;
	struct pib_switch *sw;
	unsigned int index;
	bool registered;
	__be64 guid;
	struct pib_port port;
	struct delayed_work rate_work;
	struct pib_qp __rcu *special_qp[PIB_NUM_SPECIAL_QPS];
	struct xarray mrs;
	struct sk_buff_head txq;
	struct sk_buff_head ackq;
	struct work_struct tx_work;
	struct work_struct unreg_work;
	unsigned long tx_flags;
	struct xarray qps;
	u32 next_qpn;
	struct xarray xrc_srqs;
	u32 next_srqn;
	spinlock_t mcast_lock;	/* @mcast */
	struct list_head mcast;
	spinlock_t atomic_lock;	/* atomics among this HCA's QPs */
	spinlock_t mw_lock;	/* binds against deregistrations */
	atomic_t mw2_count;
	atomic_t pd_count;
	atomic_t cq_count;
	atomic_t mr_count;
	atomic_t ah_count;
	atomic_t qp_count;
	atomic_t srq_count;
	atomic_t xrcd_count;
	atomic_t mcast_count;
	atomic64_t stats[PIB_NUM_STATS];
	struct dentry *debugfs;
	struct list_head captures;
	unsigned int ncaptures;
	bool capture_closed;
	struct pib_dev_inject inject;
	u8 strict;
	spinlock_t objs_lock;	/* @objs */
	struct list_head objs[PIB_NUM_OBJS];
};

/**
 * pib_synchronize_rcu() - wait for the RCU readers of what was unpublished
 * @ndev: the netdev the object's device or switch is on
 *
 * While @ndev is being unregistered (its namespace deleted, or the netdev
 * removed), its unregistration waits for pib's references, which go only
 * once every QP of its devices is destroyed and its switch stopped: one
 * grace period each, seconds in all on a loaded host, and the kernel
 * complains after 10 s. Then the grace period is an expedited one.
 */
static inline void pib_synchronize_rcu(const struct net_device *ndev)
{
	if (READ_ONCE(ndev->reg_state) != NETREG_REGISTERED)
		synchronize_rcu_expedited();
	else
		synchronize_rcu();
}

static inline void pib_stat_inc(struct ib_device *ibdev, enum pib_stat stat)
{
	atomic64_inc(&container_of(ibdev, struct pib_dev, ibdev)->stats[stat]);
}

/**
 * struct pib_pd - a protection domain
 * @ibpd: the RDMA core's PD; must come first
 * @obj: its debugfs entry
 */
struct pib_pd {
	struct ib_pd ibpd;
	struct pib_obj_entry obj;
};

/**
 * struct pib_ucontext - a user verbs context
 * @ibuc: the RDMA core's context; must come first
 * @obj: its debugfs entry
 */
struct pib_ucontext {
	struct ib_ucontext ibuc;
	struct pib_obj_entry obj;
};

/**
 * struct pib_ah - an address handle
 * @ibah: the RDMA core's AH; must come first
 * @attr: the destination it was created for
 * @obj: its debugfs entry
 */
struct pib_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;
	struct pib_obj_entry obj;
};

/* Kinds of memory region: how an address turns into memory. */
enum pib_mr_type {
	PIB_MR_DMA,		/* kernel virtual addresses, all of memory */
	PIB_MR_USER,		/* pinned pages of a process (ib_umem) */
	PIB_MR_FAST,		/* a page list that REG_MR maps (FRWR) */
	PIB_MR_MW,		/* a memory window onto a user MR (pib_mw.c) */
};

/**
 * struct pib_mr_pin - a process's memory, pinned for a user MR
 * @umem: the pinned memory
 * @pages: its pages, in order
 * @npages: entries of @pages
 * @page_off: the offset of the MR's first byte in @pages[0]
 */
struct pib_mr_pin {
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	unsigned int page_off;
};

/*
 * Not an IB_ACCESS_* flag (those below bit 30): pib_mr_check() is to see
 * that an ODP MR's pages are there.
 */
#define PIB_ACCESS_RESIDENT	BIT(30)

/**
 * struct pib_odp_want - a range the data path wants faulted in
 * @lo: its first byte (user address, page aligned)
 * @hi: its end
 * @ahead: the end of what is faulted in with it, if it can be
 * @write: a write asked for it
 */
struct pib_odp_want {
	u64 lo;
	u64 hi;
	u64 ahead;
	bool write;
};

/* Ranges an ODP MR's work holds; more are merged into the last one. */
#define PIB_ODP_WANTS 4

/**
 * struct pib_odp - the on-demand paging of a user MR (pib_odp.c)
 * @umem: the RDMA core's ODP umem: its notifier and its faults
 * @mr: the MR
 * @lock: @pages, the wanted and the failed range
 * @pages: per page of @umem, its struct page with PIB_ODP_PRESENT (and
 *	PIB_ODP_WRITABLE) in the low bits, or 0: what the data path may
 *	touch. Set under umem_mutex and @lock, read under @lock alone.
 * @npages: entries of @pages
 * @work: faults the wanted ranges in
 * @wants: what the data path asked for, for @work: @nwants ranges, each
 *	faulted in on its own (one that fails does not fail the others)
 * @nwants: entries of @wants in use
 * @failed_lo: the first byte of the last range that could not be faulted
 * @failed_hi: its end
 * @failed_at: when, in jiffies
 * @faults: faults done
 * @fault_errors: faults that failed
 * @invalidations: invalidations that took pages away
 */
struct pib_odp {
	struct ib_umem_odp *umem;
	struct pib_mr *mr;
	spinlock_t lock;	/* the page table and the ranges */
	unsigned long *pages;
	unsigned long npages;
	struct work_struct work;
	struct pib_odp_want wants[PIB_ODP_WANTS];
	unsigned int nwants;
	u64 failed_lo;
	u64 failed_hi;
	unsigned long failed_at;
	atomic64_t faults;
	atomic64_t fault_errors;
	atomic64_t invalidations;
};

/**
 * struct pib_mr - a memory region
 * @ibmr: the RDMA core's MR
 * @type: enum pib_mr_type
 * @access: IB_ACCESS_* flags
 * @key: the key the MR answers to. Not ibmr.lkey: a kernel consumer sets
 *	that to its next key (ib_update_fast_reg_key()) while work requests
 *	for the current one may still be queued, and REG_MR makes it current.
 * @valid: the data path may use the MR: false while a fast-register MR is
 *	not registered or invalidated, and while a user MR is reregistered.
 *	Set true with smp_store_release(), once the rest is in place.
 * @users: references: 1 for the table, 1 per access in progress
 * @unused: completed when the last access after deregistration ends
 * @rcu: the lookup runs under RCU
 * @pin: PIB_MR_USER: the pinned memory (none with @odp)
 * @odp: PIB_MR_USER with IB_ACCESS_ON_DEMAND: its pages, not pinned
 * @fast: PIB_MR_FAST: kernel addresses of its pages (ibmr.page_size each)
 * @max_fast: PIB_MR_FAST: entries @fast has room for
 * @nfast: PIB_MR_FAST: entries map_mr_sg filled
 * @bound_mws: memory windows bound to the MR: it cannot be deregistered
 * @mw_type: PIB_MR_MW: IB_MW_TYPE_1 or IB_MW_TYPE_2
 * @mw_lock: PIB_MR_MW: the binding below, and @valid, change under it
 * @parent: PIB_MR_MW: the MR the window is bound to, or NULL
 * @parent_va: PIB_MR_MW: that MR's address of the window's first byte
 * @qp: PIB_MR_MW: the QP a type 2 window is bound to (only compared:
 *	pib_mw_qp_gone() unbinds its windows before it is freed)
 * @owner: who registered it (debugfs)
 *
 * A memory window is a pib_mr too: its key is in the same table, its
 * ibmr.pd, iova, length and @access say what a remote access through it
 * may do, and @valid says that it is bound.
 */
struct pib_mr {
	struct ib_mr ibmr;
	enum pib_mr_type type;
	int access;
	u32 key;
	bool valid;
	refcount_t users;
	struct completion unused;
	struct rcu_head rcu;
	struct pib_mr_pin pin;
	struct pib_odp *odp;
	u64 *fast;
	u32 max_fast;
	u32 nfast;
	atomic_t bound_mws;
	u8 mw_type;
	spinlock_t mw_lock;	/* the binding of a window */
	struct pib_mr *parent;
	u64 parent_va;
	const struct pib_qp *qp;
	struct pib_owner owner;
};

/**
 * struct pib_mw - a memory window
 * @ibmw: the RDMA core's MW
 * @mr: the window itself, in the MR table (type PIB_MR_MW)
 */
struct pib_mw {
	struct ib_mw ibmw;
	struct pib_mr *mr;
};

static inline struct pib_mw *to_pib_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct pib_mw, ibmw);
}

static inline struct pib_mr *to_pib_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct pib_mr, ibmr);
}

/**
 * struct pib_ring - a ring shared with the provider, or a kernel consumer's
 * @hdr: the ring's memory: struct pib_ring_hdr, then the entries
 * @mmap: the user's mmap entry, NULL for a kernel consumer's ring
 * @size: bytes of @hdr (page aligned)
 * @num: entries, a power of two
 * @stride: bytes per entry
 * @prod: the producer index as the kernel knows it
 * @cons: the consumer index as the kernel knows it
 *
 * The kernel produces into CQs and consumes from SQs, RQs and SRQs; for a
 * kernel consumer's QP, post_send and post_recv produce as the provider
 * would. See <rdma/pib-abi.h> for the rules.
 */
struct pib_ring {
	struct pib_ring_hdr *hdr;
	struct rdma_user_mmap_entry *mmap;
	size_t size;
	u32 num;
	u32 stride;
	u32 prod;
	u32 cons;
};

/*
 * Memory a process's verbs make the kernel keep (rings and what goes with
 * them): charged to the process's memory cgroup, and refused with -ENOMEM
 * rather than by the OOM killer when that is full.
 */
#define PIB_GFP_USER	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

static inline void *pib_ring_entry(const struct pib_ring *ring, u32 idx)
{
	return (u8 *)ring->hdr + PIB_RING_HDR_SIZE +
	       (size_t)(idx & (ring->num - 1)) * ring->stride;
}

/* Notification state of a CQ: what the consumer armed it for. */
enum pib_cq_notify {
	PIB_CQ_DISARMED,
	PIB_CQ_NEXT_COMP,
	PIB_CQ_NEXT_SOLICITED,
};

/**
 * struct pib_cq - a completion queue
 * @ibcq: the RDMA core's CQ; must come first
 * @lock: protects the ring, @qps, @notify and @overflowed
 * @ring: the ring of struct pib_cqe
 * @qps: a kernel consumer's CQ: the QP of every entry (NULL for users)
 * @notify: armed state
 * @overflowed: a completion was lost; the CQ is in error
 * @fire_pending: the completion handler is to be called
 * @overflow_pending: IB_EVENT_CQ_ERR is to be raised
 * @timestamps: every completion gets its time (a user's CQ created with
 *	IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
 * @fed: WQEs the queues that complete into it may hold (pib_strict.c)
 * @obj: its debugfs entry
 */
struct pib_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* the ring, @qps, @notify, @overflowed */
	struct pib_ring ring;
	struct ib_qp **qps;
	enum pib_cq_notify notify;
	bool overflowed;
	bool fire_pending;
	bool overflow_pending;
	bool timestamps;
	u64 fed;
	struct pib_obj_entry obj;
};

/**
 * struct pib_xrcd - an XRC domain: XRC SRQs and XRC TGT QPs that processes
 *	share (the RDMA core keeps which ones)
 * @ibxrcd: the RDMA core's XRCD; must come first
 */
struct pib_xrcd {
	struct ib_xrcd ibxrcd;
};

/**
 * struct pib_srq - a shared receive queue (or an XRC SRQ)
 * @ibsrq: the RDMA core's SRQ; must come first
 * @lock: protects the ring's consumer side, @limit and @max_sge
 * @ring: the ring of struct pib_recv_wqe
 * @max_sge: SGEs a WQE may have
 * @limit: the SRQ limit; 0 when disarmed
 * @obj: its debugfs entry
 */
struct pib_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;	/* the ring's consumer side, @limit, @max_sge */
	struct pib_ring ring;
	u32 max_sge;
	u32 limit;
	struct pib_obj_entry obj;
};

/* Kernel-only send opcodes: never accepted from a user's SQ. */
#define PIB_WR_REG_MR		0x80

/**
 * struct pib_swqe - the kernel's state of a fetched send WQE
 * @first_psn: PSN of its first packet
 * @last_psn: PSN of its last packet (of its last response, for READ)
 * @npkts: packets of the request (READ and atomics: 1)
 * @resp_off: READ: bytes of response received
 * @resp_start: READ: where the responses to its latest request start
 * @len: bytes of the message
 * @sent: its packets have all been sent once
 * @resp_done: READ and atomics: the whole response arrived
 */
struct pib_swqe {
	u32 first_psn;
	u32 last_psn;
	u32 npkts;
	u32 resp_off;
	u32 resp_start;
	u32 len;
	bool sent;
	bool resp_done;
};

/**
 * struct pib_sq - the kernel's side of a send queue
 * @ring: the SQ ring; its cons is the oldest WQE not completed
 * @shadow: checked copies of fetched WQEs, one stride each
 * @st: per-WQE transport state, parallel to @shadow
 * @fetched: index after the last WQE copied and checked
 * @max_sge: SGEs a WQE may have
 * @max_inline: inline bytes a WQE may have
 */
struct pib_sq {
	struct pib_ring ring;
	u8 *shadow;
	struct pib_swqe *st;
	u32 fetched;
	u32 max_sge;
	u32 max_inline;
};

/**
 * enum pib_req_state - where an RC requester stands
 * @PIB_REQ_SENDING: sends what the SQ holds, as far as the window, the
 *	READ/atomic credits and fences let it; after a go-back (a sequence
 *	NAK, a timeout, a READ gap), again from the oldest WQE not completed
 * @PIB_REQ_RNR_WAIT: an RNR NAK came and the requester went back to the
 *	oldest WQE not completed: it sends nothing until the RNR timer the
 *	NAK named (IBA Table 45) fires, and no retransmit timeout runs
 *	meanwhile (the one timer is the RNR timer)
 * @PIB_REQ_ODP_WAIT: the pages of an ODP MR of its own that a packet
 *	needs are being faulted in (pib_odp.c): it sends nothing until its
 *	timer fires after PIB_ODP_WAIT_US, then (if a response could not be
 *	placed) goes back to the oldest WQE not completed, and tries again
 */
enum pib_req_state {
	PIB_REQ_SENDING,
	PIB_REQ_RNR_WAIT,
	PIB_REQ_ODP_WAIT,
};

/**
 * enum pib_comp_state - where an RC completer stands with READ responses
 * @PIB_COMP_IN_ORDER: responses are taken as they come in PSN order
 * @PIB_COMP_READ_GAP: READ responses went missing and the READ was asked
 *	again from its first missing byte; responses beyond the gap that
 *	still come do not ask again until the gap closes (a response that
 *	fits) or the requester goes back for another reason
 */
enum pib_comp_state {
	PIB_COMP_IN_ORDER,
	PIB_COMP_READ_GAP,
};

/**
 * struct pib_req - RC/UC requester state
 * @cur: index of the WQE being sent
 * @offset: bytes of it sent
 * @started: index after the newest WQE the requester started: in SQD it
 *	finishes those (also sending them again after a timeout), and the SQ
 *	is drained once they have completed
 * @psn: next PSN to send
 * @acked_psn: the latest PSN the responder acknowledged
 * @sent_psn: the PSN after the newest one sent (a retransmission goes back
 *	with @psn, not with this)
 * @retry_left: retries left before IB_WC_RETRY_EXC_ERR
 * @rnr_left: RNR retries left (7: infinite)
 * @rd_atomic: READs and atomics outstanding
 * @since_ack_req: packets sent since the last one with AckReq
 * @cwnd: RC: how many packets may be in flight (pib_cwnd.h)
 * @state: the requester's state (pib_req_set_state())
 * @comp_state: the completer's state (pib_comp_set_state())
 * @fatal_pending: IB_EVENT_QP_FATAL is to be raised
 * @sqd_notify: the QP entered SQD asking for IB_EVENT_SQ_DRAINED, which
 *	is not raised yet
 * @drained_pending: IB_EVENT_SQ_DRAINED is to be raised
 * @mig_pending: IB_EVENT_PATH_MIG is to be raised
 * @odp_rewind: in PIB_REQ_ODP_WAIT, a response was dropped: go back
 * @probe_armed: the timer runs for a probe, not for the ACK timeout
 * @probed: a probe went since the last progress (one per stall)
 * @rtt: the round-trip estimate the probe time comes from
 * @timer: retransmit, probe, RNR and ODP wait timer
 */
struct pib_req {
	u32 cur;
	u32 offset;
	u32 started;
	u32 psn;
	u32 acked_psn;
	u32 sent_psn;
	int retry_left;
	int rnr_left;
	u32 rd_atomic;
	u32 since_ack_req;
	struct pib_cwnd cwnd;
	enum pib_req_state state;
	enum pib_comp_state comp_state;
	bool fatal_pending;
	bool sqd_notify;
	bool drained_pending;
	bool mig_pending;
	bool odp_rewind;
	bool probe_armed;
	bool probed;
	struct pib_rtt rtt;
	struct timer_list timer;
};

/**
 * struct pib_rd_res - a responder resource: a READ or atomic it answers
 * @opcode: IB_OPCODE_RC_RDMA_READ_REQUEST, an atomic opcode,
 *	PIB_OPCODE_RC_FLUSH or PIB_OPCODE_RC_ATOMIC_WRITE, or their XRC
 *	twins; 0 when free
 * @srqn: XRC TGT QPs: the XRC SRQ the request named, whose PD a READ's
 *	memory is in
 * @psn: PSN of the request
 * @end_psn: PSN after its last response
 * @start: READ: where its current run of responses starts (a duplicate
 *	request restarts them in the middle)
 * @va: READ: remote address
 * @rkey: READ: R_Key
 * @len: READ: bytes
 * @sent: READ: bytes answered so far
 * @done: its (last) response went out
 * @orig: atomics: the original value, also for a duplicate request
 */
struct pib_rd_res {
	u8 opcode;
	u32 srqn;
	u32 psn;
	u32 end_psn;
	u64 va;
	u32 rkey;
	u32 len;
	u32 sent;
	u32 start;
	bool done;
	u64 orig;
};

/**
 * enum pib_resp_state - where an RC responder stands with the PSNs
 * @PIB_RESP_IN_ORDER: executes the request with the expected PSN, answers
 *	duplicates, and NAKs a later PSN for a sequence error
 * @PIB_RESP_SEQ_NAK_SENT: it sent that NAK: until the expected PSN comes,
 *	later PSNs are dropped without another NAK, as the IBA has it
 *	(9.7.5.1); duplicates are still answered
 */
enum pib_resp_state {
	PIB_RESP_IN_ORDER,
	PIB_RESP_SEQ_NAK_SENT,
};

/**
 * enum pib_resp_msg_state - the message an RC or UC responder is in
 * @PIB_RESP_MSG_NONE: between messages: a FIRST or ONLY packet comes next
 * @PIB_RESP_MSG_SEND: in a SEND: its MIDDLE or LAST packets come next
 * @PIB_RESP_MSG_WRITE: in an RDMA WRITE: its MIDDLE or LAST packets come
 *	next
 *
 * A packet out of that sequence is NAK'd as an invalid request (RC) or
 * dropped (UC, which also drops the message in progress when a PSN goes
 * missing, IBA 9.8.3).
 */
enum pib_resp_msg_state {
	PIB_RESP_MSG_NONE,
	PIB_RESP_MSG_SEND,
	PIB_RESP_MSG_WRITE,
};

/**
 * struct pib_resp - RC/UC/UD responder state
 * @epsn: expected PSN
 * @msn: message sequence number
 * @state: RC: the PSN state (pib_resp_set_state())
 * @msg_state: the message in progress (pib_resp_set_msg_state())
 * @offset: bytes of it received
 * @wqe: the receive WQE it fills (a checked copy); @have_wqe says if valid
 * @have_wqe: @wqe holds a receive WQE taken from the RQ or SRQ
 * @va: WRITE: next remote address
 * @rkey: WRITE: its R_Key
 * @remaining: WRITE: bytes the RETH announced, not yet received
 * @res: READ/atomic resources, @num_res of them
 * @num_res: max_dest_rd_atomic (at least 1)
 * @res_head: next resource to use
 * @res_tail: oldest resource not answered in full
 * @ack_due: an ACK or NAK waits behind the READ and atomic responses
 *	owed before it (@ack_psn, @ack_syn)
 * @ack_psn: its PSN
 * @ack_syn: its AETH syndrome
 * @reads_due: responses wait to be sent; the receive path runs the QP
 *	once it has dropped the lock (pib_resp_rcv())
 * @xsrq: XRC TGT QPs, while a request is handled (under RCU): the XRC SRQ
 *	its XRCETH names in the QP's domain, or NULL if none
 * @xsrqn: the number the XRCETH gave
 * @wqe_srqn: XRC TGT QPs: the XRC SRQ @wqe came from
 */
struct pib_resp {
	u32 epsn;
	u32 msn;
	enum pib_resp_state state;
	enum pib_resp_msg_state msg_state;
	u32 offset;
	struct pib_recv_wqe *wqe;
	bool have_wqe;
	u64 va;
	u32 rkey;
	u32 remaining;
	struct pib_rd_res *res;
	u32 num_res;
	u32 res_head;
	u32 res_tail;
	bool ack_due;
	u32 ack_psn;
	u8 ack_syn;
	bool reads_due;
	struct pib_srq *xsrq;
	u32 xsrqn;
	u32 wqe_srqn;
};

/**
 * struct pib_qp - a queue pair
 * @ibqp: the RDMA core's QP; must come first
 * @lock: protects everything below but @work
 * @state: IBA QP state
 * @user: created by a process (rings mapped)
 * @sig_all: every send completes, signaled or not
 * @pkey_index: P_Key table index
 * @qkey: Q_Key
 * @dest_qpn: RC/UC: the remote QP
 * @av: RC/UC: the remote port
 * @alt_av: RC/UC: the remote port by the alternate path (IB_QP_ALT_PATH)
 * @alt_pkey_index: the alternate path's P_Key index
 * @alt_timeout: its local ACK timeout
 * @has_alt: an alternate path was loaded
 * @mig_state: path migration state (enum ib_mig_state): MIGRATED until
 *	the consumer arms an alternate path (IBA 17.2.8)
 * @mtu: RC/UC: path MTU in bytes; UD: the port's
 * @access: IB_ACCESS_REMOTE_* the responder allows
 * @timeout: local ACK timeout (IBA encoding)
 * @retry_cnt: retries on timeout
 * @rnr_retry: retries on RNR NAK
 * @min_rnr_timer: RNR NAK timer this responder asks for
 * @max_rd_atomic: READs/atomics this requester may have outstanding
 * @sq_psn: the SQ PSN modify_qp set (for query_qp)
 * @sq: send queue
 * @rq: receive queue (when @srq is NULL)
 * @rq_max_sge: SGEs a receive WQE may have
 * @srq: the shared receive queue, if any
 * @xrcd: XRC TGT QPs: their XRC domain, whose SRQs their requests name
 * @req: requester state
 * @resp: responder state
 * @mcast: multicast groups attached (list of struct pib_mcast_attach)
 * @work: sends packets: requests, READ responses, retransmissions
 * @injecting: it was given packet faults to inject (pib_inject.c)
 * @inject: packets to fault, by enum pib_inject_pkt
 * @inject_delay_ms: how long PIB_INJ_DELAY holds a packet back
 * @inject_nak: the AETH syndrome PIB_INJ_NAK answers with
 * @owner: who created it (debugfs)
 * @sq_wr: the send WQEs it asked for at create_qp
 * @rq_wr: the receive WQEs it asked for at create_qp (0 with an SRQ)
 * @strict_seen: by enum pib_strict_check, mistakes reported already
 * @strict_unsignaled: unsignaled sends fetched since the last signaled one
 * @run_flags: PIB_QP_RUNNING while a task sends for the QP (pib_qp_run()),
 *	PIB_QP_AGAIN when it must go round once more
 */
struct pib_qp {
	struct ib_qp ibqp;
	spinlock_t lock;	/* everything below but @work */
	enum ib_qp_state state;
	bool user;
	bool sig_all;
	u16 pkey_index;
	u32 qkey;
	u32 dest_qpn;
	struct pib_av av;
	struct pib_av alt_av;
	u16 alt_pkey_index;
	u8 alt_timeout;
	bool has_alt;
	u8 mig_state;
	u32 mtu;
	int access;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u32 sq_psn;
	struct pib_sq sq;
	struct pib_ring rq;
	u32 rq_max_sge;
	struct pib_srq *srq;
	struct ib_xrcd *xrcd;
	struct pib_req req;
	struct pib_resp resp;
	struct list_head mcast;
	struct work_struct work;
	unsigned long run_flags;
	bool injecting;
	struct pib_qp_fault inject[PIB_INJ_NUM_PKT];
	u32 inject_delay_ms;
	u8 inject_nak;
	struct pib_owner owner;
	u32 sq_wr;
	u32 rq_wr;
	unsigned long strict_seen;
	u32 strict_unsignaled;
};

/* pib_qp.run_flags */
#define PIB_QP_RUNNING	0
#define PIB_QP_AGAIN	1

/**
 * pib_req_set_state() - move an RC requester to another state
 * @qp: the QP, its lock held
 * @state: the new state
 *
 * Every change of the requester's state goes through here.
 */
static inline void pib_req_set_state(struct pib_qp *qp,
				     enum pib_req_state state)
{
	qp->req.state = state;
}

/**
 * pib_comp_set_state() - move an RC completer to another state
 * @qp: the QP, its lock held
 * @state: the new state
 *
 * Every change of the completer's state goes through here.
 */
static inline void pib_comp_set_state(struct pib_qp *qp,
				      enum pib_comp_state state)
{
	qp->req.comp_state = state;
}

/**
 * pib_resp_set_state() - move an RC responder to another PSN state
 * @qp: the QP, its lock held
 * @state: the new state
 *
 * Every change of the responder's PSN state goes through here.
 */
static inline void pib_resp_set_state(struct pib_qp *qp,
				      enum pib_resp_state state)
{
	qp->resp.state = state;
}

/**
 * pib_resp_set_msg_state() - a responder starts or ends a message
 * @qp: the QP, its lock held
 * @state: the new state
 *
 * Every change of the responder's message state goes through here.
 */
static inline void pib_resp_set_msg_state(struct pib_qp *qp,
					  enum pib_resp_msg_state state)
{
	qp->resp.msg_state = state;
}

/**
 * pib_name_of() - an entry of a table of names, checked
 * @names: the table, indexed by an enum's values
 * @n: its size
 * @i: the value
 *
 * Return: the name, or "?" for a value the table does not name.
 */
static inline const char *pib_name_of(const char * const *names, size_t n,
				      unsigned int i)
{
	return i < n && names[i] ? names[i] : "?";
}

static inline struct pib_dev *to_pib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct pib_dev, ibdev);
}

static inline struct pib_cq *to_pib_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct pib_cq, ibcq);
}

static inline struct pib_qp *to_pib_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct pib_qp, ibqp);
}

static inline struct pib_srq *to_pib_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct pib_srq, ibsrq);
}

/* An XRC INI (sending) or TGT (receiving) QP. */
static inline bool pib_qp_xrc(const struct pib_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_XRC_INI ||
	       qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

/* A QP of RC's reliable transport: RC, and XRC's two halves. */
static inline bool pib_qp_rc(const struct pib_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || pib_qp_xrc(qp);
}

/* A connected QP (RC, UC, XRC): one remote port, one remote QP. */
static inline bool pib_qp_connected(const struct pib_qp *qp)
{
	return pib_qp_rc(qp) || qp->ibqp.qp_type == IB_QPT_UC;
}

/* A QP with a receive queue of its own: none with an SRQ, or of XRC. */
static inline bool pib_qp_has_rq(const struct pib_qp *qp)
{
	return !qp->srq && !pib_qp_xrc(qp);
}

/* The BTH opcode of RC's operation @op in the QP's transport. */
static inline u8 pib_qp_opcode(const struct pib_qp *qp, u8 op)
{
	return pib_qp_xrc(qp) ? PIB_OPCODE_XRC | op : op;
}

/*
 * Where the READ request whose responses include byte @off of a READ of
 * @len bytes ends: READs go as requests of PIB_READ_CHUNK packets, aligned
 * to the READ's start, also when one is asked again from its middle.
 */
static inline u32 pib_read_chunk_end(u32 mtu, u32 len, u32 off)
{
	u32 chunk = PIB_READ_CHUNK * mtu;

	return min_t(u64, len, ((u64)off / chunk + 1) * chunk);
}

/**
 * pib_refuse() - refuse a verb, saying why when dynamic debug asks
 * @ibdev: the device
 * @err: the negative errno the verb returns
 * @fmt: why: the verb's name, then what it was given and what pib allows
 * @...: the format's arguments
 *
 * `echo 'module pib +p' > /sys/kernel/debug/dynamic_debug/control` puts
 * a line in the kernel log for each refusal, with the calling process.
 *
 * Return: @err.
 */
#define pib_refuse(ibdev, err, fmt, ...)				\
	({								\
		int __pib_err = (err);					\
									\
		ibdev_dbg(ibdev, "%s[%d]: " fmt ": %pe\n", current->comm,	\
			  task_pid_nr(current), ##__VA_ARGS__,		\
			  ERR_PTR(__pib_err));				\
		__pib_err;						\
	})

/**
 * pib_res_get() - count one more object against a device limit
 * @ibdev: the device
 * @count: the device's counter for this kind of object
 * @max: the limit advertised in query_device
 * @what: the objects' name, as in "the device has its 4096 QPs"
 *
 * Return: 0, or -ENOMEM with @count unchanged if the limit is reached.
 */
static inline int pib_res_get(struct ib_device *ibdev, atomic_t *count,
			      int max, const char *what)
{
	if (atomic_inc_return(count) > max) {
		atomic_dec(count);
		return pib_refuse(ibdev, -ENOMEM, "the device has its %d %s",
				  max, what);
	}
	return 0;
}

/* pib_dev.c: device lifetime and port state */
int pib_dev_init(void);
void pib_dev_exit(void);
int pib_dev_add(const char *name, struct net_device *ndev);
void pib_dev_remove_all(void);
void pib_dev_netdev_event(struct net_device *ndev, unsigned long event);
void pib_dev_dealloc(struct ib_device *ibdev);
/* pib_dev.tx_flags */
#define PIB_TX_BUSY	0
void pib_dev_tx_kick(struct pib_dev *dev);

/* pib_net.c: the per-netdev switch and its UDP socket */
extern unsigned short pib_udp_port;
struct pib_switch *pib_switch_get(struct net_device *ndev);
void pib_switch_put(struct pib_switch *sw);
void pib_net_init(void);
void pib_net_exit(void);
void pib_switch_xmit(struct pib_switch *sw, const struct pib_ip *daddr,
		     int slot, const u8 *pkt, unsigned int len, u8 ttl,
		     gfp_t gfp);
void pib_switch_xmit_skb(struct pib_switch *sw, const struct pib_ip *daddr,
			 int slot, struct sk_buff *skb, u8 ttl);

/* The slot of a destination that is no peer's (hellos): no cached route. */
#define PIB_SLOT_NONE		(-1)

/*
 * The hop limit. An LRH has no TTL, so a datagram's IP TTL is its hop
 * budget: a switch sends a packet it took in from the LAN out to the LAN
 * again with the TTL it came with less one, and not at all once that is
 * 0, so a forwarding loop (a broken or forged LFT or MFT) dies after at
 * most the route's TTL (64 by default) crossings. Packets built on this
 * host leave with the route's TTL (PIB_TTL_HERE). Directed-route SMPs are
 * exempt: their hop count bounds their path (IBA 14.2.2).
 */
#define PIB_TTL_HERE		255

/**
 * pib_tx_headroom() - room for the link, IP and UDP headers
 * @ndev: the netdev that carries the packet
 *
 * Packets are built behind this much headroom, so that they can leave
 * in their own skb.
 *
 * Return: bytes of headroom
 */
static inline unsigned int pib_tx_headroom(const struct net_device *ndev)
{
	return LL_RESERVED_SPACE(ndev) + sizeof(struct ipv6hdr) +
	       sizeof(struct udphdr);
}

/* pib_switch.c: ports, forwarding and the switch's SMA */
void pib_switch_attach(struct pib_switch *sw, struct pib_dev *dev);
void pib_switch_detach(struct pib_switch *sw, struct pib_dev *dev);
void pib_switch_unrouted(struct pib_switch *sw, const u8 *buf, u32 len);
struct dentry *pib_debugfs_root(void);

/* pib_inject.c: error injection through debugfs */
void pib_inject_dev_init(struct pib_dev *dev);
void pib_inject_dev_add(struct pib_dev *dev);
void pib_inject_dev_release(struct pib_dev *dev);
int pib_inject_verb_fail(struct pib_dev *dev, enum pib_inject_verb verb);
void pib_inject_tx(struct pib_qp *qp, struct sk_buff_head *q);
bool pib_inject_nak(struct pib_qp *qp, u8 opcode, u8 *syn);

/**
 * struct pib_skb_cb - what pib notes in an skb->cb while it holds a packet
 * @check_crc: the switch it enters checks its CRCs (an injected
 *	corruption: packets from a device of this host are not checked)
 * @due: PIB_INJ_DELAY: jiffies when it may leave
 */
struct pib_skb_cb {
	bool check_crc;
	unsigned long due;
};

static inline struct pib_skb_cb *pib_skb_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct pib_skb_cb) > sizeof(skb->cb));
	return (struct pib_skb_cb *)skb->cb;
}

/* Apply the QP's injected packet faults, if it has any, to @q. */
bool pib_inject_sl_lost(struct pib_dev *dev, const u8 *pkt);

static inline void pib_qp_inject_tx(struct pib_qp *qp, struct sk_buff_head *q)
{
	if (unlikely(READ_ONCE(qp->injecting)))
		pib_inject_tx(qp, q);
}

/* pib_strict.c: strict mode */
static inline enum pib_strict_mode pib_strict(struct pib_dev *dev)
{
	return READ_ONCE(dev->strict);
}

void pib_strict_dev_add(struct pib_dev *dev);
__printf(3, 4)
void pib_strict_report(struct pib_qp *qp, enum pib_strict_check check,
		       const char *fmt, ...);
void pib_strict_cq_feed(struct pib_qp *qp, bool add);
int pib_strict_create_qp(struct pib_dev *dev,
			 const struct ib_qp_init_attr *init);
void pib_strict_wqe(struct pib_qp *qp, const struct pib_send_wqe *wqe);
bool pib_strict_holds_sq(struct pib_qp *qp);
void pib_strict_recv_len(struct pib_qp *qp, u64 room, bool ud, u32 len);
void pib_strict_mr_busy(struct pib_dev *dev, struct pib_mr *mr);
void pib_strict_rkey(struct pib_qp *qp, u32 rkey);
bool pib_strict_rd_atomic(struct pib_qp *qp, bool dup);

/* pib_capture.c: packet capture in pcapng, through debugfs */
void pib_capture_dev_add(struct pib_dev *dev, struct dentry *parent);
void pib_capture_dev_remove(struct pib_dev *dev);
void pib_switch_input(struct pib_switch *sw, unsigned int in_port, u8 *buf,
		      unsigned int len, const struct pib_pkt *pkt, u8 ttl);
void pib_switch_send(struct pib_switch *sw, unsigned int in_port,
		     struct sk_buff_head *list);
bool pib_switch_port_up(struct pib_switch *sw, unsigned int port,
			struct pib_dev **dev_out);
void pib_switch_track_links(struct pib_switch *sw);
void pib_switch_bounce(struct pib_switch *sw, unsigned int port);
void pib_switch_speak(struct pib_switch *sw);
void pib_switch_trap_work(struct work_struct *work);
void pib_switch_trap_repressed(struct pib_switch *sw, const struct ib_smp *smp);

/* pib_switch_sma.c: the switch's SMA */
int pib_switch_sma_request(struct pib_switch *sw, unsigned int in_port,
			   struct ib_smp *smp);

static inline unsigned int pib_sw_hca_port(struct pib_dev *dev)
{
	return dev->index + 1;
}

/* pib_queue.c: rings shared with the provider */
int pib_ring_init(struct pib_ring *ring, u32 num, u32 stride,
		  struct ib_udata *udata);
void pib_ring_describe(const struct pib_ring *ring, struct pib_ring_info *info);
void pib_ring_free(struct pib_ring *ring);
void pib_mmap_free(struct rdma_user_mmap_entry *rdma);
int pib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
u32 pib_ring_avail(struct pib_ring *ring, u32 from);
u32 pib_ring_room(struct pib_ring *ring);
void pib_ring_consume_to(struct pib_ring *ring, u32 cons);
void pib_ring_consume(struct pib_ring *ring);
void pib_ring_produce(struct pib_ring *ring);

/* pib_recv.c: packets in and out of the port */
void pib_hca_receive(struct pib_dev *dev, const u8 *buf, unsigned int len,
		     const struct pib_pkt *pkt);
void pib_drop(struct pib_dev *dev, const u8 *buf, u32 len,
	      enum pib_drop_reason reason, int err);
bool pib_dev_queue(struct pib_dev *dev, struct sk_buff_head *q, bool resp);
void pib_dev_send(struct pib_dev *dev, struct sk_buff_head *q, bool resp);

/* pib_cq.c: completion queues */
int pib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
int pib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int pib_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
		  struct ib_udata *udata);
int pib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int pib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void pib_cq_push(struct pib_cq *cq, const struct pib_cqe *cqe,
		 struct pib_qp *qp, bool solicited);
void pib_cq_notify(struct pib_cq *cq);
void pib_cq_clean(struct pib_cq *cq, struct pib_qp *qp);
void pib_qp_sqd_check(struct pib_qp *qp);

/* pib_mr.c: memory regions and every access to registered memory */
struct ib_mr *pib_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_dmah;
struct ib_mr *pib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt_addr, int access, struct ib_dmah *dmah,
			      struct ib_udata *udata);
struct ib_mr *pib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int pib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
struct ib_mr *pib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 virt_addr, int access,
				struct ib_pd *ibpd, struct ib_udata *udata);
int pib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct pib_mr *pib_mr_get(struct pib_dev *dev, struct ib_pd *pd, u32 key);
bool pib_mr_key_invalidated(struct pib_dev *dev, u32 key);
void pib_mr_put(struct pib_mr *mr);
struct pib_mr *pib_mr_alloc(struct pib_dev *dev, struct ib_pd *ibpd,
			    enum pib_mr_type type, int access);
void pib_mr_unpublish(struct pib_dev *dev, struct pib_mr *mr);
void pib_mr_release(struct pib_dev *dev, struct pib_mr *mr);
void pib_mr_free(struct pib_dev *dev, struct pib_mr *mr);
void pib_mr_publish(struct pib_dev *dev, struct pib_mr *mr);
bool pib_mr_allows(struct pib_mr *mr, u64 va, u64 len, int access);
int pib_mr_check(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		 const struct pib_qp *qp, u64 va, u32 len, int access);
int pib_mr_check_key(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		     int access);
int pib_mr_copy(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		const struct pib_qp *qp, u64 va, void *buf, u32 len, int access,
		bool to_mr);
int pib_sge_copy(struct pib_dev *dev, struct ib_pd *pd,
		 const struct pib_sge *sge, u32 num_sge, u32 offset,
		 void *buf, u32 len, bool to_mem);
int pib_mr_atomic(struct pib_dev *dev, struct ib_pd *pd, u32 rkey,
		  const struct pib_qp *qp, u64 va, bool cmp_swap, u64 cmp_add,
		  u64 swap, u64 *orig);
int pib_mr_atomic_write(struct pib_dev *dev, struct ib_pd *pd, u32 rkey,
			const struct pib_qp *qp, u64 va, u64 val);
int pib_mr_invalidate(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		      const struct pib_qp *qp);
int pib_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key,
		    int access);

/* pib_odp.c: on-demand paging */
int pib_odp_reg(struct pib_dev *dev, struct pib_mr *mr, u64 start,
		u64 length, int access);
void pib_odp_release(struct pib_mr *mr);
int pib_odp_copy(struct pib_odp *odp, u64 off, void *buf, u32 len,
		 bool to_mr);
int pib_odp_check(struct pib_odp *odp, u64 off, u32 len);
int pib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		  u32 flags, struct ib_sge *sg_list, u32 num_sge,
		  struct uverbs_attr_bundle *attrs);

/* pib_mw.c: memory windows */
int pib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int pib_dealloc_mw(struct ib_mw *ibmw);
int pib_mw_bind(struct pib_qp *qp, const struct pib_send_wqe *wqe);
struct pib_mr *pib_mw_target(struct pib_mr *mw, const struct pib_qp *qp,
			     u64 *va, u64 len, int access);
int pib_mw_invalidate(struct pib_mr *mw, const struct pib_qp *qp);
void pib_mw_qp_gone(struct pib_dev *dev, const struct pib_qp *qp);

/* pib_main.c */
extern struct device *pib_root;

/* pib_qp.c: queue pairs */
int pib_qp_init(void);
void pib_qp_exit(void);
int pib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int pib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int pib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int pib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int pib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
int pib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int pib_recv_wr_put(struct pib_ring *ring, u32 max_sge,
		    const struct ib_recv_wr *wr);
void pib_qp_kick(struct pib_qp *qp);
void pib_qp_error(struct pib_qp *qp);
void pib_qp_migrate(struct pib_qp *qp);
const char *pib_req_state_name(enum pib_req_state state);
const char *pib_qp_state_name(enum ib_qp_state state);
const char *pib_qp_type_name(enum ib_qp_type type);
const char *pib_comp_state_name(enum pib_comp_state state);
const char *pib_resp_state_name(enum pib_resp_state state);
const char *pib_resp_msg_state_name(enum pib_resp_msg_state state);

/* pib_srq.c: shared receive queues, taking receive WQEs */
u32 pib_rwqe_stride(u32 max_sge);
bool pib_rq_take(struct pib_ring *ring, u32 max_sge, struct pib_recv_wqe *wqe);
bool pib_srq_take(struct pib_srq *srq, struct pib_recv_wqe *wqe);
struct pib_srq *pib_xrc_srq_find(struct pib_dev *dev, u32 srqn,
				 struct ib_xrcd *xrcd);
int pib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int pib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int pib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int pib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int pib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/* pib_req.c: the requester */
struct pib_send_wqe *pib_sq_wqe(struct pib_qp *qp, u32 idx);
bool pib_wqe_has_response(const struct pib_send_wqe *wqe);
u8 pib_wqe_wc_opcode(const struct pib_send_wqe *wqe);
int pib_wr_fill_op(struct pib_qp *qp, const struct ib_send_wr *wr,
		   struct pib_send_wqe *wqe);
int pib_reg_wr_to_wqe(struct pib_qp *qp, const struct ib_reg_wr *wr,
		      struct pib_send_wqe *wqe);
struct sk_buff *pib_pkt_new(struct pib_qp *qp, const struct pib_av *av,
			    struct pib_bth *bth, u32 ext_len, u32 pay_len,
			    u8 **ext);
void pib_pkt_put_grh(struct pib_dev *dev, const struct pib_av *av, u8 *pkt,
		     u32 body);
void pib_pkt_finish(struct sk_buff *skb);
void pib_qp_run(struct pib_qp *qp);
void pib_qp_work(struct work_struct *work);

/* pib_comp.c: the completer, completions, the retransmit timer */
void pib_sq_complete(struct pib_qp *qp, enum ib_wc_status status);
void pib_sq_complete_error(struct pib_qp *qp, enum ib_wc_status status);
void pib_comp_advance(struct pib_qp *qp);
void pib_rq_cqe(struct pib_qp *qp, const struct pib_cqe *cqe, bool solicited);
void pib_qp_flush(struct pib_qp *qp);
void pib_qp_notify_cqs(struct pib_qp *qp);
void pib_req_arm_timer(struct pib_qp *qp);
void pib_req_odp_wait(struct pib_qp *qp, bool rewind);
void pib_req_timer(struct timer_list *t);
void pib_comp_rcv(struct pib_qp *qp, const struct pib_pkt *pkt, const u8 *buf);

/* pib_resp.c: the responder */
void pib_resp_rcv(struct pib_qp *qp, const struct pib_pkt *pkt, const u8 *buf);
bool pib_resp_send_due(struct pib_qp *qp, struct sk_buff_head *q,
		       int budget);
void pib_resp_ud(struct pib_qp *qp, const struct pib_pkt *pkt, const u8 *buf,
		 u8 dlid_path_bits, u16 pkey_index);

/* pib_mcast.c: multicast groups */
int pib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int pib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void pib_mcast_detach_all(struct pib_qp *qp);
void pib_mcast_deliver(struct pib_dev *dev, const struct pib_pkt *pkt,
		       const u8 *buf);

/* pib_verbs.c: verbs entry points */
void pib_av_from_ah(const struct rdma_ah_attr *ah, struct pib_av *av);

/* pib_sma.c, pib_pma.c: management agents behind process_mad */
int pib_process_mad(struct ib_device *ibdev, int flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index);
int pib_pma(struct pib_dev *dev, const struct ib_mad *in, struct ib_mad *out);
void pib_port_set_state(struct pib_dev *dev, enum ib_port_state state,
			u32 *events);
void pib_dispatch_events(struct pib_dev *dev, u32 events);
__be64 pib_port_guid(struct pib_dev *dev, u32 index);
void pib_port_gid(struct pib_dev *dev, u32 index, union ib_gid *gid);
bool pib_port_owns_gid(struct pib_dev *dev, const u8 *raw);
void pib_port_link_update(struct pib_dev *dev, bool notify);

/* pib_restrack.c: driver details for `rdma resource show` */
int pib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int pib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int pib_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
struct seq_file;
void pib_res_qp_show(struct seq_file *m, struct pib_qp *qp);
void pib_res_cq_show(struct seq_file *m, struct pib_cq *cq);
void pib_res_mr_show(struct seq_file *m, struct pib_mr *mr);

/* pib_debugfs.c: the objects' and the switch's tables in debugfs */
void pib_owner_set(struct pib_owner *o, bool user, const char *kern_name);
void pib_obj_add(struct pib_dev *dev, enum pib_obj type,
		 struct pib_obj_entry *e, bool user, const char *kern_name);
void pib_obj_del(struct pib_dev *dev, struct pib_obj_entry *e);
void pib_debugfs_dev_add(struct pib_dev *dev);
void pib_mcast_show(struct seq_file *m, struct pib_dev *dev);
void pib_switch_show_lft(struct seq_file *m, struct pib_switch *sw);
void pib_switch_show_mft(struct seq_file *m, struct pib_switch *sw);

/* pib_verbs.c: verbs entry points */
extern const struct ib_device_ops pib_dev_ops;

#endif /* PIB_H */
