/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * objects shared by the files of the pib driver.
 */
#ifndef PIB_H
#define PIB_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/xarray.h>
#include <linux/crc32.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

/* pib_hdr.h computes the ICRC with the kernel's optimized CRC-32. */
#define PIB_CRC32_LE crc32_le
#include "pib_hdr.h"

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
#define PIB_GID_TABLE_LEN	1
#define PIB_DEFAULT_PKEY	0xffff
#define PIB_GID_PREFIX		0xfe80000000000000ULL
#define PIB_MAX_PD		0x10000
#define PIB_MAX_CQ		0x10000
#define PIB_MAX_CQE		0x10000
#define PIB_MAX_MR		0x10000
#define PIB_MAX_AH		0x10000
#define PIB_MAX_QP_WR		0x4000
#define PIB_MAX_SGE		32
/* Only the special QPs exist so far: QP0 (SMI) and QP1 (GSI). */
#define PIB_NUM_SPECIAL_QPS	2
#define PIB_PSN_MASK		0xffffff
/* An MR key is its index in the device's MR table, shifted past a key byte. */
#define PIB_MR_KEY_SHIFT	8
#define PIB_SMP_CLASS_VERSION	1
/* PortInfo.RespTimeValue: 4.096 us * 2^8, about 1 ms. */
#define PIB_SMA_RESP_TIME	8
/* PortInfo.CapabilityMask bits that always hold for a pib port. */
#define PIB_PORT_CAPS		(IB_PORT_SYS_IMAGE_GUID_SUP | IB_PORT_CLIENT_REG_SUP)
/* No IEEE OUI is assigned to pib; 0 says so in query_device. */
#define PIB_VENDOR_ID		0

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
 * @xmit_discards: packets the port had to drop instead of sending
 * @rcv_errors: packets received and dropped as malformed
 * @link_downed: times the link went down
 */
struct pib_counters {
	atomic64_t xmit_packets;
	atomic64_t xmit_words;
	atomic64_t rcv_packets;
	atomic64_t rcv_words;
	atomic64_t xmit_discards;
	atomic64_t rcv_errors;
	atomic64_t link_downed;
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
 * @sl2vl: SL to VL mapping, one VL per SL
 * @vlarb: VL arbitration tables, as the SM set them
 * @counters: traffic and error counters
 */
struct pib_port {
	spinlock_t lock;
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
	u8 sl2vl[16];
	u8 vlarb[PIB_VLARB_BLOCKS][PIB_SMP_DATA_LEN];
	struct pib_counters counters;
};

/* Most peer hosts one switch keeps track of. */
#define PIB_MAX_PEERS		64
/*
 * Switch ports: 0 is the switch itself, 1..64 the pib devices on the netdev
 * (device index + 1), 65..128 the peers (peer slot + 65).
 */
#define PIB_SW_NUM_PORTS	(PIB_MAX_DEVS_PER_NETDEV + PIB_MAX_PEERS)
#define PIB_SW_FIRST_PEER_PORT	(PIB_MAX_DEVS_PER_NETDEV + 1)
/* SwitchInfo.LinearFDBCap: every unicast LID. */
#define PIB_SW_LFT_CAP		0xc000
#define PIB_LID_MCAST		0xc000
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

/**
 * struct pib_sw_port - a switch port's state, under the switch's lock
 * @state: logical state (enum pib_port_state) the SM drives
 * @mtu: NeighborMTU the SM set, 0 if none
 * @up: physical link, as last seen (pib_switch_track_links)
 */
struct pib_sw_port {
	u8 state;
	u8 mtu;
	bool up;
};

/**
 * struct pib_peer - another host's switch, heard on the LAN
 * @guid: its switch GUID
 * @addr: the IPv4 address its hellos come from
 * @last_heard: jiffies of its last hello
 * @up: heard within PIB_PEER_TIMEOUT_MS
 */
struct pib_peer {
	u64 guid;
	__be32 addr;
	unsigned long last_heard;
	bool up;
};

/**
 * struct pib_switch - the virtual switch of one netdev
 * @list: entry on pib_switches
 * @ndev: the netdev; a reference is held
 * @users: pib devices attached (under pib_switches_lock)
 * @sock: UDP socket on pib's port, bound to @ndev
 * @guid: switch node GUID
 * @hello_work: periodic hello and peer aging
 * @debugfs: /sys/kernel/debug/pib/<netdev>
 * @lock: protects the peer table, @ports and everything the SM sets
 * @num_peers: entries used in @peers
 * @peers_refused: hellos from new peers with the table full
 * @peers: other hosts' switches
 * @hellos_tx: hellos sent
 * @hellos_rx: hellos received
 * @bad_hellos: raw packets that were not hellos
 * @ports: port states, port 0 the switch's own
 * @lid: port 0's LID
 * @lmc: port 0's LMC
 * @sm_lid: the master SM's LID
 * @sm_sl: the master SM's SL
 * @subnet_prefix: GID prefix
 * @subnet_timeout: PortInfo.SubnetTimeOut
 * @pkeys: port 0's P_Key table
 * @lft: LinearForwardingTable, PIB_SW_LFT_CAP entries
 * @lft_top: SwitchInfo.LinearFDBTop
 * @mft: MulticastForwardingTable, PIB_SW_MFT_CAP port masks
 * @mft_top: SwitchInfo.MulticastFDBTop
 * @trap_work: sends Trap 128 until the SM represses it
 * @trap_pending: a port changed and the SM has not repressed the trap
 * @trap_tries: times the pending trap was sent
 * @trap_tid: transaction ID of the pending trap
 * @default_port: SwitchInfo.DefaultPort
 * @life_time: SwitchInfo.LifeTimeValue
 * @port_state_change: SwitchInfo.PortStateChange
 * @hca: the pib devices on the netdev, by index (RCU)
 * @unrouted: IBA packets dropped for want of a route
 * @dr_discards: directed-route SMPs discarded (bad path or hop pointer)
 * @traps_tx: Trap 128 SMPs sent
 * @drops: received datagrams dropped, by enum pib_pkt_err
 */
struct pib_switch {
	struct list_head list;
	struct net_device *ndev;
	unsigned int users;
	struct socket *sock;
	u64 guid;
	struct delayed_work hello_work;
	struct dentry *debugfs;
	spinlock_t lock;
	unsigned int num_peers;
	unsigned int peers_refused;
	struct pib_peer peers[PIB_MAX_PEERS];
	struct pib_sw_port ports[PIB_SW_NUM_PORTS + 1];
	u16 lid;
	u8 lmc;
	u16 sm_lid;
	u8 sm_sl;
	u64 subnet_prefix;
	u8 subnet_timeout;
	u16 pkeys[PIB_PKEY_TABLE_LEN];
	u8 *lft;
	u16 lft_top;
	u16 (*mft)[PIB_MFT_POSITIONS];
	u16 mft_top;
	struct delayed_work trap_work;
	bool trap_pending;
	u8 trap_tries;
	u64 trap_tid;
	u8 default_port;
	u8 life_time;
	bool port_state_change;
	atomic64_t hellos_tx;
	atomic64_t hellos_rx;
	atomic64_t bad_hellos;
	struct pib_dev __rcu *hca[PIB_MAX_DEVS_PER_NETDEV];
	atomic64_t unrouted;
	atomic64_t dr_discards;
	atomic64_t traps_tx;
	atomic64_t drops[PIB_PKT_NUM_ERRS];
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
 * @special_qp: QP0 and QP1, once created
 * @mrs: memory regions by key index
 * @txq: packets the port sends, waiting for @tx_work
 * @tx_work: hands @txq to the switch, in process context
 * @pd_count: protection domains allocated
 * @cq_count: completion queues allocated
 * @mr_count: memory regions allocated
 * @ah_count: address handles allocated
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
	struct pib_qp __rcu *special_qp[PIB_NUM_SPECIAL_QPS];
	struct xarray mrs;
	struct sk_buff_head txq;
	struct work_struct tx_work;
	atomic_t pd_count;
	atomic_t cq_count;
	atomic_t mr_count;
	atomic_t ah_count;
};

/**
 * struct pib_pd - a protection domain
 * @ibpd: the RDMA core's PD; must come first
 */
struct pib_pd {
	struct ib_pd ibpd;
};

/**
 * struct pib_ucontext - a user verbs context
 * @ibuc: the RDMA core's context; must come first
 */
struct pib_ucontext {
	struct ib_ucontext ibuc;
};

/**
 * struct pib_ah - an address handle
 * @ibah: the RDMA core's AH; must come first
 * @attr: the destination it was created for
 */
struct pib_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;
};

/**
 * struct pib_mr - a memory region
 * @ibmr: the RDMA core's MR
 * @access: IB_ACCESS_* flags
 */
struct pib_mr {
	struct ib_mr ibmr;
	int access;
};

/* Notification state of a CQ: what the consumer armed it for. */
enum pib_cq_notify {
	PIB_CQ_DISARMED,
	PIB_CQ_NEXT_COMP,
	PIB_CQ_NEXT_SOLICITED,
};

/**
 * struct pib_cq - a completion queue
 * @ibcq: the RDMA core's CQ; must come first
 * @lock: protects the ring and @notify
 * @wc: ring of @size completions
 * @size: ring slots (the CQ's cqe)
 * @head: slot of the oldest completion
 * @count: completions in the ring
 * @notify: armed state
 */
struct pib_cq {
	struct ib_cq ibcq;
	spinlock_t lock;
	struct ib_wc *wc;
	u32 size;
	u32 head;
	u32 count;
	enum pib_cq_notify notify;
};

/**
 * struct pib_rwqe - a posted receive
 * @wr_id: the consumer's id
 * @num_sge: entries in @sge
 * @sge: where the message goes
 */
struct pib_rwqe {
	u64 wr_id;
	u32 num_sge;
	struct ib_sge sge[];
};

/**
 * struct pib_rq - a receive queue: a ring of @size WQEs of @stride bytes
 * @buf: the ring
 * @stride: bytes per WQE
 * @size: WQE slots
 * @head: slot of the oldest WQE
 * @count: WQEs posted and not consumed
 */
struct pib_rq {
	u8 *buf;
	size_t stride;
	u32 size;
	u32 head;
	u32 count;
};

/**
 * struct pib_qp - a queue pair
 * @ibqp: the RDMA core's QP; must come first
 * @lock: protects @state, the attributes and @rq
 * @state: IBA QP state
 * @sq_sig_type: whether every send completes or only signaled ones
 * @max_send_sge: scatter/gather entries per send WR
 * @max_recv_sge: scatter/gather entries per receive WR
 * @pkey_index: P_Key table index
 * @qkey: Q_Key
 * @sq_psn: next send PSN
 * @rq: the receive queue
 */
struct pib_qp {
	struct ib_qp ibqp;
	spinlock_t lock;
	enum ib_qp_state state;
	enum ib_sig_type sq_sig_type;
	u32 max_send_sge;
	u32 max_recv_sge;
	u16 pkey_index;
	u32 qkey;
	u32 sq_psn;
	struct pib_rq rq;
};

static inline struct pib_dev *to_pib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct pib_dev, ibdev);
}

static inline struct pib_rwqe *pib_rq_slot(struct pib_rq *rq, u32 i)
{
	return (struct pib_rwqe *)(rq->buf + (size_t)(i % rq->size) * rq->stride);
}

static inline struct pib_cq *to_pib_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct pib_cq, ibcq);
}

static inline struct pib_qp *to_pib_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct pib_qp, ibqp);
}

/**
 * pib_res_get() - count one more object against a device limit
 * @count: the device's counter for this kind of object
 * @max: the limit advertised in query_device
 *
 * Return: 0, or -ENOMEM with @count unchanged if the limit is reached.
 */
static inline int pib_res_get(atomic_t *count, int max)
{
	if (atomic_inc_return(count) > max) {
		atomic_dec(count);
		return -ENOMEM;
	}
	return 0;
}

/* pib_dev.c: device lifetime and port state */
int pib_dev_add(const char *name, struct net_device *ndev);
void pib_dev_remove_all(void);
void pib_dev_netdev_event(struct net_device *ndev, unsigned long event);
void pib_dev_dealloc(struct ib_device *ibdev);

/* pib_net.c: the per-netdev switch and its UDP socket */
extern unsigned short pib_udp_port;
struct pib_switch *pib_switch_get(struct net_device *ndev);
void pib_switch_put(struct pib_switch *sw);
void pib_net_init(void);
void pib_net_exit(void);
void pib_switch_xmit(struct pib_switch *sw, __be32 daddr, const u8 *pkt,
		     unsigned int len, gfp_t gfp);

/* pib_switch.c: ports, forwarding and the switch's SMA */
void pib_switch_attach(struct pib_switch *sw, struct pib_dev *dev);
void pib_switch_detach(struct pib_switch *sw, struct pib_dev *dev);
void pib_switch_input(struct pib_switch *sw, unsigned int in_port, u8 *buf,
		      unsigned int len);
bool pib_switch_port_up(struct pib_switch *sw, unsigned int port,
			struct pib_dev **dev_out);
void pib_switch_track_links(struct pib_switch *sw);
void pib_switch_trap_work(struct work_struct *work);
void pib_switch_trap_repressed(struct pib_switch *sw, const struct ib_smp *smp);

/* pib_switch_sma.c: the switch's SMA */
int pib_switch_sma_request(struct pib_switch *sw, unsigned int in_port,
			   struct ib_smp *smp);

static inline unsigned int pib_sw_hca_port(struct pib_dev *dev)
{
	return dev->index + 1;
}

/* pib_ud.c: UD datagrams of the special QPs */
unsigned int pib_ud_build(struct pib_qp *qp, const struct ib_send_wr *wr,
			  u8 *buf);
bool pib_ud_deliver(struct pib_qp *qp, const struct pib_pkt *pkt,
		    const u8 *buf, u8 dlid_path_bits);
void pib_hca_receive(struct pib_dev *dev, const u8 *buf, unsigned int len);

/* pib_cq.c: completion queues */
int pib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int pib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int pib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int pib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int pib_cq_push(struct pib_cq *cq, const struct ib_wc *wc, bool solicited);

/* pib_qp.c: queue pairs */
int pib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int pib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int pib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int pib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
int pib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);

/* pib_sma.c, pib_pma.c: management agents behind process_mad */
int pib_process_mad(struct ib_device *ibdev, int flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index);
int pib_pma(struct pib_dev *dev, const struct ib_mad *in, struct ib_mad *out);
void pib_port_set_state(struct pib_dev *dev, enum ib_port_state state,
			u32 *events);
void pib_dispatch_events(struct pib_dev *dev, u32 events);
void pib_port_link_update(struct pib_dev *dev, bool notify);

/* pib_verbs.c: verbs entry points */
extern const struct ib_device_ops pib_dev_ops;

#endif /* PIB_H */
