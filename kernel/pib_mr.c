// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions: DMA MRs for kernel consumers, user MRs pinned with
 * ib_umem, fast-register MRs (alloc_mr, map_mr_sg, REG_MR, LOCAL_INV),
 * and the one place where the data path turns (key, address, length) into
 * memory: every access checks the key, the PD, the access flags and the
 * bounds before a byte moves. A memory window's R_Key leads to the MR it
 * is bound to (pib_mw.c).
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "pib.h"
#include "pib_trace.h"

/* A key: the MR's table index, then a byte that changes with each REG_MR. */
static u32 pib_mr_key(u32 index, u8 key_byte)
{
	return index << PIB_MR_KEY_SHIFT | key_byte;
}

/* Key indices: 24 bits; 0 is no MR's, so that no key is 0. */
#define PIB_MR_INDEX_MASK	(U32_MAX >> PIB_MR_KEY_SHIFT)
/*
 * Random indices tried for a new MR: with at most PIB_MAX_MR of the 2^24
 * taken, each try fails with a chance of 1 in 256 at worst.
 */
#define PIB_MR_INDEX_TRIES	16

/*
 * Reserve a random free index in the device's MR table. Any host on the
 * LAN may try R_Keys: a key is 32 random bits (index and key byte), so
 * one key tells nothing of the others, and a guess hits one of N MRs
 * with a chance of N in 2^32. Lookups stay one xa_load().
 */
static int pib_mr_reserve_index(struct pib_dev *dev, u32 *index)
{
	unsigned int tries;
	int err = -EBUSY;

	for (tries = 0; err == -EBUSY && tries < PIB_MR_INDEX_TRIES; tries++) {
		*index = get_random_u32() & PIB_MR_INDEX_MASK;
		if (*index)
			err = xa_insert(&dev->mrs, *index, NULL, PIB_GFP_USER);
	}
	return err == -EBUSY ? -ENOMEM : err;
}

/**
 * pib_mr_alloc() - a new MR (or memory window) with a random key, not yet
 *	in the table
 * @dev: the device
 * @ibpd: its PD
 * @type: enum pib_mr_type
 * @access: IB_ACCESS_* flags
 *
 * Return: the MR, or an ERR_PTR().
 */
struct pib_mr *pib_mr_alloc(struct pib_dev *dev, struct ib_pd *ibpd,
			    enum pib_mr_type type, int access)
{
	struct pib_mr *mr;
	u32 index;
	int err;

	err = pib_res_get(&dev->ibdev, &dev->mr_count, PIB_MAX_MR, "MRs");
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), PIB_GFP_USER);
	if (!mr) {
		atomic_dec(&dev->mr_count);
		return ERR_PTR(-ENOMEM);
	}
	mr->type = type;
	mr->access = access;
	/* Only a user's MR is pinned user memory; the PD names a kernel's. */
	pib_owner_set(&mr->owner, type == PIB_MR_USER, ibpd->res.kern_name);
	refcount_set(&mr->users, 1);
	init_completion(&mr->unused);
	spin_lock_init(&mr->mw_lock);
	err = pib_mr_reserve_index(dev, &index);
	if (err) {
		kfree(mr);
		atomic_dec(&dev->mr_count);
		return ERR_PTR(err);
	}
	mr->key = pib_mr_key(index, get_random_u8());
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return mr;
}

/* Unpin what pib_mr_pin() pinned, if anything. */
static void pib_mr_unpin(struct pib_mr_pin *pin)
{
	if (pin->umem)
		ib_umem_release(pin->umem);
	kvfree(pin->pages);
	*pin = (struct pib_mr_pin){};
}

/**
 * pib_mr_unpublish() - take the MR out of the table, and wait for the
 *	accesses in progress (they hold a reference each)
 * @dev: the device
 * @mr: the MR; pib_mr_release() frees it
 */
void pib_mr_unpublish(struct pib_dev *dev, struct pib_mr *mr)
{
	xa_erase(&dev->mrs, mr->key >> PIB_MR_KEY_SHIFT);
	if (!refcount_dec_and_test(&mr->users))
		wait_for_completion(&mr->unused);
}

/**
 * pib_mr_free() - undo pib_mr_alloc() and what was built on it
 * @dev: the device, from the caller: an MR that registration gives up on
 *	never had its ibmr.device set by the core
 * @mr: the MR
 */
void pib_mr_free(struct pib_dev *dev, struct pib_mr *mr)
{
	pib_mr_unpublish(dev, mr);
	pib_mr_release(dev, mr);
}

/**
 * pib_mr_release() - free an MR that pib_mr_unpublish() took out
 * @dev: the device
 * @mr: the MR
 */
void pib_mr_release(struct pib_dev *dev, struct pib_mr *mr)
{
	pib_mr_unpin(&mr->pin);
	pib_odp_release(mr);
	kfree(mr->fast);
	kfree_rcu(mr, rcu);
	atomic_dec(&dev->mr_count);
}

/**
 * pib_mr_publish() - make a built MR visible to the data path
 * @dev: the device
 * @mr: the MR
 */
void pib_mr_publish(struct pib_dev *dev, struct pib_mr *mr)
{
	xa_store(&dev->mrs, mr->key >> PIB_MR_KEY_SHIFT, mr, GFP_KERNEL);
	trace_pib_mr_reg(dev, mr);
}

/**
 * pib_get_dma_mr() - the get_dma_mr verb: an MR over all of memory
 * @ibpd: the PD
 * @access: IB_ACCESS_* flags
 *
 * Return: the MR, or an ERR_PTR().
 */
struct ib_mr *pib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct pib_dev *dev = to_pib_dev(ibpd->device);
	struct pib_mr *mr = pib_mr_alloc(dev, ibpd, PIB_MR_DMA, access);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->valid = true;
	mr->ibmr.length = U64_MAX;
	pib_mr_publish(dev, mr);
	return &mr->ibmr;
}

/* The pages of pinned user memory, in order. */
static int pib_mr_pin_pages(struct pib_mr_pin *pin)
{
	struct sg_page_iter iter;
	unsigned long i = 0;

	pin->page_off = ib_umem_offset(pin->umem);
	pin->npages = ib_umem_num_pages(pin->umem);
	pin->pages = kvcalloc(pin->npages, sizeof(*pin->pages), PIB_GFP_USER);
	if (!pin->pages)
		return -ENOMEM;
	for_each_sgtable_page(&pin->umem->sgt_append.sgt, &iter, 0) {
		if (i == pin->npages)
			break;
		pin->pages[i++] = sg_page_iter_page(&iter);
	}
	return i == pin->npages ? 0 : -EFAULT;
}

/*
 * Pin [@start, @start + @length) of the calling process into @pin (empty),
 * writable if @access allows writes. On failure @pin is left empty.
 */
static int pib_mr_pin(struct pib_dev *dev, struct pib_mr_pin *pin, u64 start,
		      u64 length, int access, const char *verb)
{
	int err;

	if (!length || length > PIB_MAX_MSG * 2ULL)
		return pib_refuse(&dev->ibdev, -EINVAL, "%s: length %llu (1 to %llu)",
				  verb, length, PIB_MAX_MSG * 2ULL);
	pin->umem = ib_umem_get_va(&dev->ibdev, start, length, access);
	if (IS_ERR(pin->umem)) {
		err = pib_refuse(&dev->ibdev, PTR_ERR(pin->umem),
				 "%s: cannot pin %llu bytes at 0x%llx",
				 verb, length, start);
		pin->umem = NULL;
		return err;
	}
	err = pib_mr_pin_pages(pin);
	if (err)
		pib_mr_unpin(pin);
	return err;
}

/*
 * May a user MR have @access? Optional flags (relaxed ordering) change
 * nothing; a FLUSH to global visibility is a barrier (pib_resp.c), but pib
 * has no persistent memory to flush to. On-demand paging is pib_odp.c's.
 */
static int pib_mr_user_access(struct pib_dev *dev, int access, const char *verb)
{
	if (access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		       IB_ACCESS_MW_BIND | IB_ACCESS_FLUSH_GLOBAL |
		       IB_ACCESS_ON_DEMAND | IB_ACCESS_OPTIONAL))
		return pib_refuse(&dev->ibdev, -EOPNOTSUPP,
				  "%s: access 0x%x (pib has local write, remote write, read, atomic, MW bind, flush to global visibility and on-demand paging)",
				  verb, access);
	return 0;
}

/*
 * The memory of a new user MR: pinned, or on demand (not implicit: an MR
 * of the whole address space has no range to register).
 */
static int pib_mr_user_mem(struct pib_dev *dev, struct pib_mr *mr, u64 start,
			   u64 length, int access)
{
	if (!(access & IB_ACCESS_ON_DEMAND))
		return pib_mr_pin(dev, &mr->pin, start, length, access, "reg_mr");
	if (!length || length > PIB_MAX_MSG * 2ULL)
		return pib_refuse(&dev->ibdev, length == U64_MAX ? -EOPNOTSUPP : -EINVAL,
				  "reg_mr: ODP length %llu (1 to %llu; no implicit ODP)",
				  length, PIB_MAX_MSG * 2ULL);
	return pib_odp_reg(dev, mr, start, length, access);
}

/**
 * pib_reg_user_mr() - the reg_user_mr verb: pin a process's memory
 * @ibpd: the protection domain
 * @start: the memory's address in the process
 * @length: its length in bytes
 * @virt_addr: the address that work requests and peers use for @start
 * @access: IB_ACCESS_* flags
 * @dmah: a DMA handle (PCIe steering hints), meaningless without a bus
 * @udata: the user's uverbs call
 *
 * Return: the MR, or an ERR_PTR.
 */
struct ib_mr *pib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt_addr, int access, struct ib_dmah *dmah,
			      struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibpd->device);
	struct pib_mr *mr;
	int err;

	err = pib_inject_verb_fail(dev, PIB_INJ_REG_MR);
	if (err)
		return ERR_PTR(err);
	if (dmah)
		return ERR_PTR(pib_refuse(&dev->ibdev, -EOPNOTSUPP,
					  "reg_mr: a DMA handle"));
	err = pib_mr_user_access(dev, access, "reg_mr");
	if (err)
		return ERR_PTR(err);
	access &= ~IB_ACCESS_OPTIONAL;
	mr = pib_mr_alloc(dev, ibpd, PIB_MR_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = pib_mr_user_mem(dev, mr, start, length, access);
	if (err) {
		pib_mr_free(dev, mr);
		return ERR_PTR(err);
	}
	mr->valid = true;
	mr->ibmr.iova = virt_addr;
	mr->ibmr.length = length;
	pib_mr_publish(dev, mr);
	return &mr->ibmr;
}

/*
 * Make an MR invalid for deregistration or reregistration, unless memory
 * windows are bound to it: binds look for a valid MR under the same lock
 * (pib_mw_take()). Return: 0, or -EBUSY.
 */
static int pib_mr_stop(struct pib_dev *dev, struct pib_mr *mr, const char *verb)
{
	unsigned long flags;
	int bound;

	spin_lock_irqsave(&dev->mw_lock, flags);
	bound = atomic_read(&mr->bound_mws);
	if (!bound)
		WRITE_ONCE(mr->valid, false);
	spin_unlock_irqrestore(&dev->mw_lock, flags);
	if (bound)
		return pib_refuse(&dev->ibdev, -EBUSY,
				  "%s: %d memory windows are bound to it", verb, bound);
	return 0;
}

/*
 * Wait until an MR that pib_mr_stop() made invalid is in no access. A
 * lookup takes its reference before it looks at the MR (pib_mr_get()):
 * from here on it finds the MR invalid and lets go. The MR keeps its
 * place in the table; it may change until smp_store_release() makes it
 * valid.
 */
static void pib_mr_quiesce(struct pib_mr *mr)
{
	if (!refcount_dec_and_test(&mr->users))
		wait_for_completion(&mr->unused);
	reinit_completion(&mr->unused);
	refcount_set(&mr->users, 1);
}

/**
 * pib_rereg_user_mr() - the rereg_user_mr verb: change a user MR's memory,
 *	PD or access in place; its keys stay
 * @ibmr: the MR
 * @flags: IB_MR_REREG_TRANS, IB_MR_REREG_PD and IB_MR_REREG_ACCESS
 * @start: IB_MR_REREG_TRANS: the new memory's address in the process
 * @length: IB_MR_REREG_TRANS: its length in bytes
 * @virt_addr: IB_MR_REREG_TRANS: the address work requests use for @start
 * @access: IB_MR_REREG_ACCESS: the new IB_ACCESS_* flags
 * @ibpd: the PD the MR is to be in (its own without IB_MR_REREG_PD)
 * @udata: the user's uverbs call
 *
 * New memory is pinned before the MR changes, and so is the old memory
 * again when the new access writes where the old one did not. While the
 * MR changes it answers no access: work that names it then fails as with
 * a bad key, as it may on hardware.
 *
 * Return: NULL (changed in place), or an ERR_PTR() and the MR as it was:
 * -EBUSY while memory windows are bound to it.
 */
struct ib_mr *pib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 virt_addr, int access,
				struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibmr->device);
	struct pib_mr *mr = to_pib_mr(ibmr);
	struct pib_mr_pin pin = {};
	int err = 0;

	if (mr->type != PIB_MR_USER)
		return ERR_PTR(pib_refuse(&dev->ibdev, -EINVAL,
					  "rereg_mr: not a user MR"));
	if (mr->odp || (flags & IB_MR_REREG_ACCESS &&
			access & IB_ACCESS_ON_DEMAND))
		return ERR_PTR(pib_refuse(&dev->ibdev, -EOPNOTSUPP,
					  "rereg_mr: on-demand paging"));
	if (flags & IB_MR_REREG_ACCESS) {
		err = pib_mr_user_access(dev, access, "rereg_mr");
		if (err)
			return ERR_PTR(err);
		access &= ~IB_ACCESS_OPTIONAL;
	} else {
		access = mr->access;
	}
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->pin.umem->address;
		length = mr->pin.umem->length;
		virt_addr = ibmr->iova;
	}
	if ((flags & IB_MR_REREG_TRANS) ||
	    (ib_access_writable(access) && !mr->pin.umem->writable))
		err = pib_mr_pin(dev, &pin, start, length, access, "rereg_mr");
	if (!err)
		err = pib_mr_stop(dev, mr, "rereg_mr");
	if (!err) {
		pib_mr_quiesce(mr);
		if (pin.umem)
			swap(mr->pin, pin);
		ibmr->iova = virt_addr;
		ibmr->length = length;
		WRITE_ONCE(ibmr->pd, ibpd);
		mr->access = access;
		/* Pairs with pib_mr_get(): the above first, then valid. */
		smp_store_release(&mr->valid, true);
		trace_pib_mr_reg(dev, mr);
	}
	pib_mr_unpin(&pin);
	return err ? ERR_PTR(err) : NULL;
}

/**
 * pib_alloc_mr() - the alloc_mr verb: an MR for fast registration
 * @ibpd: the PD
 * @type: IB_MR_TYPE_MEM_REG, the only type pib supports
 * @max_num_sg: the most pages a registration may map
 *
 * Return: the MR, or an ERR_PTR().
 */
struct ib_mr *pib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct pib_dev *dev = to_pib_dev(ibpd->device);
	struct pib_mr *mr;
	int err;

	err = pib_inject_verb_fail(dev, PIB_INJ_ALLOC_MR);
	if (err)
		return ERR_PTR(err);
	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(pib_refuse(&dev->ibdev, -EOPNOTSUPP,
					  "alloc_mr: type %d (pib has IB_MR_TYPE_MEM_REG)",
					  type));
	if (!max_num_sg || max_num_sg > PIB_MAX_FAST_PAGES)
		return ERR_PTR(pib_refuse(&dev->ibdev, -EINVAL,
					  "alloc_mr: max_num_sg %u (1 to %u)",
					  max_num_sg, PIB_MAX_FAST_PAGES));
	mr = pib_mr_alloc(dev, ibpd, PIB_MR_FAST, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->fast = kcalloc(max_num_sg, sizeof(*mr->fast), GFP_KERNEL);
	if (!mr->fast) {
		pib_mr_free(dev, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_fast = max_num_sg;
	pib_mr_publish(dev, mr);
	return &mr->ibmr;
}

static int pib_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct pib_mr *mr = to_pib_mr(ibmr);

	if (mr->nfast == mr->max_fast)
		return -ENOMEM;
	mr->fast[mr->nfast++] = addr;
	return 0;
}

/**
 * pib_map_mr_sg() - the map_mr_sg verb: the pages of a fast registration
 * @ibmr: an MR of pib_alloc_mr()
 * @sg: the scatterlist
 * @sg_nents: its entries
 * @sg_offset: the offset into the first entry, or NULL
 *
 * Return: the number of entries mapped, as ib_sg_to_pages() counts them.
 */
int pib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	to_pib_mr(ibmr)->nfast = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, pib_mr_set_page);
}

/**
 * pib_dereg_mr() - the dereg_mr verb
 * @ibmr: the MR
 * @udata: the user's call, or NULL
 *
 * Return: 0, once no packet uses the MR any more, or -EBUSY while memory
 * windows are bound to it.
 */
int pib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibmr->device);
	struct pib_mr *mr = to_pib_mr(ibmr);
	int err = pib_mr_stop(dev, mr, "dereg_mr");

	if (err)
		return err;
	trace_pib_mr_dereg(dev, mr);
	if (unlikely(pib_strict(dev)))
		pib_strict_mr_busy(dev, mr);
	pib_mr_free(dev, mr);
	return 0;
}

/**
 * pib_mr_get() - look up the MR of a key, for one access
 * @dev: the device
 * @pd: the PD the MR must belong to
 * @key: the L_Key or R_Key
 *
 * Return: the MR with a reference held (pib_mr_put()), or NULL if the key
 * names no valid MR of @pd.
 */
struct pib_mr *pib_mr_get(struct pib_dev *dev, struct ib_pd *pd, u32 key)
{
	struct pib_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->mrs, key >> PIB_MR_KEY_SHIFT);
	if (mr && !refcount_inc_not_zero(&mr->users))
		mr = NULL;
	rcu_read_unlock();
	/*
	 * The reference first, then what it is to: deregistration and
	 * reregistration make the MR invalid before they wait for the
	 * references, and a reregistered MR is valid (acquire) once all else
	 * is in place.
	 */
	if (mr && (!smp_load_acquire(&mr->valid) || READ_ONCE(mr->key) != key ||
		   READ_ONCE(mr->ibmr.pd) != pd)) {
		pib_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/**
 * pib_mr_key_invalidated() - is @key a fast-register MR's, invalidated?
 * @dev: the device
 * @key: an L_Key or R_Key that pib_mr_get() did not take
 *
 * Return: true if the key is the current one of a fast-register MR that
 * LOCAL_INV or SEND_WITH_INV invalidated (and no REG_MR made valid again).
 */
bool pib_mr_key_invalidated(struct pib_dev *dev, u32 key)
{
	struct pib_mr *mr;
	bool inv;

	rcu_read_lock();
	mr = xa_load(&dev->mrs, key >> PIB_MR_KEY_SHIFT);
	inv = mr && mr->type == PIB_MR_FAST && READ_ONCE(mr->key) == key &&
	      !READ_ONCE(mr->valid);
	rcu_read_unlock();
	return inv;
}

/**
 * pib_mr_put() - drop the reference that pib_mr_get() took
 * @mr: the MR
 */
void pib_mr_put(struct pib_mr *mr)
{
	if (refcount_dec_and_test(&mr->users))
		complete(&mr->unused);
}

/**
 * pib_mr_allows() - is [@va, @va + @len) inside the MR, with @access
 *	allowed?
 * @mr: the MR, or a memory window
 * @va: the address
 * @len: bytes
 * @access: IB_ACCESS_* needed
 *
 * Return: true if so.
 */
bool pib_mr_allows(struct pib_mr *mr, u64 va, u64 len, int access)
{
	if ((mr->access & access) != access)
		return false;
	if (mr->type == PIB_MR_DMA)
		return true;
	return va >= mr->ibmr.iova && len <= mr->ibmr.length &&
	       va - mr->ibmr.iova <= mr->ibmr.length - len;
}

/*
 * The MR whose memory [*@va, *@va + @len) behind @key is, with @access
 * allowed, and a reference held: for a memory window's R_Key, the MR the
 * window is bound to, and *@va that MR's address. NULL if the key, PD,
 * QP (@qp, a type 2 window's), access or bounds do not allow it.
 */
static struct pib_mr *pib_mr_get_mem(struct pib_dev *dev, struct ib_pd *pd,
				     u32 key, const struct pib_qp *qp, u64 *va,
				     u32 len, int access)
{
	struct pib_mr *mr = pib_mr_get(dev, pd, key);

	if (mr && mr->type == PIB_MR_MW)
		return pib_mw_target(mr, qp, va, len, access);
	if (mr && !pib_mr_allows(mr, *va, len, access)) {
		pib_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/**
 * pib_mr_check() - may [@va, @va + @len) behind @key be accessed so?
 * @dev: the device
 * @pd: the PD the MR must belong to
 * @key: L_Key or R_Key
 * @qp: the QP that accesses it (a type 2 window's R_Key is its QP's)
 * @va: the address
 * @len: bytes
 * @access: IB_ACCESS_* needed; with PIB_ACCESS_RESIDENT, the pages of an
 *	ODP MR must be there for reading too (pib_odp_check())
 *
 * Return: 0, -EACCES, or for PIB_ACCESS_RESIDENT -EAGAIN or -EFAULT.
 */
int pib_mr_check(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		 const struct pib_qp *qp, u64 va, u32 len, int access)
{
	struct pib_mr *mr = pib_mr_get_mem(dev, pd, key, qp, &va, len,
					   access & ~PIB_ACCESS_RESIDENT);
	int err = 0;

	if (!mr)
		return -EACCES;
	if (access & PIB_ACCESS_RESIDENT && mr->odp)
		err = pib_odp_check(mr->odp, va - mr->ibmr.iova, len);
	pib_mr_put(mr);
	return err;
}

/**
 * pib_mr_check_key() - may all of the memory behind @key be accessed so?
 *	A FLUSH of a whole MR asks
 * @dev: the device
 * @pd: the PD the MR must belong to
 * @key: an MR's R_Key (a memory window's does not do)
 * @access: IB_ACCESS_* needed
 *
 * Return: 0, or -EACCES.
 */
int pib_mr_check_key(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		     int access)
{
	struct pib_mr *mr = pib_mr_get(dev, pd, key);
	bool ok;

	if (!mr)
		return -EACCES;
	ok = mr->type != PIB_MR_MW && (mr->access & access) == access;
	pib_mr_put(mr);
	return ok ? 0 : -EACCES;
}

/* Copy within one page (or one DMA range) of the MR. */
static void pib_mr_copy_chunk(void *mem, void *buf, u32 n, bool to_mr)
{
	if (to_mr)
		memcpy(mem, buf, n);
	else
		memcpy(buf, mem, n);
}

static u32 pib_mr_copy_user(struct pib_mr *mr, u64 off, void *buf, u32 len,
			    bool to_mr)
{
	unsigned long pg = off >> PAGE_SHIFT;
	u32 in = off & ~PAGE_MASK, n = min_t(u32, len, PAGE_SIZE - in);
	void *p = kmap_local_page(mr->pin.pages[pg]);

	pib_mr_copy_chunk(p + in, buf, n, to_mr);
	kunmap_local(p);
	return n;
}

static u32 pib_mr_copy_fast(struct pib_mr *mr, u64 off, void *buf, u32 len,
			    bool to_mr)
{
	u32 psize = mr->ibmr.page_size, in = off & (psize - 1);
	u32 n = min_t(u32, len, psize - in);
	u64 pg = off / psize;

	pib_mr_copy_chunk((void *)(uintptr_t)mr->fast[pg] + in, buf, n, to_mr);
	return n;
}

/**
 * pib_mr_copy() - move bytes between a buffer and memory behind a key
 * @dev: the device
 * @pd: the PD the MR must belong to
 * @key: L_Key or R_Key
 * @qp: the QP that accesses it (a type 2 window's R_Key is its QP's)
 * @va: the address in the MR
 * @buf: the kernel buffer
 * @len: bytes
 * @access: IB_ACCESS_* the access needs (0 to read with an L_Key)
 * @to_mr: copy @buf into the MR, else the MR into @buf
 *
 * Return: 0, or -EACCES if the key, PD, access or bounds do not allow it;
 * for an ODP MR, -EAGAIN while its pages are faulted in, -EFAULT if they
 * cannot be (pib_odp_copy()).
 */
int pib_mr_copy(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		const struct pib_qp *qp, u64 va, void *buf, u32 len, int access,
		bool to_mr)
{
	struct pib_mr *mr;
	u64 off;
	int err;
	u32 n;

	if (!len)
		return 0;
	mr = pib_mr_get_mem(dev, pd, key, qp, &va, len, access);
	if (!mr)
		return -EACCES;
	if (mr->type == PIB_MR_DMA) {
		pib_mr_copy_chunk((void *)(uintptr_t)va, buf, len, to_mr);
		pib_mr_put(mr);
		return 0;
	}
	off = va - mr->ibmr.iova;
	if (mr->odp) {
		err = pib_odp_copy(mr->odp, off, buf, len, to_mr);
		pib_mr_put(mr);
		return err;
	}
	for (; len; len -= n, off += n, buf += n) {
		if (mr->type == PIB_MR_USER)
			n = pib_mr_copy_user(mr, off + mr->pin.page_off, buf, len,
					     to_mr);
		else
			n = pib_mr_copy_fast(mr, off + (mr->ibmr.iova &
					     (mr->ibmr.page_size - 1)),
					     buf, len, to_mr);
	}
	pib_mr_put(mr);
	return 0;
}

/**
 * pib_sge_copy() - move a part of a message between a buffer and SGEs
 * @dev: the device
 * @pd: the QP's PD
 * @sge: the scatter/gather list
 * @num_sge: its entries
 * @offset: where in the message the part starts
 * @buf: the part
 * @len: its bytes
 * @to_mem: scatter @buf into the SGEs (needs local write), else gather
 *
 * Return: 0, -EMSGSIZE if the SGEs are too short, -EACCES on a bad key.
 */
int pib_sge_copy(struct pib_dev *dev, struct ib_pd *pd,
		 const struct pib_sge *sge, u32 num_sge, u32 offset,
		 void *buf, u32 len, bool to_mem)
{
	int access = to_mem ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i, n;
	int err;

	for (i = 0; i < num_sge && len; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - offset);
		err = pib_mr_copy(dev, pd, sge[i].lkey, NULL, sge[i].addr + offset,
				  buf, n, access, to_mem);
		if (err)
			return err;
		buf += n;
		len -= n;
		offset = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/**
 * pib_mr_atomic() - an 8-byte atomic operation on memory behind an R_Key
 * @dev: the device
 * @pd: the QP's PD
 * @rkey: the R_Key
 * @qp: the QP that accesses it (a type 2 window's R_Key is its QP's)
 * @va: the address, 8-byte aligned
 * @cmp_swap: compare and swap, else fetch and add
 * @cmp_add: the compare value, or the addend
 * @swap: the swap value
 * @orig: the value before the operation
 *
 * Return: 0, -EACCES on a bad key, access or bounds, -EINVAL if unaligned.
 */
int pib_mr_atomic(struct pib_dev *dev, struct ib_pd *pd, u32 rkey,
		  const struct pib_qp *qp, u64 va, bool cmp_swap, u64 cmp_add,
		  u64 swap, u64 *orig)
{
	unsigned long flags;
	u64 val;
	int err;

	if (va & 7)
		return -EINVAL;
	spin_lock_irqsave(&dev->atomic_lock, flags);
	err = pib_mr_copy(dev, pd, rkey, qp, va, &val, sizeof(val),
			  IB_ACCESS_REMOTE_ATOMIC, false);
	if (!err) {
		*orig = val;
		if (cmp_swap)
			val = val == cmp_add ? swap : val;
		else
			val += cmp_add;
		err = pib_mr_copy(dev, pd, rkey, qp, va, &val, sizeof(val),
				  IB_ACCESS_REMOTE_ATOMIC, true);
	}
	spin_unlock_irqrestore(&dev->atomic_lock, flags);
	return err;
}

/**
 * pib_mr_atomic_write() - an ATOMIC WRITE: 8 bytes to memory behind an
 *	R_Key, at once
 * @dev: the device
 * @pd: the QP's PD
 * @rkey: the R_Key
 * @qp: the QP that accesses it (a type 2 window's R_Key is its QP's)
 * @va: the address, 8-byte aligned
 * @val: the bytes, in memory order
 *
 * Under the lock the atomics take: none of them sees half of it.
 *
 * Return: 0, -EACCES on a bad key, access or bounds, -EINVAL if unaligned.
 */
int pib_mr_atomic_write(struct pib_dev *dev, struct ib_pd *pd, u32 rkey,
			const struct pib_qp *qp, u64 va, u64 val)
{
	unsigned long flags;
	int err;

	if (va & 7)
		return -EINVAL;
	spin_lock_irqsave(&dev->atomic_lock, flags);
	err = pib_mr_copy(dev, pd, rkey, qp, va, &val, sizeof(val),
			  IB_ACCESS_REMOTE_WRITE, true);
	spin_unlock_irqrestore(&dev->atomic_lock, flags);
	return err;
}

/**
 * pib_mr_invalidate() - LOCAL_INV or SEND_WITH_INV of a fast-register MR
 *	or a type 2 memory window
 * @dev: the device
 * @pd: the QP's PD
 * @key: the key to invalidate
 * @qp: the QP (a type 2 window must be bound to it)
 *
 * Return: 0, or -EACCES if @key names no fast-register MR or type 2 window
 * bound to @qp, of @pd.
 */
int pib_mr_invalidate(struct pib_dev *dev, struct ib_pd *pd, u32 key,
		      const struct pib_qp *qp)
{
	struct pib_mr *mr = pib_mr_get(dev, pd, key);
	int err = -EACCES;

	if (!mr)
		return err;
	if (mr->type == PIB_MR_FAST) {
		WRITE_ONCE(mr->valid, false);
		err = 0;
	} else if (mr->type == PIB_MR_MW) {
		err = pib_mw_invalidate(mr, qp);
	}
	pib_mr_put(mr);
	return err;
}

/**
 * pib_mr_fast_reg() - REG_MR: make a mapped fast-register MR valid
 * @ibmr: the MR
 * @pd: the QP's PD
 * @key: the new key (its low byte is the consumer's)
 * @access: IB_ACCESS_* flags
 *
 * Return: 0, or -EINVAL if the MR is valid already, of another PD, its
 * pages do not cover [iova, iova + length) (pib_mr_copy_fast() looks up
 * no page past them), or the key changes more than its low byte.
 */
int pib_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key, int access)
{
	struct pib_mr *mr = to_pib_mr(ibmr);

	if (mr->type != PIB_MR_FAST || ibmr->pd != pd || READ_ONCE(mr->valid) ||
	    (key >> PIB_MR_KEY_SHIFT) != (mr->key >> PIB_MR_KEY_SHIFT) ||
	    (u64)mr->nfast * ibmr->page_size <
	    (ibmr->iova & (ibmr->page_size - 1)) + ibmr->length)
		return -EINVAL;
	/*
	 * Not ibmr's keys: they are the consumer's, who set them with
	 * ib_update_fast_reg_key() before posting, and may have moved them
	 * on to the next key by the time the WQE runs.
	 */
	mr->access = access;
	WRITE_ONCE(mr->key, key);
	/* Pairs with pib_mr_get(): key and access first, then valid. */
	smp_store_release(&mr->valid, true);
	return 0;
}
