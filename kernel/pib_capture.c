// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packet capture: /sys/kernel/debug/pib/<device>/capture streams, as
 * pcapng (pib_pcapng.h), every packet the device sends or receives, those
 * between devices of one host that never reach a wire included, while it
 * is open:
 *
 *	cat /sys/kernel/debug/pib/pibeth0/capture > pibeth0.pcapng
 *
 * Each open is a capture of its own with a ring of PIB_CAPTURE_RING bytes,
 * fed by probes on the pib_pkt_tx and pib_pkt_rx tracepoints (so a device
 * nobody captures pays nothing). A packet the ring has no room for is
 * dropped from the capture and counted (`capture_drops`); a reader that
 * keeps up loses nothing. When the device goes away, readers get the
 * rest, then end of file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "pib.h"
#include "pib_pcapng.h"
#include "pib_trace.h"

#define PIB_CAPTURE_RING	(4U << 20)	/* a power of two */
#define PIB_CAPTURE_MAX		4		/* open captures per device */

/**
 * struct pib_capture - one open capture file
 * @list: in the device's captures, while the device lives
 * @dev: the device, NULL once it went away; compared only, not followed,
 *	by the probes
 * @lock: the ring and @dev
 * @wait: readers waiting for packets
 * @ring: PIB_CAPTURE_RING bytes of pcapng
 * @head: bytes written to the ring in all
 * @tail: bytes read from it in all
 * @drops: packets the ring had no room for
 */
struct pib_capture {
	struct list_head list;
	struct pib_dev *dev;
	spinlock_t lock;	/* the ring's indices, @drops, @dev */
	wait_queue_head_t wait;
	u8 *ring;
	u64 head;
	u64 tail;
	u64 drops;
};

/* Each device's captures, their number, and whether it takes new ones. */
static DEFINE_MUTEX(pib_capture_lock);

/* Copy @len bytes into the ring at @head (the caller checked the room). */
static void pib_capture_put(struct pib_capture *cap, const void *src, u32 len)
{
	u32 off = cap->head & (PIB_CAPTURE_RING - 1);
	u32 n = min(len, PIB_CAPTURE_RING - off);

	memcpy(cap->ring + off, src, n);
	memcpy(cap->ring, src + n, len - n);
	cap->head += len;
}

static void pib_capture_pkt(struct pib_capture *cap,
			    const struct ib_device *ibdev, const u8 *buf,
			    u32 len, u32 dir)
{
	struct pib_dev *dev = READ_ONCE(cap->dev);
	u8 head[PIB_PCAPNG_EPB_HEAD], tail[3 + 16];
	unsigned long flags;
	bool woke = false;

	if (!dev || ibdev != &dev->ibdev)
		return;
	pib_pcapng_epb_head(head, ktime_get_real_ns(), len);
	spin_lock_irqsave(&cap->lock, flags);
	if (PIB_CAPTURE_RING - (cap->head - cap->tail) < pib_pcapng_epb_len(len)) {
		cap->drops++;
	} else {
		pib_capture_put(cap, head, sizeof(head));
		pib_capture_put(cap, buf, len);
		pib_capture_put(cap, tail, pib_pcapng_epb_tail(tail, len, dir));
		woke = true;
	}
	spin_unlock_irqrestore(&cap->lock, flags);
	if (woke)
		wake_up_interruptible(&cap->wait);
}

static void pib_capture_tx(void *data, const struct ib_device *ibdev,
			   const u8 *buf, u32 len)
{
	pib_capture_pkt(data, ibdev, buf, len, PIB_PCAPNG_OUTBOUND);
}

static void pib_capture_rx(void *data, const struct ib_device *ibdev,
			   const u8 *buf, u32 len)
{
	pib_capture_pkt(data, ibdev, buf, len, PIB_PCAPNG_INBOUND);
}

static int pib_capture_open(struct inode *inode, struct file *file)
{
	struct pib_dev *dev = inode->i_private;
	u8 hdr[PIB_PCAPNG_HDR_MAX];
	struct pib_capture *cap;
	int err;

	cap = kzalloc(sizeof(*cap), GFP_KERNEL);
	if (!cap)
		return -ENOMEM;
	cap->ring = vmalloc(PIB_CAPTURE_RING);
	if (!cap->ring) {
		kfree(cap);
		return -ENOMEM;
	}
	spin_lock_init(&cap->lock);
	init_waitqueue_head(&cap->wait);
	mutex_lock(&pib_capture_lock);
	err = dev->capture_closed ? -ENODEV :
	      dev->ncaptures < PIB_CAPTURE_MAX ? 0 : -EBUSY;
	if (!err) {
		cap->dev = dev;
		pib_capture_put(cap, hdr, pib_pcapng_header(hdr, dev->ibdev.name));
		err = register_trace_pib_pkt_tx(pib_capture_tx, cap);
		if (!err) {
			err = register_trace_pib_pkt_rx(pib_capture_rx, cap);
			if (err)
				unregister_trace_pib_pkt_tx(pib_capture_tx, cap);
		}
	}
	if (!err) {
		list_add(&cap->list, &dev->captures);
		dev->ncaptures++;
	}
	mutex_unlock(&pib_capture_lock);
	if (err) {
		tracepoint_synchronize_unregister();
		vfree(cap->ring);
		kfree(cap);
		return err;
	}
	file->private_data = cap;
	return nonseekable_open(inode, file);
}

/* Unread bytes, and whether the device is gone (the end comes after them). */
static u32 pib_capture_avail(struct pib_capture *cap, bool *gone)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&cap->lock, flags);
	n = cap->head - cap->tail;
	*gone = !cap->dev;
	spin_unlock_irqrestore(&cap->lock, flags);
	return n;
}

/* Take up to @len unread bytes into @dst; returns how many. */
static u32 pib_capture_take(struct pib_capture *cap, u8 *dst, u32 len)
{
	unsigned long flags;
	u32 off, n, first;

	spin_lock_irqsave(&cap->lock, flags);
	n = min_t(u64, len, cap->head - cap->tail);
	off = cap->tail & (PIB_CAPTURE_RING - 1);
	first = min(n, PIB_CAPTURE_RING - off);
	memcpy(dst, cap->ring + off, first);
	memcpy(dst + first, cap->ring, n - first);
	cap->tail += n;
	spin_unlock_irqrestore(&cap->lock, flags);
	return n;
}

static ssize_t pib_capture_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pib_capture *cap = file->private_data;
	size_t done = 0;
	bool gone;
	u8 *bounce;
	u32 n;
	int err;

	if (!count)
		return 0;
	if (!pib_capture_avail(cap, &gone) && !gone) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(cap->wait,
					       pib_capture_avail(cap, &gone) || gone);
		if (err)
			return err;
	}
	bounce = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	while (done < count) {
		n = pib_capture_take(cap, bounce, min_t(size_t, count - done, PAGE_SIZE));
		if (!n)
			break;
		if (copy_to_user(ubuf + done, bounce, n)) {
			kfree(bounce);
			return done ? done : -EFAULT;
		}
		done += n;
	}
	kfree(bounce);
	return done;
}

static __poll_t pib_capture_poll(struct file *file, poll_table *wait)
{
	struct pib_capture *cap = file->private_data;
	bool gone;

	poll_wait(file, &cap->wait, wait);
	if (pib_capture_avail(cap, &gone))
		return EPOLLIN | EPOLLRDNORM;
	return gone ? EPOLLHUP : 0;
}

/*
 * The last close. The device may be gone already (debugfs calls this even
 * after the file was removed): only the capture is used here.
 */
static int pib_capture_release(struct inode *inode, struct file *file)
{
	struct pib_capture *cap = file->private_data;

	unregister_trace_pib_pkt_tx(pib_capture_tx, cap);
	unregister_trace_pib_pkt_rx(pib_capture_rx, cap);
	mutex_lock(&pib_capture_lock);
	if (cap->dev) {
		list_del(&cap->list);
		cap->dev->ncaptures--;
	}
	mutex_unlock(&pib_capture_lock);
	tracepoint_synchronize_unregister();
	vfree(cap->ring);
	kfree(cap);
	return 0;
}

static const struct file_operations pib_capture_fops = {
	.owner = THIS_MODULE,
	.open = pib_capture_open,
	.read = pib_capture_read,
	.poll = pib_capture_poll,
	.release = pib_capture_release,
};

/* capture_drops: packets the device's open captures had no room for. */
static int pib_capture_drops_show(struct seq_file *m, void *unused)
{
	struct pib_dev *dev = m->private;
	struct pib_capture *cap;
	u64 drops = 0;

	mutex_lock(&pib_capture_lock);
	list_for_each_entry(cap, &dev->captures, list)
		drops += READ_ONCE(cap->drops);
	mutex_unlock(&pib_capture_lock);
	seq_printf(m, "%llu\n", drops);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_capture_drops);

/**
 * pib_capture_dev_add() - a registered device's debugfs directory
 * @dev: the device
 * @parent: pib's debugfs directory
 *
 * /sys/kernel/debug/pib/<device>/ with capture and capture_drops. Without
 * it (a netdev's switch file has the device's name), the device works and
 * the kernel log says why there is no capture.
 */
void pib_capture_dev_add(struct pib_dev *dev, struct dentry *parent)
{
	struct dentry *dir;

	INIT_LIST_HEAD(&dev->captures);
	dir = debugfs_create_dir(dev_name(&dev->ibdev.dev), parent);
	if (IS_ERR(dir)) {
		pr_info("%s: no debugfs directory (%ld): no packet capture\n",
			dev_name(&dev->ibdev.dev), PTR_ERR(dir));
		return;
	}
	dev->debugfs = dir;
	/*
	 * Only open uses the device, and debugfs keeps the file from going
	 * meanwhile; a reader then keeps its capture when the device and the
	 * file go, and reads the rest of it, not -EIO.
	 */
	debugfs_create_file_unsafe("capture", 0400, dir, dev, &pib_capture_fops);
	debugfs_create_file("capture_drops", 0400, dir, dev,
			    &pib_capture_drops_fops);
}

/**
 * pib_capture_dev_remove() - the device goes: its captures end
 * @dev: the device
 *
 * Readers get what was captured, then end of file; the files go (once
 * no open is under way).
 */
void pib_capture_dev_remove(struct pib_dev *dev)
{
	struct pib_capture *cap, *next;
	unsigned long flags;

	if (!dev->debugfs)
		return;
	mutex_lock(&pib_capture_lock);
	dev->capture_closed = true;
	list_for_each_entry_safe(cap, next, &dev->captures, list) {
		list_del(&cap->list);
		spin_lock_irqsave(&cap->lock, flags);
		WRITE_ONCE(cap->dev, NULL);
		spin_unlock_irqrestore(&cap->lock, flags);
		wake_up_interruptible(&cap->wait);
	}
	dev->ncaptures = 0;
	mutex_unlock(&pib_capture_lock);
	debugfs_remove(dev->debugfs);
	dev->debugfs = NULL;
}
