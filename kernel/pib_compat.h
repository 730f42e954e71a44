/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel interfaces that changed between Linux 6.1 and the newest kernel
 * pib supports. The rest of pib is written for the newest kernel; on older
 * ones the entries below provide its interfaces in terms of the old ones.
 * Each entry says what changed, in which kernel, and how the in-tree
 * software drivers (rxe, siw) followed it; pib follows them the same way.
 *
 * pib_hdr.h includes this first, for the interfaces it uses. The verb
 * adapters at the end declare the verbs of pib they call (pib.h declares
 * them again: the compiler checks that the two agree).
 */
#ifndef PIB_COMPAT_H
#define PIB_COMPAT_H

#include <linux/hmm.h>
#include <linux/timer.h>
#include <linux/version.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* Is the kernel pib is built for older than @major.@minor.@sub? */
#define PIB_LINUX_BEFORE(major, minor, sub)				\
	(KERNEL_VERSION(major, minor, sub) > LINUX_VERSION_CODE)

/*
 * 6.12 moved the unaligned accessors (get_unaligned_be32() and friends)
 * from <asm/unaligned.h> to <linux/unaligned.h>, for every driver at
 * once; pib includes the new header, or the old one before.
 */
#if PIB_LINUX_BEFORE(6, 12, 0)
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif

/*
 * 6.2 renamed del_timer() and del_timer_sync() to timer_delete() and
 * timer_delete_sync(); 6.1 stable gained the new names later, so old
 * 6.1 kernels have only the old ones. rxe and siw switched to the new
 * names in the treewide conversion of 6.15.
 */
#if PIB_LINUX_BEFORE(6, 2, 0)
#define timer_delete(timer)		del_timer(timer)
#define timer_delete_sync(timer)	del_timer_sync(timer)
#endif

/*
 * 6.11 let a driver mark its device's name as chosen by the user
 * (reported to userspace over netlink, so that rdma-core's rdma_rename
 * leaves it alone); rxe and siw mark the devices "rdma link add" makes.
 * Before, no device was renamed by that rule, so there is nothing to do.
 */
#if PIB_LINUX_BEFORE(6, 11, 0)
static inline void ib_mark_name_assigned_by_user(struct ib_device *ibdev)
{
}
#endif

/*
 * 6.16 renamed from_timer() to timer_container_of(); rxe's timer
 * callbacks use the new name since.
 */
#if PIB_LINUX_BEFORE(6, 16, 0)
#define timer_container_of(var, timer, field)	from_timer(var, timer, field)
#endif

/*
 * 6.17 gave udp_tunnel_xmit_skb() an ipcb_flags argument, the IPCB
 * flags of the packet it sends, and udp_tunnel6_xmit_skb() the same as
 * ip6cb_flags. Before, iptunnel_xmit() and ip6tunnel_xmit() always
 * cleared them, so 0 is the old behaviour; the tunnels that need none
 * (geneve, bareudp, wireguard, tipc) pass 0, and so does pib.
 */
#if PIB_LINUX_BEFORE(6, 17, 0)
#define udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df, sport,	\
			    dport, xnet, nocheck, ipcb_flags)		\
	udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df, sport,	\
			    dport, xnet, nocheck)
#define udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio, ttl, \
			     label, sport, dport, nocheck, ip6cb_flags)	\
	udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio, ttl, \
			     label, sport, dport, nocheck)
#endif

/*
 * 6.2 added the IBA 1.5 operations RDMA FLUSH and ATOMIC WRITE to the
 * core (rxe has had them since): MR and QP access flags for the flush
 * placements, device capabilities, and completion opcodes. Before, the
 * core lets no MR or QP have the flush flags, so pib refuses a FLUSH as
 * an HCA refuses one to memory that does not allow it, and says it has
 * none; ATOMIC WRITE needs no new flag, and pib's provider posts it on
 * any kernel. The values are the uapi's.
 */
#if PIB_LINUX_BEFORE(6, 2, 0)
#define IB_ACCESS_FLUSH_GLOBAL		BIT(8)
#define IB_ACCESS_FLUSH_PERSISTENT	BIT(9)
#define IB_DEVICE_FLUSH_GLOBAL		0
#define IB_DEVICE_ATOMIC_WRITE		BIT_ULL(40)
#define IB_UVERBS_WC_FLUSH		8
#define IB_UVERBS_WC_ATOMIC_WRITE	9
#endif

/*
 * 7.2 renamed ib_umem_get() to ib_umem_get_va(), which pins the same
 * pages with the same flags; rxe and siw call the new name.
 */
#if PIB_LINUX_BEFORE(7, 2, 0)
static inline struct ib_umem *ib_umem_get_va(struct ib_device *device,
					     unsigned long addr, size_t size,
					     int access)
{
	return ib_umem_get(device, addr, size, access);
}
#endif

/*
 * Verbs whose prototype changed. The device ops table names each through
 * a PIB_OP_* initializer: pib's verb itself on kernels with its
 * prototype, an adapter below on older ones.
 */

/*
 * 6.11 passes create_cq the uverbs attribute bundle instead of its
 * driver udata (NULL for a kernel CQ either way); rxe and siw take the
 * udata from the bundle. Older kernels pass the bundle's driver_udata.
 */
#if PIB_LINUX_BEFORE(6, 11, 0)
int pib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);

static inline int pib_compat_create_cq(struct ib_cq *ibcq,
				       const struct ib_cq_init_attr *attr,
				       struct ib_udata *udata)
{
	return pib_create_cq(ibcq, attr, udata ?
			     rdma_udata_to_uverbs_attr_bundle(udata) : NULL);
}

#define PIB_OP_CREATE_CQ	.create_cq = pib_compat_create_cq
#else
#define PIB_OP_CREATE_CQ	.create_cq = pib_create_cq
#endif

/*
 * 6.17 added a DMA handle (PCIe TPH steering hints) to reg_user_mr; rxe
 * and siw refuse a handle with -EOPNOTSUPP. Older kernels have none.
 */
#if PIB_LINUX_BEFORE(6, 17, 0)
struct ib_dmah;
struct ib_mr *pib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt_addr, int access, struct ib_dmah *dmah,
			      struct ib_udata *udata);

static inline struct ib_mr *pib_compat_reg_user_mr(struct ib_pd *ibpd,
						   u64 start, u64 length,
						   u64 virt_addr, int access,
						   struct ib_udata *udata)
{
	return pib_reg_user_mr(ibpd, start, length, virt_addr, access, NULL,
			       udata);
}

#define PIB_OP_REG_USER_MR	.reg_user_mr = pib_compat_reg_user_mr
#else
#define PIB_OP_REG_USER_MR	.reg_user_mr = pib_reg_user_mr
#endif

/*
 * 7.1 removed the kernel verb ib_resize_cq(), renamed the op resize_cq
 * to resize_user_cq (uverbs' RESIZE_CQ is its only caller) and made the
 * number of entries unsigned; rxe's rxe_resize_cq() followed. On older
 * kernels a negative count becomes one above any limit, still refused.
 */
#if PIB_LINUX_BEFORE(7, 1, 0)
int pib_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
		  struct ib_udata *udata);

static inline int pib_compat_resize_cq(struct ib_cq *ibcq, int cqe,
				       struct ib_udata *udata)
{
	return pib_resize_cq(ibcq, cqe, udata);
}

#define PIB_OP_RESIZE_CQ	.resize_cq = pib_compat_resize_cq
#else
#define PIB_OP_RESIZE_CQ	.resize_user_cq = pib_resize_cq
#endif

/*
 * On-demand paging (pib_odp.c): the access mask a fault asks for, and the
 * page a mapped entry of an ODP umem holds (NULL if none; its umem_mutex
 * held). Linux 6.16 keeps the entries in an hmm_dma_map with HMM's flags,
 * before that in pfn_list and dma_list with ODP_*_ALLOWED_BIT.
 */
#if PIB_LINUX_BEFORE(6, 16, 0)
static inline u64 pib_odp_access_mask(bool write)
{
	return ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
}

static inline struct page *pib_odp_mapped_page(struct ib_umem_odp *umem,
					       unsigned long i, bool *write)
{
	dma_addr_t dma = umem->dma_list[i];

	if (!dma)
		return NULL;
	*write = dma & ODP_WRITE_ALLOWED_BIT;
	return hmm_pfn_to_page(umem->pfn_list[i]);
}
#else
static inline u64 pib_odp_access_mask(bool write)
{
	return write ? HMM_PFN_WRITE : 0;
}

static inline struct page *pib_odp_mapped_page(struct ib_umem_odp *umem,
					       unsigned long i, bool *write)
{
	unsigned long pfn = umem->map.pfn_list[i];

	if (!(pfn & HMM_PFN_VALID))
		return NULL;
	*write = pfn & HMM_PFN_WRITE;
	return hmm_pfn_to_page(pfn);
}
#endif

/*
 * What ODP MRs of RC and XRC QPs do (pib_verbs.c): Linux 6.16 has bits for
 * FLUSH and ATOMIC WRITE too.
 */
#define PIB_ODP_RC_CAPS_BASE	(IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV | \
				 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ | \
				 IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV)
#if PIB_LINUX_BEFORE(6, 16, 0)
#define PIB_ODP_RC_CAPS		PIB_ODP_RC_CAPS_BASE
#else
#define PIB_ODP_RC_CAPS		(PIB_ODP_RC_CAPS_BASE | IB_ODP_SUPPORT_FLUSH | \
				 IB_ODP_SUPPORT_ATOMIC_WRITE)
#endif

#endif /* PIB_COMPAT_H */
