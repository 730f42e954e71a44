// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging: user MRs (IB_ACCESS_ON_DEMAND) whose pages are not
 * pinned. The RDMA core's ODP umem follows the process's page tables (an
 * MMU interval notifier) and faults pages in (hmm_range_fault()); pib keeps
 * its own table of the pages it may touch, which the data path reads under
 * a spinlock, from any context.
 *
 * The data path never sleeps, so it never faults: a copy that meets a page
 * that is not there (or not writable, for a write) asks the MR's work to
 * fault the range in and returns -EAGAIN. The responder answers such a
 * request with an RNR NAK, as a ConnectX does on a page fault, and the
 * requester sends it again after its RNR timer; the requester, when its
 * own memory is missing, waits (PIB_REQ_ODP_WAIT) and sends again. A fault
 * that fails (the memory is not mapped, or is read-only for a write) is
 * remembered for PIB_ODP_FAILED_MS, once: the next access there fails
 * with -EFAULT, an access error for the work request.
 *
 * An invalidation (munmap, madvise, migration, swap) takes the pages out
 * of pib's table under the spinlock, so no copy uses them once the
 * notifier returns, then the core unmaps them.
 */
#include <linux/hmm.h>
#include <linux/highmem.h>
#include <linux/mmu_notifier.h>
#include <rdma/ib_umem_odp.h>

#include "pib.h"

/* Bits of a pib_odp page entry below the struct page pointer. */
#define PIB_ODP_PRESENT		1UL
#define PIB_ODP_WRITABLE	2UL
#define PIB_ODP_FLAGS		(PIB_ODP_PRESENT | PIB_ODP_WRITABLE)

/*
 * A fault brings in this much past the access that asked for it (within
 * the MR): a message's next packets need not wait for a fault each.
 */
#define PIB_ODP_AHEAD		(256 * 1024)

/*
 * How long a failed fault answers for its range: longer than the longest
 * RNR timer (655 ms), shorter than it takes a program to map memory where
 * there was none and expect the next access there to work.
 */
#define PIB_ODP_FAILED_MS	2000

static unsigned long pib_odp_index(const struct pib_odp *odp, u64 uva)
{
	return (uva - ib_umem_start(odp->umem)) >> PAGE_SHIFT;
}

/*
 * Take the pages of [@start, @end) (user addresses in the umem) out of
 * pib's table. Called with umem_mutex held, so no fault refills them.
 */
static void pib_odp_forget(struct pib_odp *odp, u64 start, u64 end)
{
	unsigned long i, flags;

	spin_lock_irqsave(&odp->lock, flags);
	for (i = pib_odp_index(odp, start); i < pib_odp_index(odp, end) &&
	     i < odp->npages; i++)
		odp->pages[i] = 0;
	spin_unlock_irqrestore(&odp->lock, flags);
}

static bool pib_odp_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	struct pib_odp *odp;
	u64 start, end;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	odp = umem->private;
	start = max_t(u64, ib_umem_start(umem), range->start);
	end = min_t(u64, ib_umem_end(umem), range->end);
	/* (no private yet: registration has not faulted anything in) */
	if (odp && start < end) {
		pib_odp_forget(odp, start, end);
		ib_umem_odp_unmap_dma_pages(umem, start, end);
		atomic64_inc(&odp->invalidations);
	}
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops pib_odp_ops = {
	.invalidate = pib_odp_invalidate,
};

/*
 * Map [@uva, @uva + @len) of the process (faulting it in if @fault, for
 * writing if @write) and enter its pages in pib's table. May sleep.
 * Return: 0, or a negative errno.
 */
static int pib_odp_map(struct pib_odp *odp, u64 uva, u64 len, bool write,
		       bool fault)
{
	struct ib_umem_odp *umem = odp->umem;
	unsigned long i, first, flags;
	int n;

	n = ib_umem_odp_map_dma_and_lock(umem, uva, len,
					 pib_odp_access_mask(write), fault);
	if (n < 0)
		return n;
	first = pib_odp_index(odp, uva);
	spin_lock_irqsave(&odp->lock, flags);
	for (i = first; i < first + n && i < odp->npages; i++) {
		struct page *page;
		bool w = false;

		page = pib_odp_mapped_page(umem, i, &w);
		odp->pages[i] = page ? (unsigned long)page | PIB_ODP_PRESENT |
				       (w ? PIB_ODP_WRITABLE : 0) : 0;
	}
	spin_unlock_irqrestore(&odp->lock, flags);
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

/*
 * Fault @w in, and what lies ahead of it; if that fails, what was asked
 * for alone (the memory ahead may be unmapped, which is no fault of the
 * access). A failure is remembered for the next access there.
 */
static void pib_odp_fault(struct pib_odp *odp, const struct pib_odp_want *w)
{
	unsigned long flags;
	int err;

	if (w->lo >= w->hi)
		return;
	atomic64_inc(&odp->faults);
	err = pib_odp_map(odp, w->lo, w->ahead - w->lo, w->write, true);
	if (err && w->ahead > w->hi)
		err = pib_odp_map(odp, w->lo, w->hi - w->lo, w->write, true);
	if (!err)
		return;
	atomic64_inc(&odp->fault_errors);
	spin_lock_irqsave(&odp->lock, flags);
	odp->failed_lo = w->lo;
	odp->failed_hi = w->hi;
	odp->failed_at = jiffies;
	spin_unlock_irqrestore(&odp->lock, flags);
}

/* The MR's work: fault in each range the data path asked for. */
static void pib_odp_work(struct work_struct *work)
{
	struct pib_odp *odp = container_of(work, struct pib_odp, work);
	struct pib_odp_want wants[PIB_ODP_WANTS];
	unsigned long flags;
	unsigned int i, n;

	spin_lock_irqsave(&odp->lock, flags);
	n = odp->nwants;
	memcpy(wants, odp->wants, n * sizeof(wants[0]));
	odp->nwants = 0;
	spin_unlock_irqrestore(&odp->lock, flags);
	for (i = 0; i < n; i++)
		pib_odp_fault(odp, &wants[i]);
	pib_mr_put(odp->mr);
}

/*
 * Add [@lo, @hi) (up to @ahead if it can be) to the wanted ranges: into
 * one it overlaps or touches that wants the same access, else as a range
 * of its own, so that memory between two accesses is not asked for (it
 * may be unmapped, and would fail both); all taken, into the last one.
 * Called with odp->lock held.
 */
static void pib_odp_add_want(struct pib_odp *odp, u64 lo, u64 hi, u64 ahead,
			     bool write)
{
	struct pib_odp_want *w;
	unsigned int i;

	for (i = 0; i < odp->nwants; i++) {
		w = &odp->wants[i];
		if (w->write == write && lo <= w->hi && w->lo <= hi)
			break;
	}
	if (i == odp->nwants && odp->nwants < PIB_ODP_WANTS) {
		odp->wants[odp->nwants++] = (struct pib_odp_want){
			.lo = lo, .hi = hi, .ahead = ahead, .write = write,
		};
		return;
	}
	w = &odp->wants[min(i, odp->nwants - 1)];
	w->lo = min(w->lo, lo);
	w->hi = max(w->hi, hi);
	w->ahead = max(w->ahead, ahead);
	w->write |= write;
}

/*
 * Ask the MR's work to fault [@uva, @uva + @len) in, and some more; the
 * caller holds a reference to the MR, and the work takes one of its own.
 * Not on pib's workqueue: that one may run for memory reclaim, which a
 * fault must not hold up.
 */
static void pib_odp_want(struct pib_odp *odp, u64 uva, u32 len, bool write)
{
	u64 lo = ALIGN_DOWN(uva, PAGE_SIZE), end = ib_umem_end(odp->umem);
	u64 hi = min_t(u64, end, ALIGN(uva + len, PAGE_SIZE));
	u64 ahead = min_t(u64, end, ALIGN(uva + max_t(u64, len, PIB_ODP_AHEAD),
					  PAGE_SIZE));
	unsigned long flags;

	spin_lock_irqsave(&odp->lock, flags);
	pib_odp_add_want(odp, lo, hi, ahead, write);
	spin_unlock_irqrestore(&odp->lock, flags);
	refcount_inc(&odp->mr->users);
	if (!queue_work(system_unbound_wq, &odp->work))
		pib_mr_put(odp->mr);
}

/*
 * Are the pages of [@uva, @uva + @len) in pib's table (writable for
 * @write)? Return: 0; -EAGAIN if not; -EFAULT if not, and the last fault
 * there failed lately (once: the next access asks for a fault again). Called
 * with odp->lock held.
 */
static int pib_odp_resident(struct pib_odp *odp, u64 uva, u32 len,
			    bool write)
{
	unsigned long want = PIB_ODP_PRESENT | (write ? PIB_ODP_WRITABLE : 0);
	unsigned long i, last = pib_odp_index(odp, uva + len - 1);

	for (i = pib_odp_index(odp, uva); i <= last; i++)
		if ((odp->pages[i] & want) != want)
			break;
	if (i > last)
		return 0;
	uva = ib_umem_start(odp->umem) + ((u64)i << PAGE_SHIFT);
	if (uva >= odp->failed_lo && uva < odp->failed_hi &&
	    time_before(jiffies, odp->failed_at +
			msecs_to_jiffies(PIB_ODP_FAILED_MS))) {
		odp->failed_lo = 0;
		odp->failed_hi = 0;
		return -EFAULT;
	}
	return -EAGAIN;
}

/**
 * pib_odp_copy() - move bytes between a buffer and an ODP MR, if its
 *	pages are there
 * @odp: the MR's ODP state
 * @off: the offset in the MR
 * @buf: the kernel buffer
 * @len: bytes, at least 1, within the MR
 * @to_mr: copy @buf into the MR, else the MR into @buf
 *
 * Return: 0; -EAGAIN if a page is not there (its fault is under way: try
 * again later); -EFAULT if the memory cannot be faulted in.
 */
int pib_odp_copy(struct pib_odp *odp, u64 off, void *buf, u32 len,
		 bool to_mr)
{
	u64 uva = odp->umem->umem.address + off;
	unsigned long flags;
	u32 in, n;
	void *p;
	int err;

	spin_lock_irqsave(&odp->lock, flags);
	err = pib_odp_resident(odp, uva, len, to_mr);
	for (; !err && len; len -= n, uva += n, buf += n) {
		in = offset_in_page(uva);
		n = min_t(u32, len, PAGE_SIZE - in);
		p = kmap_local_page((struct page *)(odp->pages[pib_odp_index(odp, uva)] &
						    ~PIB_ODP_FLAGS));
		if (to_mr)
			memcpy(p + in, buf, n);
		else
			memcpy(buf, p + in, n);
		kunmap_local(p);
	}
	spin_unlock_irqrestore(&odp->lock, flags);
	if (err == -EAGAIN)
		pib_odp_want(odp, uva, len, to_mr);
	return err;
}

/*
 * The most of a range pib_odp_check() looks at, with interrupts off: the
 * fault it asks for covers all of it.
 */
#define PIB_ODP_CHECK_MAX	(1024 * 1024)

/**
 * pib_odp_check() - are an ODP MR's pages there for reading?
 * @odp: the MR's ODP state
 * @off: the offset in the MR
 * @len: bytes, at least 1, within the MR
 *
 * A READ's responder looks before it takes the request, so that it can
 * answer with an RNR NAK (the first PIB_ODP_CHECK_MAX bytes; a page
 * missing further on is found when the response gets there).
 *
 * Return: 0, -EAGAIN (a fault is under way), or -EFAULT.
 */
int pib_odp_check(struct pib_odp *odp, u64 off, u32 len)
{
	u64 uva = odp->umem->umem.address + off;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&odp->lock, flags);
	err = pib_odp_resident(odp, uva, min_t(u32, len, PIB_ODP_CHECK_MAX),
			       false);
	spin_unlock_irqrestore(&odp->lock, flags);
	if (err == -EAGAIN)
		pib_odp_want(odp, uva, len, false);
	return err;
}

/**
 * pib_odp_reg() - the ODP part of registering a user MR
 * @dev: the device
 * @mr: the MR, not yet published
 * @start: the memory's address in the calling process
 * @length: its length
 * @access: IB_ACCESS_* flags, IB_ACCESS_ON_DEMAND among them
 *
 * Nothing is faulted in: the first access does that, or ibv_advise_mr().
 *
 * Return: 0, or a negative errno.
 */
int pib_odp_reg(struct pib_dev *dev, struct pib_mr *mr, u64 start,
		u64 length, int access)
{
	struct ib_umem_odp *umem;
	struct pib_odp *odp;

	odp = kzalloc(sizeof(*odp), PIB_GFP_USER);
	if (!odp)
		return -ENOMEM;
	umem = ib_umem_odp_get(&dev->ibdev, start, length, access, &pib_odp_ops);
	if (IS_ERR(umem)) {
		kfree(odp);
		return pib_refuse(&dev->ibdev, PTR_ERR(umem),
				  "reg_mr: ODP over %llu bytes at 0x%llx",
				  length, start);
	}
	odp->umem = umem;
	odp->mr = mr;
	odp->npages = ib_umem_odp_num_pages(umem);
	spin_lock_init(&odp->lock);
	INIT_WORK(&odp->work, pib_odp_work);
	odp->pages = kvcalloc(odp->npages, sizeof(*odp->pages), PIB_GFP_USER);
	if (!odp->pages) {
		ib_umem_odp_release(umem);
		kfree(odp);
		return -ENOMEM;
	}
	/* Under the mutex the notifier takes: from here on it sees @odp. */
	mutex_lock(&umem->umem_mutex);
	umem->private = odp;
	mutex_unlock(&umem->umem_mutex);
	mr->odp = odp;
	return 0;
}

/**
 * pib_odp_release() - undo pib_odp_reg(), once the MR is in no access
 * @mr: the MR
 *
 * Every fault the work had to do held a reference to the MR, so none is
 * left. The core unmaps the pages and removes the notifier.
 */
void pib_odp_release(struct pib_mr *mr)
{
	struct pib_odp *odp = mr->odp;

	if (!odp)
		return;
	cancel_work_sync(&odp->work);
	ib_umem_odp_release(odp->umem);
	kvfree(odp->pages);
	kfree(odp);
	mr->odp = NULL;
}

/* One SGE of an advice: an ODP MR's range, prefetched. */
static int pib_odp_advise_sge(struct pib_dev *dev, struct ib_pd *pd,
			      enum ib_uverbs_advise_mr_advice advice, u32 flags,
			      const struct ib_sge *sge)
{
	bool write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	struct pib_mr *mr = pib_mr_get(dev, pd, sge->lkey);
	u64 uva;
	int err = 0;

	if (!mr)
		return -ENOENT;
	if (!mr->odp || !sge->length ||
	    !pib_mr_allows(mr, sge->addr, sge->length,
			   write ? IB_ACCESS_LOCAL_WRITE : 0)) {
		err = -EINVAL;
	} else {
		uva = mr->odp->umem->umem.address + (sge->addr - mr->ibmr.iova);
		if (fault && !(flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH))
			pib_odp_want(mr->odp, uva, sge->length, write);
		else
			err = pib_odp_map(mr->odp, uva, sge->length, write, fault);
	}
	pib_mr_put(mr);
	return err;
}

/**
 * pib_advise_mr() - the advise_mr verb: prefetch ranges of ODP MRs
 * @pd: the PD the MRs must belong to
 * @advice: IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH (for reading), _WRITE, or
 *	_NO_FAULT (enter only the pages that are there already)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH: done before the call returns
 * @sg_list: the ranges, by L_Key
 * @num_sge: entries of @sg_list
 * @attrs: the uverbs call
 *
 * Return: 0; -ENOENT for an L_Key of no MR of @pd; -EINVAL for a range
 * outside its MR, of an MR without ODP, or to write without local write
 * access; or the error of a synchronous fault.
 */
int pib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		  u32 flags, struct ib_sge *sg_list, u32 num_sge,
		  struct uverbs_attr_bundle *attrs)
{
	struct pib_dev *dev = to_pib_dev(pd->device);
	u32 i;
	int err;

	if (advice > IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT ||
	    flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return pib_refuse(&dev->ibdev, -EOPNOTSUPP,
				  "advise_mr: advice %d flags 0x%x", advice,
				  flags);
	for (i = 0; i < num_sge; i++) {
		err = pib_odp_advise_sge(dev, pd, advice, flags, &sg_list[i]);
		if (err)
			return err;
	}
	return 0;
}
