// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A device's objects and its switch's forwarding tables as text, one line
 * each, in /sys/kernel/debug/pib/<device>/: ctx, pd, ah, cq, srq, qp, mr,
 * mcast, lft and mft. Each line ends with the process that created the
 * object (pid 0 and the module's name for a kernel consumer's).
 *
 * Contexts, PDs, AHs, CQs and SRQs are on lists of the device's
 * (pib_obj_add()), QPs and MRs in the tables the data path looks them up
 * in. Each file reads its objects under the lock that destroying one
 * takes to leave the list or table, so an object stays whole while its
 * line is written; the lines go to the seq_file's buffer, which is copied
 * to the reader once the lock is dropped.
 */
#include <linux/debugfs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

#include "pib.h"

/**
 * pib_owner_set() - note who creates an object
 * @o: filled in
 * @user: a process creates it (through uverbs)
 * @kern_name: else the kernel consumer's name, if the core knows it
 */
void pib_owner_set(struct pib_owner *o, bool user, const char *kern_name)
{
	if (user) {
		o->pid = task_tgid_nr(current);
		get_task_comm(o->comm, current);
	} else {
		o->pid = 0;
		strscpy(o->comm, kern_name ?: "kernel", sizeof(o->comm));
	}
}

/**
 * pib_obj_add() - put a created object on its device's debugfs list
 * @dev: the device
 * @type: which list
 * @e: the object's entry
 * @user: a process creates it
 * @kern_name: else the kernel consumer's name, or NULL
 *
 * May be called in atomic context (create_ah).
 */
void pib_obj_add(struct pib_dev *dev, enum pib_obj type,
		 struct pib_obj_entry *e, bool user, const char *kern_name)
{
	unsigned long flags;

	pib_owner_set(&e->owner, user, kern_name);
	spin_lock_irqsave(&dev->objs_lock, flags);
	list_add_tail(&e->node, &dev->objs[type]);
	spin_unlock_irqrestore(&dev->objs_lock, flags);
}

/**
 * pib_obj_del() - take an object off its list, before it goes
 * @dev: the device
 * @e: the object's entry
 *
 * Once this returns, no reader of the list looks at the object.
 */
void pib_obj_del(struct pib_dev *dev, struct pib_obj_entry *e)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->objs_lock, flags);
	list_del(&e->node);
	spin_unlock_irqrestore(&dev->objs_lock, flags);
}

static void pib_owner_show(struct seq_file *m, const struct pib_owner *o)
{
	seq_printf(m, " pid %d comm %s\n", o->pid, o->comm);
}

static void pib_ctx_line(struct seq_file *m, struct pib_obj_entry *e)
{
	struct pib_ucontext *uc = container_of(e, struct pib_ucontext, obj);

	seq_printf(m, "ctxn %u", uc->ibuc.res.id);
}

static void pib_pd_line(struct seq_file *m, struct pib_obj_entry *e)
{
	struct pib_pd *pd = container_of(e, struct pib_pd, obj);

	seq_printf(m, "pdn %u users %d", pd->ibpd.res.id,
		   atomic_read(&pd->ibpd.usecnt));
}

static void pib_ah_line(struct seq_file *m, struct pib_obj_entry *e)
{
	struct pib_ah *ah = container_of(e, struct pib_ah, obj);
	const struct rdma_ah_attr *a = &ah->attr;
	const struct ib_global_route *grh = rdma_ah_read_grh(a);

	seq_printf(m, "pdn %u dlid 0x%x sl %u path_bits %u static_rate %u",
		   ah->ibah.pd->res.id, rdma_ah_get_dlid(a), rdma_ah_get_sl(a),
		   rdma_ah_get_path_bits(a), rdma_ah_get_static_rate(a));
	if (rdma_ah_get_ah_flags(a) & IB_AH_GRH)
		seq_printf(m, " dgid %pI6 sgid_index %u hop_limit %u traffic_class %u flow_label 0x%x",
			   grh->dgid.raw, grh->sgid_index, grh->hop_limit,
			   grh->traffic_class, grh->flow_label);
}

static void pib_cq_line(struct seq_file *m, struct pib_obj_entry *e)
{
	struct pib_cq *cq = container_of(e, struct pib_cq, obj);

	seq_printf(m, "cqn %u cqe %d", cq->ibcq.res.id, cq->ibcq.cqe);
	pib_res_cq_show(m, cq);
}

static void pib_srq_line(struct seq_file *m, struct pib_obj_entry *e)
{
	struct pib_srq *srq = container_of(e, struct pib_srq, obj);
	unsigned long flags;
	u32 fill, limit;

	spin_lock_irqsave(&srq->lock, flags);
	fill = pib_ring_avail(&srq->ring, srq->ring.cons);
	limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	seq_printf(m, "srqn %u pdn %u depth %u fill %u max_sge %u limit %u",
		   srq->ibsrq.res.id, srq->ibsrq.pd->res.id, srq->ring.num,
		   fill, srq->max_sge, limit);
}

/* How each list's objects are written. */
static void (* const pib_obj_lines[PIB_NUM_OBJS])(struct seq_file *m,
						   struct pib_obj_entry *e) = {
	[PIB_OBJ_CTX] = pib_ctx_line,
	[PIB_OBJ_PD] = pib_pd_line,
	[PIB_OBJ_AH] = pib_ah_line,
	[PIB_OBJ_CQ] = pib_cq_line,
	[PIB_OBJ_SRQ] = pib_srq_line,
};

/* A list's objects, one line each. */
static void pib_objs_show(struct seq_file *m, struct pib_dev *dev,
			  enum pib_obj type)
{
	struct pib_obj_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&dev->objs_lock, flags);
	list_for_each_entry(e, &dev->objs[type], node) {
		pib_obj_lines[type](m, e);
		pib_owner_show(m, &e->owner);
	}
	spin_unlock_irqrestore(&dev->objs_lock, flags);
}

#define PIB_DBG_OBJS(name, type)					\
static int pib_dbg_##name##_show(struct seq_file *m, void *unused)	\
{									\
	pib_objs_show(m, m->private, type);				\
	return 0;							\
}									\
DEFINE_SHOW_ATTRIBUTE(pib_dbg_##name)

PIB_DBG_OBJS(ctx, PIB_OBJ_CTX);
PIB_DBG_OBJS(pd, PIB_OBJ_PD);
PIB_DBG_OBJS(ah, PIB_OBJ_AH);
PIB_DBG_OBJS(cq, PIB_OBJ_CQ);
PIB_DBG_OBJS(srq, PIB_OBJ_SRQ);

/* A QP's line: what modify_qp set, then the transport (pib_restrack.c). */
static void pib_qp_line(struct seq_file *m, struct pib_qp *qp)
{
	struct ib_qp *ibqp = &qp->ibqp;
	unsigned long flags;
	enum ib_qp_state state;
	u32 dest_qpn, mtu;
	u16 dlid;

	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	dest_qpn = qp->dest_qpn;
	dlid = qp->av.dlid;
	mtu = qp->mtu;
	spin_unlock_irqrestore(&qp->lock, flags);
	seq_printf(m, "qpn 0x%x type %s state %s pdn %u send_cqn %u recv_cqn %u",
		   ibqp->qp_num, pib_qp_type_name(ibqp->qp_type),
		   pib_qp_state_name(state), ibqp->pd ? ibqp->pd->res.id : 0,
		   ibqp->send_cq ? ibqp->send_cq->res.id : 0,
		   ibqp->recv_cq ? ibqp->recv_cq->res.id : 0);
	if (ibqp->srq)
		seq_printf(m, " srqn %u", ibqp->srq->res.id);
	if (pib_qp_rc(qp) || ibqp->qp_type == IB_QPT_UC)
		seq_printf(m, " dest_qpn 0x%x dlid 0x%x path_mtu %u", dest_qpn,
			   dlid, mtu);
	pib_res_qp_show(m, qp);
	pib_owner_show(m, &qp->owner);
}

static int pib_dbg_qp_show(struct seq_file *m, void *unused)
{
	struct pib_dev *dev = m->private;
	struct pib_qp *qp;
	unsigned long i;

	/* QP0 and QP1 go after a grace period (pib_destroy_qp()). */
	rcu_read_lock();
	for (i = 0; i < PIB_NUM_SPECIAL_QPS; i++) {
		qp = rcu_dereference(dev->special_qp[i]);
		if (qp)
			pib_qp_line(m, qp);
	}
	rcu_read_unlock();
	xa_lock(&dev->qps);
	xa_for_each(&dev->qps, i, qp)
		pib_qp_line(m, qp);
	xa_unlock(&dev->qps);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_dbg_qp);

static int pib_dbg_mr_show(struct seq_file *m, void *unused)
{
	struct pib_dev *dev = m->private;
	struct pib_mr *mr;
	struct ib_pd *pd;
	unsigned long i;

	xa_lock(&dev->mrs);
	xa_for_each(&dev->mrs, i, mr) {
		/* (the core sets an MR's PD once registration returns) */
		pd = READ_ONCE(mr->ibmr.pd);
		seq_printf(m, "pdn %d length %llu", pd ? (int)pd->res.id : -1,
			   mr->ibmr.length);
		pib_res_mr_show(m, mr);
		pib_owner_show(m, &mr->owner);
	}
	xa_unlock(&dev->mrs);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_dbg_mr);

static int pib_dbg_mcast_show(struct seq_file *m, void *unused)
{
	pib_mcast_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_dbg_mcast);

static int pib_dbg_lft_show(struct seq_file *m, void *unused)
{
	pib_switch_show_lft(m, ((struct pib_dev *)m->private)->sw);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_dbg_lft);

static int pib_dbg_mft_show(struct seq_file *m, void *unused)
{
	pib_switch_show_mft(m, ((struct pib_dev *)m->private)->sw);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_dbg_mft);

/**
 * struct pib_dbg_file - a file of the device's debugfs directory
 * @name: its name
 * @fops: how it is read
 */
struct pib_dbg_file {
	const char *name;
	const struct file_operations *fops;
};

static const struct pib_dbg_file pib_dbg_files[] = {
	{ "ctx", &pib_dbg_ctx_fops },
	{ "pd", &pib_dbg_pd_fops },
	{ "ah", &pib_dbg_ah_fops },
	{ "cq", &pib_dbg_cq_fops },
	{ "srq", &pib_dbg_srq_fops },
	{ "qp", &pib_dbg_qp_fops },
	{ "mr", &pib_dbg_mr_fops },
	{ "mcast", &pib_dbg_mcast_fops },
	{ "lft", &pib_dbg_lft_fops },
	{ "mft", &pib_dbg_mft_fops },
};

/**
 * pib_debugfs_dev_add() - the object and table files of a registered device
 * @dev: the device, with its debugfs directory
 *
 * debugfs waits for a read in progress before the directory goes
 * (pib_capture_dev_remove()), and the device's switch stays until then.
 */
void pib_debugfs_dev_add(struct pib_dev *dev)
{
	const struct pib_dbg_file *f;

	for (f = pib_dbg_files; f < pib_dbg_files + ARRAY_SIZE(pib_dbg_files); f++)
		debugfs_create_file(f->name, 0400, dev->debugfs, dev, f->fops);
}
