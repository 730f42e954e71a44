// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast: UD QPs attached to groups (MGID, MLID), and delivery of a
 * multicast datagram to every QP attached to its MLID. The switch's MFT,
 * which the SM programs, decides which hosts and ports a group reaches.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "pib.h"

/**
 * struct pib_mcast_attach - one QP attached to one group
 * @dev_node: on the device's list (RCU)
 * @qp_node: on the QP's list
 * @qp: the QP
 * @gid: the group's MGID
 * @mlid: the group's MLID
 * @rcu: freed after readers are done
 */
struct pib_mcast_attach {
	struct list_head dev_node;
	struct list_head qp_node;
	struct pib_qp *qp;
	union ib_gid gid;
	u16 mlid;
	struct rcu_head rcu;
};

static unsigned int pib_qp_mcast_count(struct pib_qp *qp)
{
	struct pib_mcast_attach *a;
	unsigned int n = 0;

	list_for_each_entry(a, &qp->mcast, qp_node)
		n++;
	return n;
}

static struct pib_mcast_attach *pib_mcast_find(struct pib_qp *qp,
					       const union ib_gid *gid, u16 lid)
{
	struct pib_mcast_attach *a;

	list_for_each_entry(a, &qp->mcast, qp_node)
		if (a->mlid == lid && !memcmp(&a->gid, gid, sizeof(*gid)))
			return a;
	return NULL;
}

/**
 * pib_attach_mcast() - the attach_mcast verb
 * @ibqp: a UD QP
 * @gid: the multicast group's GID
 * @lid: the group's multicast LID
 *
 * Return: 0, or a negative errno.
 */
int pib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct pib_dev *dev = to_pib_dev(ibqp->device);
	struct pib_qp *qp = to_pib_qp(ibqp);
	struct pib_mcast_attach *a;
	int err;

	err = pib_inject_verb_fail(dev, PIB_INJ_ATTACH_MCAST);
	if (err)
		return err;
	if (ibqp->qp_type != IB_QPT_UD)
		return pib_refuse(ibqp->device, -EOPNOTSUPP,
				  "attach_mcast: QP 0x%x is not UD", ibqp->qp_num);
	if (lid < PIB_LID_MCAST || lid == PIB_PERMISSIVE_LID ||
	    gid->raw[0] != 0xff)
		return pib_refuse(ibqp->device, -EINVAL,
				  "attach_mcast: QP 0x%x: LID 0x%x, GID %pI6: not multicast",
				  ibqp->qp_num, lid, gid->raw);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->qp = qp;
	a->gid = *gid;
	a->mlid = lid;
	spin_lock_bh(&dev->mcast_lock);
	if (pib_mcast_find(qp, gid, lid))
		goto out;	/* attached already: nothing to do */
	if (pib_qp_mcast_count(qp) >= PIB_MAX_MCAST_QP_ATTACH ||
	    atomic_read(&dev->mcast_count) >= PIB_MAX_MCAST_ATTACH) {
		err = pib_refuse(ibqp->device, -ENOMEM,
				 "attach_mcast: QP 0x%x: %u groups a QP, %u a device at most",
				 ibqp->qp_num, PIB_MAX_MCAST_QP_ATTACH,
				 PIB_MAX_MCAST_ATTACH);
		goto out;
	}
	atomic_inc(&dev->mcast_count);
	list_add_tail(&a->qp_node, &qp->mcast);
	list_add_tail_rcu(&a->dev_node, &dev->mcast);
	a = NULL;
out:
	spin_unlock_bh(&dev->mcast_lock);
	kfree(a);
	return err;
}

static void pib_mcast_unlink(struct pib_dev *dev, struct pib_mcast_attach *a)
{
	list_del(&a->qp_node);
	list_del_rcu(&a->dev_node);
	atomic_dec(&dev->mcast_count);
	kfree_rcu(a, rcu);
}

/**
 * pib_detach_mcast() - the detach_mcast verb
 * @ibqp: the QP
 * @gid: the multicast group's GID
 * @lid: the group's multicast LID
 *
 * Return: 0, or -EINVAL if @ibqp is not attached to the group.
 */
int pib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct pib_dev *dev = to_pib_dev(ibqp->device);
	struct pib_mcast_attach *a;
	int err = -EINVAL;

	spin_lock_bh(&dev->mcast_lock);
	a = pib_mcast_find(to_pib_qp(ibqp), gid, lid);
	if (a) {
		pib_mcast_unlink(dev, a);
		err = 0;
	}
	spin_unlock_bh(&dev->mcast_lock);
	if (err)
		pib_refuse(ibqp->device, err,
			   "detach_mcast: QP 0x%x is not attached to LID 0x%x, GID %pI6",
			   ibqp->qp_num, lid, gid->raw);
	return err;
}

/**
 * pib_mcast_detach_all() - detach a QP that is going away from its groups
 * @qp: the QP
 */
void pib_mcast_detach_all(struct pib_qp *qp)
{
	struct pib_dev *dev = to_pib_dev(qp->ibqp.device);
	struct pib_mcast_attach *a, *tmp;

	spin_lock_bh(&dev->mcast_lock);
	list_for_each_entry_safe(a, tmp, &qp->mcast, qp_node)
		pib_mcast_unlink(dev, a);
	spin_unlock_bh(&dev->mcast_lock);
}

/**
 * pib_mcast_deliver() - a multicast datagram to the QPs attached to its group
 * @dev: the device
 * @pkt: the parsed packet
 * @buf: its bytes
 *
 * A QP gets the datagram if it attached to the group the packet names: its
 * MLID, and its MGID in the GRH (a multicast packet without one names no
 * group). And only if its P_Key lets it (IBA 10.9.3): the same partition, and not a
 * limited member hearing another limited member. Called under RCU.
 */
void pib_mcast_deliver(struct pib_dev *dev, const struct pib_pkt *pkt,
		       const u8 *buf)
{
	struct pib_mcast_attach *a;
	bool group = false;
	u16 index;

	if (pkt->lrh.lnh != PIB_LNH_IBA_GLOBAL) {
		pib_drop(dev, buf, pkt->len, PIB_DROP_MCAST_GID, 0);
		return;
	}
	list_for_each_entry_rcu(a, &dev->mcast, dev_node) {
		if (a->mlid != pkt->lrh.dlid ||
		    memcmp(a->gid.raw, pkt->grh.dgid, sizeof(a->gid.raw)))
			continue;
		group = true;
		index = READ_ONCE(a->qp->pkey_index);
		if (!pib_pkey_match(READ_ONCE(dev->port.pkeys[index]),
				    pkt->bth.pkey)) {
			pib_drop(dev, buf, pkt->len, PIB_DROP_PKEY, 0);
			continue;
		}
		pib_resp_ud(a->qp, pkt, buf, 0, index);
	}
	if (!group)
		pib_drop(dev, buf, pkt->len, PIB_DROP_MCAST_GID, 0);
}

/**
 * pib_mcast_show() - the device's multicast attachments, one line each
 * @m: debugfs's file (pib_debugfs.c)
 * @dev: the device
 */
void pib_mcast_show(struct seq_file *m, struct pib_dev *dev)
{
	struct pib_mcast_attach *a;

	spin_lock_bh(&dev->mcast_lock);
	list_for_each_entry(a, &dev->mcast, dev_node)
		seq_printf(m, "mgid %pI6 mlid 0x%x qpn 0x%x\n", a->gid.raw,
			   a->mlid, a->qp->ibqp.qp_num);
	spin_unlock_bh(&dev->mcast_lock);
}
