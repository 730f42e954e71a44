// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows (IBA 10.6.7.3, 10.6.7.2.x): an R_Key onto a part of a user
 * MR, which a peer may use as the window allows. A window is a pib_mr of
 * type PIB_MR_MW in the device's MR table, so its R_Key is looked up like
 * an MR's; pib_mw_target() turns an access through it into one of the MR
 * it is bound to.
 *
 * Type 1 windows are bound with ibv_bind_mw(), type 2 with a BIND_MW work
 * request, and both binds run when the requester reaches them, as REG_MR
 * does. A type 2 window belongs to the QP that bound it: only that QP's
 * peer may use its R_Key, and LOCAL_INV or SEND_WITH_INV on that QP
 * unbind it. A type 1 window is unbound by a bind of length 0.
 *
 * An MR with windows bound to it cannot be deregistered (-EBUSY); a window
 * holds no reference on it, and an access through a window takes one on
 * the MR under the window's lock, so unbinding and deregistering wait for
 * no one and free nothing in use.
 */
#include <linux/slab.h>

#include "pib.h"

/* The access flags a bind may ask for (local write means nothing there). */
#define PIB_MW_ACCESS	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_ATOMIC | IB_ZERO_BASED | \
			 IB_ACCESS_LOCAL_WRITE)
#define PIB_MW_REMOTE	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_ATOMIC)

/**
 * pib_alloc_mw() - the alloc_mw verb
 * @ibmw: the MW, allocated by the RDMA core, its type and PD set
 * @udata: the user's call
 *
 * Return: 0, or a negative errno.
 */
int pib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct pib_dev *dev = to_pib_dev(ibmw->device);
	struct pib_mw *mw = to_pib_mw(ibmw);
	struct pib_mr *mr;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return pib_refuse(ibmw->device, -EOPNOTSUPP,
				  "alloc_mw: type %d (pib has 1 and 2)", ibmw->type);
	mr = pib_mr_alloc(dev, ibmw->pd, PIB_MR_MW, 0);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	mr->ibmr.device = ibmw->device;
	mr->ibmr.pd = ibmw->pd;
	mr->mw_type = ibmw->type;
	if (ibmw->type == IB_MW_TYPE_2)
		atomic_inc(&dev->mw2_count);
	mw->mr = mr;
	ibmw->rkey = mr->key;
	pib_mr_publish(dev, mr);
	return 0;
}

/* Unbind @mw (its lock held): the MR it was bound to, or NULL. */
static struct pib_mr *pib_mw_unbind_locked(struct pib_mr *mw)
{
	struct pib_mr *parent = mw->parent;

	WRITE_ONCE(mw->valid, false);
	mw->parent = NULL;
	mw->ibmr.length = 0;
	mw->access = 0;
	return parent;
}

/* Drop a binding's hold on @parent (from pib_mw_unbind_locked()). */
static void pib_mw_release(struct pib_mr *parent)
{
	if (parent)
		atomic_dec(&parent->bound_mws);
}

/**
 * pib_dealloc_mw() - the dealloc_mw verb: unbind and free the window
 * @ibmw: the MW
 *
 * Out of the table first, once no access or bind uses it (each holds a
 * reference): no bind can then make it hold an MR that it would never let
 * go.
 *
 * Return: 0.
 */
int pib_dealloc_mw(struct ib_mw *ibmw)
{
	struct pib_dev *dev = to_pib_dev(ibmw->device);
	struct pib_mr *mw = to_pib_mw(ibmw)->mr;
	struct pib_mr *parent;
	unsigned long flags;

	pib_mr_unpublish(dev, mw);
	/* (pib_mw_qp_gone() may still see it, under RCU) */
	spin_lock_irqsave(&mw->mw_lock, flags);
	parent = pib_mw_unbind_locked(mw);
	spin_unlock_irqrestore(&mw->mw_lock, flags);
	pib_mw_release(parent);
	if (mw->mw_type == IB_MW_TYPE_2)
		atomic_dec(&dev->mw2_count);
	pib_mr_release(dev, mw);
	return 0;
}

/**
 * pib_mw_qp_gone() - unbind the type 2 windows bound to a QP that goes
 * @dev: the device
 * @qp: the QP, which runs no more binds (its work is cancelled)
 *
 * Its windows' R_Keys then name nothing, as the IBA has it; and no later
 * QP at the same address finds windows that were bound to this one.
 */
void pib_mw_qp_gone(struct pib_dev *dev, const struct pib_qp *qp)
{
	struct pib_mr *mw, *parent;
	unsigned long index, flags;

	if (!atomic_read(&dev->mw2_count))
		return;
	rcu_read_lock();
	xa_for_each(&dev->mrs, index, mw) {
		if (mw->type != PIB_MR_MW || mw->mw_type != IB_MW_TYPE_2 ||
		    READ_ONCE(mw->qp) != qp)
			continue;
		parent = NULL;
		spin_lock_irqsave(&mw->mw_lock, flags);
		if (mw->qp == qp) {
			parent = pib_mw_unbind_locked(mw);
			mw->qp = NULL;
		}
		spin_unlock_irqrestore(&mw->mw_lock, flags);
		pib_mw_release(parent);
	}
	rcu_read_unlock();
}

/**
 * pib_mw_invalidate() - LOCAL_INV or SEND_WITH_INV of a window's R_Key
 * @mw: the window (a reference held), valid when looked up
 * @qp: the QP of the work request or the message
 *
 * Return: 0, or -EACCES for a type 1 window (a bind of length 0 unbinds
 * those) or a type 2 window bound to another QP.
 */
int pib_mw_invalidate(struct pib_mr *mw, const struct pib_qp *qp)
{
	struct pib_mr *parent = NULL;
	unsigned long flags;
	int err = -EACCES;

	spin_lock_irqsave(&mw->mw_lock, flags);
	if (mw->mw_type == IB_MW_TYPE_2 && mw->qp == qp && mw->valid) {
		parent = pib_mw_unbind_locked(mw);
		err = 0;
	}
	spin_unlock_irqrestore(&mw->mw_lock, flags);
	pib_mw_release(parent);
	return err;
}

/**
 * pib_mw_target() - the MR behind an access through a window
 * @mw: the window, with the reference pib_mr_get() took, which this drops
 * @qp: the QP the access came by
 * @va: the address in the window; made the MR's
 * @len: bytes
 * @access: IB_ACCESS_* the access needs (a remote one)
 *
 * Return: the MR with a reference held (pib_mr_put()), or NULL if the
 * window is not bound, not to @qp (type 2), or does not allow the access.
 */
struct pib_mr *pib_mw_target(struct pib_mr *mw, const struct pib_qp *qp,
			     u64 *va, u64 len, int access)
{
	struct pib_mr *mr = NULL;
	unsigned long flags;

	spin_lock_irqsave(&mw->mw_lock, flags);
	if ((access & PIB_MW_REMOTE) && mw->valid && mw->parent &&
	    (mw->mw_type == IB_MW_TYPE_1 || mw->qp == qp) &&
	    pib_mr_allows(mw, *va, len, access) &&
	    refcount_inc_not_zero(&mw->parent->users)) {
		mr = mw->parent;
		*va = *va - mw->ibmr.iova + mw->parent_va;
	}
	spin_unlock_irqrestore(&mw->mw_lock, flags);
	pib_mr_put(mw);
	return mr;
}

/*
 * The window whose R_Key has @rkey's index, in @pd, bound or not, with a
 * reference held. Not the key byte: the provider moves a window's R_Key
 * on when it posts a bind, which may then fail and leave the window's.
 */
static struct pib_mr *pib_mw_get(struct pib_dev *dev, struct ib_pd *pd,
				 u32 rkey)
{
	struct pib_mr *mw;

	rcu_read_lock();
	mw = xa_load(&dev->mrs, rkey >> PIB_MR_KEY_SHIFT);
	if (mw && (mw->type != PIB_MR_MW || mw->ibmr.pd != pd ||
		   !refcount_inc_not_zero(&mw->users)))
		mw = NULL;
	rcu_read_unlock();
	return mw;
}

/*
 * May @wqe bind @mw? The IBA's rules (C10-72 to C10-75, o10-36.2.2,
 * o10-37.2.30, o10-37.2.40), but for the MR, which pib_mw_take() checks.
 */
static bool pib_mw_bind_ok(const struct pib_mr *mw,
			   const struct pib_send_wqe *wqe, int access)
{
	bool type1 = wqe->wr.bind.flags & PIB_BIND_TYPE_1;
	bool is_type1 = mw->mw_type == IB_MW_TYPE_1;

	if (type1 != is_type1 ||
	    (wqe->wr.bind.flags & ~PIB_BIND_TYPE_1) ||
	    (access & ~PIB_MW_ACCESS) ||
	    (wqe->wr.bind.rkey >> PIB_MR_KEY_SHIFT) !=
	    (wqe->wr.bind.mw_rkey >> PIB_MR_KEY_SHIFT))
		return false;
	if (type1)
		return !(access & IB_ZERO_BASED);
	return !mw->valid && wqe->wr.bind.length;
}

/*
 * The MR of the bind's L_Key, in the QP's PD, that allows windows onto
 * [addr, addr + length) with @access; counted as bound, under the
 * device's mw_lock, so that deregistration either sees the window or the
 * bind sees no MR.
 */
static struct pib_mr *pib_mw_take(struct pib_dev *dev, struct ib_pd *pd,
				  const struct pib_send_wqe *wqe, int access)
{
	u64 addr = wqe->wr.bind.addr, len = wqe->wr.bind.length;
	struct pib_mr *mr;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&dev->mw_lock, flags);
	mr = pib_mr_get(dev, pd, wqe->wr.bind.lkey);
	ok = mr && mr->type == PIB_MR_USER && (mr->access & IB_ACCESS_MW_BIND) &&
	     (!(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
	      (mr->access & IB_ACCESS_LOCAL_WRITE)) &&
	     pib_mr_allows(mr, addr, len, 0);
	if (ok)
		atomic_inc(&mr->bound_mws);
	spin_unlock_irqrestore(&dev->mw_lock, flags);
	if (mr)
		pib_mr_put(mr);
	return ok ? mr : NULL;
}

/**
 * pib_mw_bind() - run a BIND_MW WQE
 * @qp: the QP (RC or UC) whose requester reached it
 * @wqe: the WQE, a checked copy
 *
 * Binds the window to [addr, addr + length) of the MR (a type 1 window
 * with length 0: unbinds it), with the access flags and new R_Key the
 * WQE gives; a type 2 window to @qp too.
 *
 * Return: 0, or -EINVAL if the IBA's rules do not allow the bind (the
 * completion's status is then IB_WC_MW_BIND_ERR).
 */
int pib_mw_bind(struct pib_qp *qp, const struct pib_send_wqe *wqe)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct pib_mr *mw, *mr = NULL, *old = NULL;
	int access = wqe->wr.bind.access;
	unsigned long flags;
	int err = -EINVAL;

	mw = pib_mw_get(dev, qp->ibqp.pd, wqe->wr.bind.mw_rkey);
	if (!mw)
		return err;
	if (wqe->wr.bind.length) {
		mr = pib_mw_take(dev, qp->ibqp.pd, wqe, access);
		if (!mr)
			goto out;
	}
	spin_lock_irqsave(&mw->mw_lock, flags);
	if (pib_mw_bind_ok(mw, wqe, access)) {
		old = pib_mw_unbind_locked(mw);
		WRITE_ONCE(mw->key, wqe->wr.bind.rkey);
		if (mr) {
			mw->parent = mr;
			mw->parent_va = wqe->wr.bind.addr;
			mw->ibmr.iova = access & IB_ZERO_BASED ? 0 : wqe->wr.bind.addr;
			mw->ibmr.length = wqe->wr.bind.length;
			mw->access = access & PIB_MW_REMOTE;
			mw->qp = mw->mw_type == IB_MW_TYPE_2 ? qp : NULL;
			WRITE_ONCE(mw->valid, true);
			mr = NULL;	/* the window holds it now */
		}
		err = 0;
	}
	spin_unlock_irqrestore(&mw->mw_lock, flags);
	pib_mw_release(old);
	pib_mw_release(mr);
out:
	pib_mr_put(mw);
	return err;
}
