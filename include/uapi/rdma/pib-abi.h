/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * the interface between pib.ko and its rdma-core provider
 * (libpib), and pib's vendor-specific SMP attribute (at the end), which
 * pib-sm reads. All sides compile this header; it only uses
 * <linux/types.h>.
 *
 * The data path runs through rings that the kernel allocates and the
 * provider maps (mmap on the uverbs file at the offset the kernel returns):
 * a send queue and a receive queue per QP (or a shared receive queue), and
 * a completion queue per CQ. Kernel consumers' QPs and CQs use the same
 * rings in kernel memory.
 *
 *  - The provider posts work requests by writing WQEs and then the
 *    producer index of the SQ/RQ/SRQ; the kernel consumes them and
 *    advances the consumer index. A send needs a doorbell, the uverbs
 *    post_send command with no work requests; receives need none.
 *  - The kernel writes CQEs and then the CQ's producer index; the provider
 *    polls them and advances the consumer index, with no system call.
 *
 * Indices are free-running u32 counters; a ring holds a power of two of
 * entries, entry i at offset PIB_RING_HDR_SIZE + (i & (num - 1)) * stride.
 * The kernel never trusts what the provider wrote: it reads each index
 * once, checks that producer - consumer <= num, and copies a WQE to its
 * own memory before checking and using it.
 */
#ifndef PIB_ABI_USER_H
#define PIB_ABI_USER_H

#include <linux/types.h>

/*
 * Version of the driver-specific part of the uverbs commands. The provider
 * refuses a device whose /sys/class/infiniband_verbs/uverbsN/abi_version
 * differs.
 */
#define PIB_UVERBS_ABI_VERSION	2

/* Content of /sys/class/infiniband/<dev>/hca_type for every pib device. */
#define PIB_ABI_HCA_TYPE	"pib"

/**
 * struct pib_ring_hdr - the start of every ring, followed by its entries
 * @producer: entries produced; written by the producer only
 * @consumer: entries consumed; written by the consumer only
 * @reserved0: 0; pads @producer to a cache line of its own
 * @reserved1: 0; pads @consumer to a cache line of its own
 *
 * The two indices live in separate cache lines.
 */
struct pib_ring_hdr {
	__u32 producer;
	__u32 reserved0[15];
	__u32 consumer;
	__u32 reserved1[15];
};

#define PIB_RING_HDR_SIZE	128

/**
 * struct pib_ring_info - where the provider finds a ring
 * @offset: mmap offset on the uverbs file
 * @size: bytes to map (header and entries)
 * @num: entries, a power of two
 * @stride: bytes per entry
 * @reserved: 0
 */
struct pib_ring_info {
	__aligned_u64 offset;
	__u32 size;
	__u32 num;
	__u32 stride;
	__u32 reserved;
};

/**
 * struct pib_sge - a scatter/gather element, as in struct ibv_sge
 * @addr: virtual address in the MR of @lkey
 * @length: bytes
 * @lkey: local key of the MR
 */
struct pib_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/**
 * struct pib_av - a UD address vector, as the provider resolved an AH
 * @dgid: destination GID (with @is_global)
 * @flow_label: GRH flow label (with @is_global)
 * @dlid: destination LID
 * @sl: service level
 * @src_path_bits: source path bits under the port's LMC
 * @static_rate: enum ibv_rate
 * @is_global: a GRH goes with the packet
 * @sgid_index: source GID index (with @is_global)
 * @hop_limit: GRH hop limit (with @is_global)
 * @traffic_class: GRH traffic class (with @is_global)
 * @port_num: the port, 1
 * @pkey_index: P_Key index of a GSI send (kernel consumers); zero, and
 *	ignored, from the provider
 */
struct pib_av {
	__u8 dgid[16];
	__u32 flow_label;
	__u16 dlid;
	__u8 sl;
	__u8 src_path_bits;
	__u8 static_rate;
	__u8 is_global;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 port_num;
	__u16 pkey_index;
};

/* Send WQE opcodes: enum ibv_wr_opcode's values. */
enum pib_wr_opcode {
	PIB_WR_RDMA_WRITE		= 0,
	PIB_WR_RDMA_WRITE_WITH_IMM	= 1,
	PIB_WR_SEND			= 2,
	PIB_WR_SEND_WITH_IMM		= 3,
	PIB_WR_RDMA_READ		= 4,
	PIB_WR_ATOMIC_CMP_AND_SWP	= 5,
	PIB_WR_ATOMIC_FETCH_AND_ADD	= 6,
	PIB_WR_LOCAL_INV		= 7,
	PIB_WR_BIND_MW			= 8,
	PIB_WR_SEND_WITH_INV		= 9,
	PIB_WR_FLUSH			= 14,
	PIB_WR_ATOMIC_WRITE		= 15,
};

/*
 * A FLUSH WQE's placement type bits and selectivity level: enum
 * ibv_placement_type's and enum ibv_selectivity_level's values, which are
 * the FETH's (IBA 1.5).
 */
#define PIB_FLUSH_TYPE_GLOBAL		0x01
#define PIB_FLUSH_TYPE_PERSISTENT	0x02
#define PIB_FLUSH_LEVEL_RANGE		0
#define PIB_FLUSH_LEVEL_MR		1

/* A BIND_MW WQE's flags: the MW's type as the provider knows it. */
#define PIB_BIND_TYPE_1		0x01

/* A BIND_MW WQE's access flags: enum ibv_access_flags's values. */
#define PIB_ACCESS_LOCAL_WRITE		0x01
#define PIB_ACCESS_REMOTE_WRITE		0x02
#define PIB_ACCESS_REMOTE_READ		0x04
#define PIB_ACCESS_REMOTE_ATOMIC	0x08
#define PIB_ACCESS_ZERO_BASED		0x20

/* Send flags: enum ibv_send_flags's values. */
#define PIB_SEND_FENCE		0x01
#define PIB_SEND_SIGNALED	0x02
#define PIB_SEND_SOLICITED	0x04
#define PIB_SEND_INLINE		0x08

/**
 * struct pib_send_wqe - a send work request in the SQ
 * @wr_id: the consumer's id
 * @opcode: enum pib_wr_opcode
 * @send_flags: PIB_SEND_*
 * @num_sge: entries of @sge, or with PIB_SEND_INLINE bytes of @inline_data
 * @ex: immediate data (network order), or the rkey to invalidate
 * @xrc_srqn: XRC INI QPs: the XRC SRQ of the remote domain the request is
 *	for (ibv_wr_set_xrc_srqn(), wr.qp_type.xrc.remote_srqn)
 * @reserved: 0
 * @wr: the opcode's fields
 * @wr.rdma: RDMA WRITE and READ: remote address and key
 * @wr.atomic: atomics: remote address (8-byte aligned), key and operands
 * @wr.ud: UD: address vector, destination QP and Q_Key
 * @wr.reg: REG_MR of a kernel consumer (PIB_WR_REG_MR, which pib.ko
 *	refuses from a user's SQ): the MR, its new key and access flags
 * @wr.reg.mr: the kernel's struct ib_mr; never read from user memory
 * @wr.reg.reserved: sizes @wr.reg.mr the same on every architecture
 * @wr.reg.key: the MR's new key
 * @wr.reg.access: the MR's new access flags (enum ib_access_flags)
 * @wr.bind: BIND_MW: the window named by its current R_Key, bound to
 *	[addr, addr + length) of the MR of @wr.bind.lkey with the R_Key
 *	@wr.bind.rkey (the current one's index, a new key byte); length 0
 *	unbinds a type 1 window. A type 1 window is bound with
 *	ibv_bind_mw(), which posts this WQE with PIB_BIND_TYPE_1; a type 2
 *	with IBV_WR_BIND_MW.
 * @wr.bind.addr: the first byte of the MR the window shows
 * @wr.bind.length: its bytes
 * @wr.bind.mw_rkey: the window's R_Key now
 * @wr.bind.rkey: its R_Key once bound
 * @wr.bind.lkey: the MR's L_Key
 * @wr.bind.access: PIB_ACCESS_REMOTE_* and PIB_ACCESS_ZERO_BASED
 * @wr.bind.flags: PIB_BIND_*
 * @wr.flush: FLUSH (IBA 1.5): make [remote_addr, remote_addr + length)
 *	of the R_Key's MR (@wr.flush.level PIB_FLUSH_LEVEL_RANGE), or all of
 *	it (PIB_FLUSH_LEVEL_MR), reach the placements whose bits
 *	(PIB_FLUSH_TYPE_*) @wr.flush.type has
 * @wr.atomic_write: ATOMIC WRITE (IBA 1.5): @wr.atomic_write.data, 8 bytes
 *	in memory order, to remote_addr (8-byte aligned) at once
 *
 * The header is followed by the SGEs the message comes from (or goes to,
 * for READ and atomics), or with PIB_SEND_INLINE by the message itself.
 * The SQ's stride is sizeof(struct pib_send_wqe) plus the larger of
 * max_send_sge SGEs and max_inline_data bytes, rounded up to a power of two.
 */
struct pib_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 ex;
	__u32 xrc_srqn;
	__u32 reserved;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			struct pib_av av;
			__u32 remote_qpn;
			__u32 remote_qkey;
		} ud;
		struct {
			union {
				struct ib_mr *mr;
				__aligned_u64 reserved;
			};
			__u32 key;
			__u32 access;
		} reg;
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;
			__u32 mw_rkey;
			__u32 rkey;
			__u32 lkey;
			__u32 access;
			__u32 flags;
			__u32 reserved;
		} bind;
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 length;
			__u8 type;
			__u8 level;
			__u8 reserved[6];
		} flush;
		struct {
			__aligned_u64 remote_addr;
			__u8 data[8];
			__u32 rkey;
			__u32 reserved;
		} atomic_write;
	} wr;
};

/* What follows a send WQE's header: SGEs, or inline data. */
#define PIB_WQE_SGE(wqe)	((struct pib_sge *)((wqe) + 1))
#define PIB_WQE_INLINE(wqe)	((__u8 *)((wqe) + 1))

/**
 * struct pib_recv_wqe - a receive work request in an RQ or SRQ
 * @wr_id: the consumer's id
 * @num_sge: entries of @sge
 * @reserved: zero
 * @sge: where a message goes
 *
 * The stride is sizeof(struct pib_recv_wqe) plus max_recv_sge SGEs,
 * rounded up to a power of two.
 */
struct pib_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct pib_sge sge[];
};

/* CQE flags: enum ibv_wc_flags's values. */
#define PIB_WC_GRH		0x01
#define PIB_WC_WITH_IMM		0x02
#define PIB_WC_WITH_INV		0x08

/**
 * struct pib_cqe - a completion in a CQ
 * @wr_id: the work request's id
 * @status: enum ibv_wc_status
 * @opcode: enum ibv_wc_opcode
 * @vendor_err: zero, or a pib reason for an error status
 * @byte_len: bytes received (receives), or transferred (READ, atomics)
 * @ex: immediate data (network order) or the invalidated rkey
 * @qp_num: the QP the work request was on
 * @src_qp: the sender's QP (receives)
 * @wc_flags: PIB_WC_*
 * @pkey_index: P_Key index (receives on GSI QPs)
 * @slid: the sender's LID (receives)
 * @sl: the sender's service level (receives)
 * @dlid_path_bits: the DLID's path bits (receives)
 * @reserved: zero
 * @timestamp: in a CQ created with IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION,
 *	when the completion was written: nanoseconds since the epoch (the
 *	kernel's CLOCK_REALTIME, a 1 GHz hca_core_clock); else zero
 * @reserved2: zero
 */
struct pib_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 ex;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 reserved[2];
	__aligned_u64 timestamp;
	__u8 reserved2[8];
};

/**
 * struct pib_create_cq_resp - create_cq's and resize_cq's answer
 * @cq: the CQ's ring of struct pib_cqe
 */
struct pib_create_cq_resp {
	struct pib_ring_info cq;
};

/**
 * struct pib_create_qp_resp - create_qp's answer
 * @sq: the SQ's ring of struct pib_send_wqe
 * @rq: the RQ's ring of struct pib_recv_wqe; empty with an SRQ
 */
struct pib_create_qp_resp {
	struct pib_ring_info sq;
	struct pib_ring_info rq;
};

/**
 * struct pib_create_srq_resp - create_srq's answer
 * @rq: the SRQ's ring of struct pib_recv_wqe
 * @srq_num: an XRC SRQ's number, which XRC requests name (the RDMA
 *	core's answer has it too); 0 for other SRQs
 * @reserved: 0
 */
struct pib_create_srq_resp {
	struct pib_ring_info rq;
	__u32 srq_num;
	__u32 reserved;
};

/**
 * struct pib_modify_srq - modify_srq's request, after the core's
 * @ring_info: with IB_SRQ_MAX_WR, the user address of a struct
 *	pib_ring_info where the kernel describes the SRQ's new ring (the
 *	command has no response), before that ring takes the old one's place
 *	with the WQEs not taken yet at its start (its producer index says how
 *	many)
 */
struct pib_modify_srq {
	__aligned_u64 ring_info;
};

/*
 * pib's vendor-specific SMP attribute, which pib's virtual switches answer
 * and pib-sm asks.
 *
 * LinkedPorts (PIB_SMP_ATTR_LINKED_PORTS, Get only, AttributeModifier 0):
 * a bitmap, in the SMP's data, of the switch's ports whose PortState is
 * not Down; port p is bit (p % 8) of byte p / 8, and port 0 is always set.
 * A pib switch has a port for every device its netdev may carry and every
 * peer it may hear (NodeInfo.NumPorts 128), of which a few are linked: an
 * SM that reads their PortInfo only, not all 129, sweeps a pib subnet with
 * a tenth of the SMPs. NodeInfo.VendorID of every pib node is
 * PIB_SMP_VENDOR_ID (no IEEE OUI is assigned to pib, as to rdma_rxe); a
 * switch of another kind answers with an unsupported-attribute status.
 */
#define PIB_SMP_VENDOR_ID		0xffffff
#define PIB_SMP_ATTR_LINKED_PORTS	0xff10
#define PIB_SMP_LINKED_PORTS_LEN	32	/* bytes: ports 0..255 */

/* Say in LinkedPorts @map that port @port is linked. */
static inline void pib_smp_port_link(__u8 *map, unsigned int port)
{
	if (port < 8 * PIB_SMP_LINKED_PORTS_LEN)
		map[port / 8] |= 1 << (port % 8);
}

/* Is port @port linked, as LinkedPorts @map says? */
static inline int pib_smp_port_linked(const __u8 *map, unsigned int port)
{
	return port < 8 * PIB_SMP_LINKED_PORTS_LEN &&
	       (map[port / 8] >> (port % 8)) & 1;
}

#endif /* PIB_ABI_USER_H */
