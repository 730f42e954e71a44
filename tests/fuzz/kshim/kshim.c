// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kshim.c: the simulated kernel under pib's files in the fuzz harnesses:
 * lock accounting, allocation, a small XArray, work and timers that run
 * when the harness says, socket buffers, pinned pages and the few RDMA
 * core helpers pib calls.
 */
#include "kshim.h"

bool kshim_verbose;
struct task_struct kshim_task = { "fuzz", 1 };
int kshim_locks_held;
int kshim_atomic;
unsigned long jiffies;
static struct workqueue_struct kshim_system_wq;
struct workqueue_struct *system_wq = &kshim_system_wq;

void kshim_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "kshim: %s at %s:%d\n", what, file, line);
	abort();
}

void kshim_lock(int *held)
{
	KSHIM_CHECK(!*held, "lock taken twice (deadlock)");
	*held = 1;
	kshim_locks_held++;
}

void kshim_unlock(int *held)
{
	KSHIM_CHECK(*held, "lock released but not held");
	*held = 0;
	kshim_locks_held--;
}

void kshim_atomic_end(void)
{
	KSHIM_CHECK(kshim_atomic > 0, "RCU reader or BH section ends twice");
	kshim_atomic--;
}

void kshim_might_sleep(const char *what)
{
	if (kshim_locks_held || kshim_atomic) {
		fprintf(stderr, "kshim: %s in atomic context (%s)\n", what,
			kshim_locks_held ? "a spinlock held" :
			"softirq, BHs off or an RCU reader");
		abort();
	}
}

void *kshim_alloc(size_t size, gfp_t gfp, bool zero)
{
	if (gfp & GFP_KERNEL)
		kshim_might_sleep("sleeping allocation");
	/* malloc(0) may return NULL, which would look like a failure. */
	return zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
}

/* XArray */
static int kshim_xa_find(struct xarray *xa, unsigned long index)
{
	unsigned int i;

	for (i = 0; i < xa->n; i++)
		if (xa->index[i] == index)
			return i;
	return -1;
}

void *xa_load(struct xarray *xa, unsigned long index)
{
	int i = kshim_xa_find(xa, index);

	return i < 0 ? NULL : xa->entry[i];
}

void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	int i = kshim_xa_find(xa, index);
	void *old;

	if (i < 0) {
		KSHIM_CHECK(xa->n < KSHIM_XA_SLOTS, "kshim xarray full");
		i = xa->n++;
		xa->index[i] = index;
		xa->entry[i] = NULL;
	}
	old = xa->entry[i];
	xa->entry[i] = entry;
	return old;
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	int i = kshim_xa_find(xa, index);
	void *old;

	if (i < 0)
		return NULL;
	old = xa->entry[i];
	xa->n--;
	xa->index[i] = xa->index[xa->n];
	xa->entry[i] = xa->entry[xa->n];
	return old;
}

/* A NULL @entry reserves the index, as in the kernel. */
int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	if (gfp & GFP_KERNEL)
		kshim_might_sleep("xa_insert");
	if (kshim_xa_find(xa, index) >= 0)
		return -EBUSY;
	if (xa->n == KSHIM_XA_SLOTS)
		return -ENOMEM;
	xa_store(xa, index, entry, gfp);
	return 0;
}

int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry,
		    struct xa_limit lim, u32 *next, gfp_t gfp)
{
	u32 n = *next < lim.min || *next > lim.max ? lim.min : *next;
	u64 tries;

	if (gfp & GFP_KERNEL)
		kshim_might_sleep("xa_alloc");
	if (xa->n == KSHIM_XA_SLOTS)
		return -EBUSY;
	for (tries = 0; tries <= (u64)lim.max - lim.min; tries++) {
		if (kshim_xa_find(xa, n) < 0) {
			xa_store(xa, n, entry, gfp);
			*id = n;
			*next = n == lim.max ? lim.min : n + 1;
			return 0;
		}
		n = n == lim.max ? lim.min : n + 1;
	}
	return -EBUSY;
}

int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit lim,
	     gfp_t gfp)
{
	u32 next = lim.min;

	return xa_alloc_cyclic(xa, id, entry, lim, &next, gfp);
}

/* Timers and work, on lists the harness runs */
static struct timer_list *kshim_timers;
static struct work_struct *kshim_works;

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *),
		 unsigned int flags)
{
	memset(t, 0, sizeof(*t));
	t->function = fn;
}

int del_timer(struct timer_list *t)
{
	struct timer_list **p;

	if (!t->pending)
		return 0;
	for (p = &kshim_timers; *p != t; p = &(*p)->next)
		;
	*p = t->next;
	t->pending = false;
	return 1;
}

int mod_timer(struct timer_list *t, unsigned long expires)
{
	int was = del_timer(t);

	t->expires = expires;
	t->pending = true;
	t->next = kshim_timers;
	kshim_timers = t;
	return was;
}

/*
 * Fire the timer that expires first, with jiffies moved to its expiry.
 * Returns false if no timer is pending.
 */
bool kshim_run_timers(void)
{
	struct timer_list *t, *first = NULL;

	for (t = kshim_timers; t; t = t->next)
		if (!first || time_before(t->expires, first->expires))
			first = t;
	if (!first)
		return false;
	del_timer(first);
	if (time_after(first->expires, jiffies))
		jiffies = first->expires;
	/* Timers run in softirq context. */
	local_bh_disable();
	first->function(first);
	local_bh_enable();
	KSHIM_CHECK(!kshim_locks_held, "timer returned holding a lock");
	return true;
}

/* Is a timer due (expired at the current jiffies)? */
bool kshim_timer_due(void)
{
	struct timer_list *t;

	for (t = kshim_timers; t; t = t->next)
		if (!time_after(t->expires, jiffies))
			return true;
	return false;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	struct work_struct **p;

	if (w->pending)
		return false;
	w->pending = true;
	w->next = NULL;
	for (p = &kshim_works; *p; p = &(*p)->next)
		;
	*p = w;
	return true;
}

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *d,
		      unsigned long delay)
{
	d->due = jiffies + delay;
	return queue_work(wq, &d->work);
}

bool cancel_work_sync(struct work_struct *w)
{
	struct work_struct **p;

	kshim_might_sleep("cancel_work_sync");
	if (!w->pending)
		return false;
	for (p = &kshim_works; *p != w; p = &(*p)->next)
		;
	*p = w->next;
	w->pending = false;
	return true;
}

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags,
					 int max_active, ...)
{
	return system_wq;
}

/*
 * Run queued work until none is left; returns how many ran. Work that
 * queues itself forever is a livelock, and fails.
 */
int kshim_run_work(void)
{
	struct work_struct *w;
	int n;

	for (n = 0; (w = kshim_works); n++) {
		KSHIM_CHECK(n < 100000, "work requeues itself forever");
		kshim_works = w->next;
		w->pending = false;
		w->func(w);
		KSHIM_CHECK(!kshim_locks_held && !kshim_atomic,
			    "work returned holding a lock or in an RCU reader");
	}
	return n;
}

/* Nothing may be left running when the harness has destroyed it all. */
void kshim_check_idle(void)
{
	KSHIM_CHECK(!kshim_locks_held, "a lock is held");
	KSHIM_CHECK(!kshim_atomic, "an RCU reader or BH section did not end");
	KSHIM_CHECK(!kshim_works, "work queued on a destroyed object");
	KSHIM_CHECK(!kshim_timers, "timer pending on a destroyed object");
}

void kshim_reset(void)
{
	kshim_locks_held = 0;
	kshim_atomic = 0;
	kshim_works = NULL;
	kshim_timers = NULL;
	jiffies = 1000;
	kshim_seed(1);
}

/* CRC, random bytes */
u32 crc32_le(u32 crc, const unsigned char *p, size_t len)
{
	static u32 table[256];
	unsigned int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			u32 c = i;

			for (k = 0; k < 8; k++)
				c = (c >> 1) ^ (0xedb88320u & -(c & 1));
			table[i] = c;
		}
	}
	while (len--)
		crc = (crc >> 8) ^ table[(crc ^ *p++) & 0xff];
	return crc;
}

static u32 kshim_rand_state;

void kshim_seed(u32 seed)
{
	kshim_rand_state = seed;
}

u8 get_random_u8(void)
{
	kshim_rand_state = kshim_rand_state * 1103515245u + 12345u;
	return kshim_rand_state >> 16;
}

u32 get_random_u32(void)
{
	u32 v = get_random_u8();

	v = v << 8 | get_random_u8();
	v = v << 8 | get_random_u8();
	return v << 8 | get_random_u8();
}

/* Socket buffers */
struct sk_buff *alloc_skb(unsigned int size, gfp_t gfp)
{
	struct sk_buff *skb = kshim_alloc(sizeof(*skb), gfp, true);

	if (!skb)
		return NULL;
	skb->head = kshim_alloc(size, gfp, false);
	if (!skb->head) {
		free(skb);
		return NULL;
	}
	skb->data = skb->head;
	skb->end = size;
	return skb;
}

void kfree_skb(struct sk_buff *skb)
{
	struct sk_buff *frag, *next;

	if (!skb)
		return;
	KSHIM_CHECK(!skb->next, "freeing a skb that is on a queue");
	for (frag = skb_shinfo(skb)->frag_list; frag; frag = next) {
		next = frag->next;
		frag->next = NULL;
		kfree_skb(frag);
	}
	free(skb->head);
	free(skb);
}

void skb_reserve(struct sk_buff *skb, int len)
{
	KSHIM_CHECK(!skb->len && skb->data + len <= skb->head + skb->end,
		    "skb_reserve past the end");
	skb->data += len;
}

void *skb_put(struct sk_buff *skb, unsigned int len)
{
	void *tail = skb->data + skb->len;

	KSHIM_CHECK(skb->data + skb->len + len <= skb->head + skb->end,
		    "skb_put past the end (skb_over_panic)");
	skb->len += len;
	return tail;
}

/* Pinned user memory: fresh pages, zeroed, one buffer each. */
struct ib_umem *ib_umem_get(struct ib_device *dev, unsigned long addr,
			    size_t size, int access)
{
	struct ib_umem *umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	unsigned long first = addr >> PAGE_SHIFT;
	unsigned long last = (addr + size - 1) >> PAGE_SHIFT;
	struct sg_table *sgt;
	unsigned int i;

	if (!umem)
		return ERR_PTR(-ENOMEM);
	sgt = &umem->sgt_append.sgt;
	umem->address = addr;
	umem->length = size;
	umem->writable = ib_access_writable(access);
	sgt->npages = last - first + 1;
	sgt->pages = calloc(sgt->npages, sizeof(*sgt->pages));
	for (i = 0; i < sgt->npages; i++) {
		sgt->pages[i] = calloc(1, sizeof(struct page));
		sgt->pages[i]->addr = calloc(1, PAGE_SIZE);
	}
	return umem;
}

void ib_umem_release(struct ib_umem *umem)
{
	struct sg_table *sgt = &umem->sgt_append.sgt;
	unsigned int i;

	for (i = 0; i < sgt->npages; i++) {
		free(sgt->pages[i]->addr);
		free(sgt->pages[i]);
	}
	free(sgt->pages);
	free(umem);
}

/* RDMA core helpers */
void ib_dispatch_event(const struct ib_event *ev)
{
	KSHIM_CHECK(ev->event <= IB_EVENT_GID_CHANGE, "unknown event type");
}

/*
 * The QP state transitions of IBA 10.3.1 (Figure 124); the attributes each
 * transition requires are the caller's business in the harnesses.
 */
bool ib_modify_qp_is_ok(enum ib_qp_state cur, enum ib_qp_state next,
			enum ib_qp_type type, int mask)
{
	static const u8 ok[IB_QPS_ERR + 1] = {
		[IB_QPS_RESET] = BIT(IB_QPS_INIT),
		[IB_QPS_INIT] = BIT(IB_QPS_INIT) | BIT(IB_QPS_RTR),
		[IB_QPS_RTR] = BIT(IB_QPS_RTS),
		[IB_QPS_RTS] = BIT(IB_QPS_RTS) | BIT(IB_QPS_SQD),
		[IB_QPS_SQD] = BIT(IB_QPS_RTS) | BIT(IB_QPS_SQD),
		[IB_QPS_SQE] = BIT(IB_QPS_RTS),
	};

	if (cur > IB_QPS_ERR || next > IB_QPS_ERR)
		return false;
	return next == IB_QPS_RESET || next == IB_QPS_ERR || ok[cur] & BIT(next);
}

/* User contexts are not simulated: the harnesses create kernel objects. */
void *kshim_udata_context(struct ib_udata *udata)
{
	kshim_fail("user context in a harness", __FILE__, __LINE__);
}

int ib_copy_to_udata(struct ib_udata *udata, void *src, size_t len)
{
	kshim_fail("ib_copy_to_udata in a harness", __FILE__, __LINE__);
}

int ib_copy_from_udata(void *dst, struct ib_udata *udata, size_t len)
{
	kshim_fail("ib_copy_from_udata in a harness", __FILE__, __LINE__);
}

unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	kshim_fail("copy_to_user in a harness", __FILE__, __LINE__);
}

int rdma_user_mmap_entry_insert(struct ib_ucontext *uc,
				struct rdma_user_mmap_entry *e, size_t len)
{
	kshim_fail("mmap entry in a harness", __FILE__, __LINE__);
}

u64 rdma_user_mmap_get_offset(struct rdma_user_mmap_entry *e)
{
	kshim_fail("mmap entry in a harness", __FILE__, __LINE__);
}

void rdma_user_mmap_entry_remove(struct rdma_user_mmap_entry *e)
{
	kshim_fail("mmap entry in a harness", __FILE__, __LINE__);
}

struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get(struct ib_ucontext *uc, struct vm_area_struct *vma)
{
	kshim_fail("mmap in a harness", __FILE__, __LINE__);
}

void rdma_user_mmap_entry_put(struct rdma_user_mmap_entry *e)
{
	kshim_fail("mmap in a harness", __FILE__, __LINE__);
}

int remap_vmalloc_range(struct vm_area_struct *vma, void *addr,
			unsigned long pgoff)
{
	kshim_fail("mmap in a harness", __FILE__, __LINE__);
}

struct page *vmalloc_to_page(const void *addr)
{
	kshim_fail("mmap in a harness", __FILE__, __LINE__);
}

int vm_insert_page(struct vm_area_struct *vma, unsigned long addr,
		   struct page *page)
{
	kshim_fail("mmap in a harness", __FILE__, __LINE__);
}

int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset,
		   int (*set_page)(struct ib_mr *, u64))
{
	kshim_fail("map_mr_sg in a harness", __FILE__, __LINE__);
}
