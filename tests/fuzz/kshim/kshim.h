/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kshim.h: the part of the kernel and RDMA core API that pib's kernel
 * files use, for compiling those files unchanged on the host, in the fuzz
 * harnesses. Every kernel header they include (<linux/list.h>,
 * <rdma/ib_verbs.h>, ...) is generated as a one-line file that includes
 * this one (see the Makefile's KHEADERS).
 *
 * Only what pib uses is here, written for this purpose. Wire formats (MAD,
 * SMP, PMA layouts) follow the IBA, and enum values are the kernel's,
 * since pib stores some of them in the provider ABI and on the wire.
 *
 * The shim also checks what a kernel would check at run time: a spinlock
 * taken twice or released unheld, a sleeping allocation or RCU grace
 * period under a spinlock, in an RCU reader or in a softirq (timers, and
 * what the harnesses mark as the receive path), an RCU reader that does
 * not end, a skb written past its end, and work or timers left behind by
 * a destroyed object all abort with a message.
 *
 * There is one CPU and no concurrency: work items and timers run when the
 * harness says so (kshim_run_work(), kshim_run_timers()).
 */
#ifndef PIB_KSHIM_H
#define PIB_KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
/* What pib_hdr.h needs of the kernel, shared with its other host builds. */
#include <assert.h>
#include "../../include/linux/unaligned.h"
#include "../../include/rdma/ib_pack.h"
#include "../../include/rdma/ib_smi.h"
#include "../../include/rdma/ib_verbs.h"

/* The kernel the shim stands for (pib_compat.h asks). */
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + min(c, 255))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 1, 0)

/* Types and attributes */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned int gfp_t;

#define __force
#define __rcu
#define __percpu
#define __must_check
#define __packed		__attribute__((packed))
#define __aligned(x)		__attribute__((aligned(x)))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)

#define GFP_KERNEL		0x1u
#define GFP_ATOMIC		0x2u
#define __GFP_ZERO		0x4u
#define __GFP_RETRY_MAYFAIL	0x8u
#define __GFP_NOWARN		0x20u
#define GFP_KERNEL_ACCOUNT	(GFP_KERNEL | 0x10u)

/* Constants and arithmetic */
#define U8_MAX			((u8)~0U)
#define U16_MAX			((u16)~0U)
#define U32_MAX			((u32)~0U)
#define U64_MAX			((u64)~0ULL)
#define S32_MAX			((s32)(U32_MAX >> 1))
#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_MASK		(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x)		(((x) + PAGE_SIZE - 1) & PAGE_MASK)
#define HZ			250

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#define BIT(n)			(1UL << (n))
#define BITS_PER_LONG		64
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define array_size(a, b)	((size_t)(a) * (size_t)(b))
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define swap(a, b) \
	do { __typeof__(a) t_ = (a); (a) = (b); (b) = t_; } while (0)

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (BITS_PER_LONG - __builtin_clzl(n - 1));
}

static inline unsigned long __ffs(unsigned long w)
{
	return __builtin_ctzl(w);
}

/* One CPU, no reordering to fear: plain accesses. */
#define READ_ONCE(x)		(*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define smp_load_acquire(p)	READ_ONCE(*(p))
#define smp_store_release(p, v)	WRITE_ONCE(*(p), (v))
#define smp_mb__after_atomic()	do { } while (0)
#define smp_wmb()		do { } while (0)

/* Byte order: the host is little-endian, as the harnesses check. */
#define cpu_to_be16(x)		((__be16)__builtin_bswap16(x))
#define cpu_to_be32(x)		((__be32)__builtin_bswap32(x))
#define cpu_to_be64(x)		((__be64)__builtin_bswap64(x))
#define be16_to_cpu(x)		((u16)__builtin_bswap16(x))
#define be32_to_cpu(x)		((u32)__builtin_bswap32(x))
#define be64_to_cpu(x)		((u64)__builtin_bswap64(x))

/* Errors in pointers */
#define MAX_ERRNO		4095
#define IS_ERR_VALUE(x)		((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long err) { return (void *)err; }
static inline long PTR_ERR(const void *p) { return (long)p; }
static inline bool IS_ERR(const void *p) { return IS_ERR_VALUE(p); }
static inline void *ERR_CAST(const void *p) { return (void *)p; }
static inline int PTR_ERR_OR_ZERO(const void *p)
{
	return IS_ERR(p) ? (int)PTR_ERR(p) : 0;
}

/* Failures a kernel would report (BUG, WARN, lockdep): abort. */
void kshim_fail(const char *what, const char *file, int line)
	__attribute__((noreturn));
#define KSHIM_CHECK(cond, what) \
	do { if (!(cond)) kshim_fail(what, __FILE__, __LINE__); } while (0)
#define WARN_ON(cond) \
	({ bool w_ = !!(cond); KSHIM_CHECK(!w_, "WARN_ON(" #cond ")"); w_; })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define BUG_ON(cond)		KSHIM_CHECK(!(cond), "BUG_ON(" #cond ")")

/* Logging: quiet unless KSHIM_VERBOSE is set in the environment. */
extern bool kshim_verbose;
#define pr_kshim(fmt, ...) \
	do { if (kshim_verbose) fprintf(stderr, fmt, ##__VA_ARGS__); } while (0)
#define pr_err(fmt, ...)		pr_kshim(fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)		pr_kshim(fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)		pr_kshim(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)		pr_kshim(fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...)	pr_kshim(fmt, ##__VA_ARGS__)
#define ibdev_dbg(ibdev, fmt, ...) \
	do { (void)(ibdev); pr_kshim(fmt, ##__VA_ARGS__); } while (0)
#define ibdev_dbg_ratelimited(ibdev, fmt, ...) \
	ibdev_dbg(ibdev, fmt, ##__VA_ARGS__)

/* The task a verb runs in, for pib_refuse()'s line. */
#define TASK_COMM_LEN		16
struct task_struct {
	char comm[TASK_COMM_LEN];
	int pid;
};

/* debugfs's text files: what pib writes to one goes nowhere here. */
struct seq_file;
static inline __attribute__((format(printf, 2, 3)))
void seq_printf(struct seq_file *m, const char *fmt, ...) { (void)m; (void)fmt; }
static inline void seq_putc(struct seq_file *m, char c) { (void)m; (void)c; }
extern struct task_struct kshim_task;
#define current			(&kshim_task)
static inline int task_pid_nr(const struct task_struct *t) { return t->pid; }

/* Atomics and bit operations (one CPU) */
typedef struct { int counter; } atomic_t;
typedef struct { s64 counter; } atomic64_t;
typedef struct { int refs; } refcount_t;
#define ATOMIC_INIT(i)		{ (i) }

static inline int atomic_read(const atomic_t *a) { return a->counter; }
static inline void atomic_set(atomic_t *a, int i) { a->counter = i; }
static inline void atomic_inc(atomic_t *a) { a->counter++; }
static inline void atomic_dec(atomic_t *a) { a->counter--; }
static inline int atomic_inc_return(atomic_t *a) { return ++a->counter; }
static inline s64 atomic64_read(const atomic64_t *a) { return a->counter; }
static inline void atomic64_set(atomic64_t *a, s64 i) { a->counter = i; }
static inline void atomic64_inc(atomic64_t *a) { a->counter++; }
static inline void atomic64_add(s64 i, atomic64_t *a) { a->counter += i; }

static inline void refcount_set(refcount_t *r, int n) { r->refs = n; }
static inline int refcount_read(const refcount_t *r) { return r->refs; }
static inline bool refcount_inc_not_zero(refcount_t *r)
{
	return r->refs ? (r->refs++, true) : false;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	KSHIM_CHECK(r->refs > 0, "refcount underflow");
	return !--r->refs;
}

static inline void set_bit(long nr, unsigned long *a)
{
	a[nr / BITS_PER_LONG] |= BIT(nr % BITS_PER_LONG);
}

static inline void clear_bit(long nr, unsigned long *a)
{
	a[nr / BITS_PER_LONG] &= ~BIT(nr % BITS_PER_LONG);
}

static inline bool test_bit(long nr, const unsigned long *a)
{
	return a[nr / BITS_PER_LONG] & BIT(nr % BITS_PER_LONG);
}

static inline bool test_and_set_bit(long nr, unsigned long *a)
{
	bool old = test_bit(nr, a);

	set_bit(nr, a);
	return old;
}

static inline bool test_and_clear_bit(long nr, unsigned long *a)
{
	bool old = test_bit(nr, a);

	clear_bit(nr, a);
	return old;
}

#define __set_bit		set_bit
#define clear_bit_unlock	clear_bit
#define BITS_TO_LONGS(n)	DIV_ROUND_UP(n, BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]

static inline void bitmap_zero(unsigned long *a, unsigned int bits)
{
	memset(a, 0, BITS_TO_LONGS(bits) * sizeof(long));
}

static inline unsigned long kshim_next_bit(const unsigned long *a,
					   unsigned long size,
					   unsigned long from)
{
	while (from < size && !test_bit(from, a))
		from++;
	return from;
}

static inline bool bitmap_empty(const unsigned long *a, unsigned int bits)
{
	return kshim_next_bit(a, bits, 0) == bits;
}

#define for_each_set_bit(bit, a, size)					\
	for ((bit) = kshim_next_bit(a, size, 0); (bit) < (size);	\
	     (bit) = kshim_next_bit(a, size, (bit) + 1))

/*
 * Locks. A spinlock knows whether it is held; the shim counts the locks
 * held, so that sleeping under one is caught.
 */
typedef struct { int held; } spinlock_t;
struct mutex { int held; };
extern int kshim_locks_held;
/* Atomic sections besides spinlocks: BHs off, softirqs, RCU readers. */
extern int kshim_atomic;

void kshim_lock(int *held);
void kshim_unlock(int *held);
void kshim_might_sleep(const char *what);
#define spin_lock_init(l)		((l)->held = 0)
#define spin_lock(l)			kshim_lock(&(l)->held)
#define spin_unlock(l)			kshim_unlock(&(l)->held)
#define spin_lock_bh(l)			kshim_lock(&(l)->held)
#define spin_unlock_bh(l)		kshim_unlock(&(l)->held)
#define spin_lock_irqsave(l, f)		((f) = 0, kshim_lock(&(l)->held))
#define spin_unlock_irqrestore(l, f)	((void)(f), kshim_unlock(&(l)->held))
#define lockdep_assert_held(l) \
	KSHIM_CHECK((l)->held, "lockdep_assert_held(" #l ")")
#define mutex_init(m)			((m)->held = 0)
#define mutex_lock(m)			kshim_lock(&(m)->held)
#define mutex_unlock(m)			kshim_unlock(&(m)->held)
#define DEFINE_MUTEX(m)			struct mutex m = { 0 }
#define irqs_disabled()			(kshim_locks_held > 0)
#define local_bh_disable()		(kshim_atomic++)
#define local_bh_enable()		kshim_atomic_end()
void kshim_atomic_end(void);

/*
 * RCU: one CPU and no preemption, so readers need nothing but to be
 * counted: they may not sleep, and must end.
 */
#define rcu_read_lock()			(kshim_atomic++)
#define rcu_read_unlock()		kshim_atomic_end()
#define rcu_dereference(p)		READ_ONCE(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_assign_pointer(p, v)	WRITE_ONCE(p, v)
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, v)
#define synchronize_rcu()		kshim_might_sleep("synchronize_rcu")
#define synchronize_rcu_expedited()	kshim_might_sleep("synchronize_rcu")
struct rcu_head { void *unused; };
#define kfree_rcu(p, field)		kfree(p)

/* Memory: each allocation its own, so that ASan sees every bound. */
void *kshim_alloc(size_t size, gfp_t gfp, bool zero);
#define kmalloc(n, gfp)			kshim_alloc(n, gfp, false)
#define kzalloc(n, gfp)			kshim_alloc(n, gfp, true)
#define kcalloc(n, s, gfp)		kshim_alloc(array_size(n, s), gfp, true)
#define kvcalloc(n, s, gfp)		kshim_alloc(array_size(n, s), gfp, true)
#define kvzalloc(n, gfp)		kshim_alloc(n, gfp, true)
#define __vmalloc(n, gfp)		kshim_alloc(n, gfp, (gfp) & __GFP_ZERO)
#define vmalloc(n)			kshim_alloc(n, GFP_KERNEL, false)
#define vzalloc(n)			kshim_alloc(n, GFP_KERNEL, true)
#define vcalloc(n, s)			kshim_alloc(array_size(n, s), GFP_KERNEL, true)
#define vmalloc_user(n)			kshim_alloc(n, GFP_KERNEL, true)
#define kfree(p)			free((void *)(p))
#define kvfree(p)			free((void *)(p))
#define vfree(p)			free((void *)(p))

/* Lists */
struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(n)		{ &(n), &(n) }
#define LIST_HEAD(n)			struct list_head n = LIST_HEAD_INIT(n)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = NULL;
	n->prev = NULL;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_add_tail_rcu		list_add_tail
#define list_del_rcu			list_del
#define list_entry(p, type, member)	container_of(p, type, member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_rcu		list_for_each_entry
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

/* XArray: a small table of index -> pointer. */
#define KSHIM_XA_SLOTS	64
struct xarray {
	unsigned int n;
	unsigned long index[KSHIM_XA_SLOTS];
	void *entry[KSHIM_XA_SLOTS];
};

struct xa_limit { u32 min, max; };
#define XA_LIMIT(lo, hi)		((struct xa_limit){ (lo), (hi) })
#define XA_FLAGS_ALLOC			0
#define xa_init_flags(xa, f)		memset(xa, 0, sizeof(*(xa)))
void *xa_load(struct xarray *xa, unsigned long index);
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *xa_erase(struct xarray *xa, unsigned long index);
int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit lim,
	     gfp_t gfp);
int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry,
		    struct xa_limit lim, u32 *next, gfp_t gfp);
#define xa_destroy(xa)			((xa)->n = 0)
/* Every entry that is not NULL, in slot order (the kernel's: by index). */
#define xa_for_each(xa, idx, ent)					\
	for (unsigned int kshim_xa_i = 0; kshim_xa_i < (xa)->n; kshim_xa_i++) \
		if ((idx) = (xa)->index[kshim_xa_i],			\
		    !((ent) = (xa)->entry[kshim_xa_i])) {} else
#define xa_empty(xa)			(!(xa)->n)

/* Time: jiffies move only when the harness advances them. */
extern unsigned long jiffies;
#define NSEC_PER_SEC		1000000000L
#define ktime_get_real_ns()	((u64)jiffies * (NSEC_PER_SEC / HZ))
#define ktime_get_ns()		ktime_get_real_ns()
#define msecs_to_jiffies(ms) \
	((unsigned long)DIV_ROUND_UP((u64)(ms) * HZ, 1000))
#define usecs_to_jiffies(us) \
	((unsigned long)DIV_ROUND_UP((u64)(us) * HZ, 1000000))
#define time_after(a, b)		((long)((b) - (a)) < 0)
#define time_before(a, b)		time_after(b, a)

/* Timers and work: the harness runs them. */
struct timer_list {
	void (*function)(struct timer_list *t);
	unsigned long expires;
	bool pending;
	struct timer_list *next;
};

struct work_struct {
	void (*func)(struct work_struct *w);
	bool pending;
	struct work_struct *next;
};

struct delayed_work {
	struct work_struct work;
	unsigned long due;
};

struct workqueue_struct { int unused; };
extern struct workqueue_struct *system_wq;

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *),
		 unsigned int flags);
int mod_timer(struct timer_list *t, unsigned long expires);
int del_timer(struct timer_list *t);
#define del_timer_sync(t)		del_timer(t)
#define timer_pending(t)		((t)->pending)
#define from_timer(var, t, field) \
	container_of(t, __typeof__(*var), field)

#define INIT_WORK(w, fn)		((w)->func = (fn), (w)->pending = false)
#define INIT_DELAYED_WORK(d, fn)	INIT_WORK(&(d)->work, fn)
#define to_delayed_work(w)		container_of(w, struct delayed_work, work)
bool queue_work(struct workqueue_struct *wq, struct work_struct *w);
#define schedule_work(w)		queue_work(system_wq, w)
bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *d,
		      unsigned long delay);
#define schedule_delayed_work(d, delay)	mod_delayed_work(system_wq, d, delay)
bool cancel_work_sync(struct work_struct *w);
#define cancel_delayed_work_sync(d)	cancel_work_sync(&(d)->work)
#define WQ_HIGHPRI			0
#define WQ_MEM_RECLAIM			0
#define WQ_UNBOUND			0
struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags,
					 int max_active, ...);
#define destroy_workqueue(wq)		((void)(wq))

struct completion { bool done; };
#define init_completion(c)		((c)->done = false)
#define complete(c)			((c)->done = true)
#define reinit_completion(c)		((c)->done = false)
#define wait_for_completion(c) \
	KSHIM_CHECK((c)->done, "wait_for_completion would wait forever")

/* Sockets, netdevs, the node name: what the files name, not use. */
struct socket;
struct dentry;
struct vm_area_struct { unsigned long vm_start, vm_end; };
enum { NETREG_UNINITIALIZED, NETREG_REGISTERED, NETREG_UNREGISTERING };
/* (pib_net.c's route cache: the harnesses send through fuzz_world.c) */
struct dst_cache { void *cache; unsigned long reset_ts; };

struct net_device {
	char name[16];
	unsigned int mtu;
	unsigned char dev_addr[6];
	u8 reg_state;
	unsigned int gso_max_size;
	u16 gso_max_segs;
};
#define LL_RESERVED_SPACE(dev)		16
static inline const char *netdev_name(const struct net_device *d)
{
	return d->name;
}

/* CRC-32 (crc32_le of lib/crc32.c: reflected 0x04C11DB7, no inversion). */
u32 crc32_le(u32 crc, const unsigned char *p, size_t len);

/* Random bytes: the harness seeds them, so that every run is the same. */
u8 get_random_u8(void);
u32 get_random_u32(void);
void kshim_seed(u32 seed);

/* Socket buffers: exactly as large as asked, so overruns are caught. */
/* What GSO needs of an skb's shared info (pib_switch_send()'s batches). */
struct sk_buff;
struct skb_shared_info {
	unsigned short gso_size, gso_segs;
	unsigned int gso_type;
	struct sk_buff *frag_list;
};

#define SKB_GSO_UDP_L4			(1u << 16)
/* An allocation's room for data: as the kernel's, less its shared info. */
#define SKB_WITH_OVERHEAD(x)		((x) - 320)

struct sk_buff {
	struct sk_buff *next, *prev;
	unsigned char *head, *data;
	unsigned int len, end;
	unsigned int data_len, truesize;
	u8 cloned, nohdr;
	char cb[48] __attribute__((aligned(8)));
	struct skb_shared_info shinfo;
};

#define skb_shinfo(skb)			(&(skb)->shinfo)
#define skb_is_gso(skb)			(skb_shinfo(skb)->gso_size != 0)
#define skb_cloned(skb)			((skb)->cloned)
/* The kernel's takes the data's reference count; here there is none. */
#define __skb_header_release(skb)	((skb)->nohdr = 1)

struct sk_buff_head {
	struct sk_buff *next, *prev;
	u32 qlen;
	spinlock_t lock;
};

struct sk_buff *alloc_skb(unsigned int size, gfp_t gfp);
void kfree_skb(struct sk_buff *skb);
#define consume_skb(skb)		kfree_skb(skb)
void skb_reserve(struct sk_buff *skb, int len);
void *skb_put(struct sk_buff *skb, unsigned int len);

static inline void *skb_put_data(struct sk_buff *skb, const void *data,
				 unsigned int len)
{
	return memcpy(skb_put(skb, len), data, len);
}

static inline void __skb_queue_head_init(struct sk_buff_head *q)
{
	q->next = (struct sk_buff *)q;
	q->prev = (struct sk_buff *)q;
	q->qlen = 0;
}

static inline void skb_queue_head_init(struct sk_buff_head *q)
{
	spin_lock_init(&q->lock);
	__skb_queue_head_init(q);
}

static inline bool skb_queue_empty(const struct sk_buff_head *q)
{
	return q->next == (const struct sk_buff *)q;
}

static inline u32 skb_queue_len(const struct sk_buff_head *q)
{
	return q->qlen;
}

static inline void __skb_queue_tail(struct sk_buff_head *q,
				    struct sk_buff *skb)
{
	skb->next = (struct sk_buff *)q;
	skb->prev = q->prev;
	q->prev->next = skb;
	q->prev = skb;
	q->qlen++;
}

static inline struct sk_buff *skb_peek_tail(const struct sk_buff_head *q)
{
	return skb_queue_empty(q) ? NULL : q->prev;
}

static inline struct sk_buff *__skb_dequeue(struct sk_buff_head *q)
{
	struct sk_buff *skb = q->next;

	if (skb == (struct sk_buff *)q)
		return NULL;
	q->next = skb->next;
	skb->next->prev = (struct sk_buff *)q;
	skb->next = NULL;
	skb->prev = NULL;
	q->qlen--;
	return skb;
}

static inline void __skb_queue_purge(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		kfree_skb(skb);
}

#define skb_queue_purge			__skb_queue_purge

/*
 * Pages and pinned user memory: a user MR's pages are separate buffers of
 * PAGE_SIZE, and ib_umem_get() "pins" fresh ones (see kshim_umem_pages).
 */
struct page { unsigned char *addr; };
struct page *vmalloc_to_page(const void *addr);
int vm_insert_page(struct vm_area_struct *vma, unsigned long addr,
		   struct page *page);
#define kmap_local_page(pg)		((void *)(pg)->addr)
#define kunmap_local(p)			((void)(p))

struct sg_table { struct page **pages; unsigned int npages; };
struct sg_append_table { struct sg_table sgt; };
struct sg_page_iter { unsigned int i; struct sg_table *sgt; };
struct scatterlist;
#define for_each_sgtable_page(table, iter, start)			\
	for ((iter)->sgt = (table), (iter)->i = (start);		\
	     (iter)->i < (table)->npages; (iter)->i++)
#define sg_page_iter_page(iter)		((iter)->sgt->pages[(iter)->i])

struct ib_device;
struct ib_umem {
	u64 address;
	size_t length;
	u32 writable : 1;
	struct sg_append_table sgt_append;
};

struct ib_umem *ib_umem_get(struct ib_device *dev, unsigned long addr,
			    size_t size, int access);
void ib_umem_release(struct ib_umem *umem);
static inline unsigned int ib_umem_offset(struct ib_umem *umem)
{
	return umem->address & ~PAGE_MASK;
}

static inline size_t ib_umem_num_pages(struct ib_umem *umem)
{
	return umem->sgt_append.sgt.npages;
}

/*
 * On-demand paging: what pib_compat.h names. pib_odp.c is not built here;
 * fuzz_world.c refuses ODP registrations, so no MR has an ODP umem.
 */
typedef u64 dma_addr_t;
struct mutex;
struct ib_umem_odp {
	struct ib_umem umem;
	unsigned long *pfn_list;
	dma_addr_t *dma_list;
	void *private;
};
#define ODP_READ_ALLOWED_BIT		(1 << 0ULL)
#define ODP_WRITE_ALLOWED_BIT		(1 << 1ULL)
#define hmm_pfn_to_page(pfn)		((struct page *)(uintptr_t)(pfn))

/* Management datagrams (IBA 13.4) */
#define IB_MGMT_BASE_VERSION			1
#define IB_MGMT_CLASS_SUBN_LID_ROUTED		0x01
#define IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE	0x81
#define IB_MGMT_CLASS_PERF_MGMT			0x04
#define IB_MGMT_METHOD_GET			0x01
#define IB_MGMT_METHOD_SET			0x02
#define IB_MGMT_METHOD_TRAP			0x05
#define IB_MGMT_METHOD_TRAP_REPRESS		0x07
#define IB_MGMT_METHOD_RESP			0x80
#define IB_MGMT_METHOD_GET_RESP			0x81
#define IB_MGMT_MAD_STATUS_BAD_VERSION		0x0004
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD	0x0008
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB 0x000c
#define IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE	0x001c
#define IB_QP1_QKEY				0x80010000
#define IB_NOTICE_TYPE_URGENT			0x81
#define IB_NOTICE_PROD_SWITCH			cpu_to_be16(2)
#define IB_MGMT_MAD_HDR				24
#define IB_MGMT_MAD_DATA			232
#define IB_CLASS_PORT_INFO_RESP_TIME_MASK	0x1f

#define IB_MAD_RESULT_FAILURE			0
#define IB_MAD_RESULT_SUCCESS			BIT(0)
#define IB_MAD_RESULT_REPLY			BIT(1)
#define IB_MAD_RESULT_CONSUMED			BIT(2)
#define IB_MAD_IGNORE_MKEY			1

struct ib_mad_hdr {
	u8 base_version;
	u8 mgmt_class;
	u8 class_version;
	u8 method;
	__be16 status;
	__be16 class_specific;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
};

struct ib_mad {
	struct ib_mad_hdr mad_hdr;
	u8 data[IB_MGMT_MAD_DATA];
};

struct ib_class_port_info {
	u8 base_version;
	u8 class_version;
	__be16 capability_mask;
	__be32 cap_mask2_resp_time;
	u8 redirect_gid[16];
	__be32 redirect_tcslfl;
	__be16 redirect_lid;
	__be16 redirect_pkey;
	__be32 redirect_qp;
	__be32 redirect_qkey;
	u8 trap_gid[16];
	__be32 trap_tcslfl;
	__be16 trap_lid;
	__be16 trap_pkey;
	__be32 trap_hlqp;
	__be32 trap_qkey;
};

static inline void ib_set_cpi_resp_time(struct ib_class_port_info *cpi,
					u8 rtime)
{
	u32 v = be32_to_cpu(cpi->cap_mask2_resp_time);

	v = (v & ~IB_CLASS_PORT_INFO_RESP_TIME_MASK) |
	    (rtime & IB_CLASS_PORT_INFO_RESP_TIME_MASK);
	cpi->cap_mask2_resp_time = cpu_to_be32(v);
}

struct ib_mad_notice_attr {
	u8 generic_type;
	u8 prod_type_msb;
	__be16 prod_type_lsb;
	__be16 trap_num;
	__be16 issuer_lid;
	__be16 toggle_count;
	union {
		struct {
			u8 details[54];
		} raw_data;
	} details;
} __packed;

/* Subnet management packets (IBA 14.2.1) */
#define IB_SMP_DATA_SIZE			64
#define IB_SMP_MAX_PATH_HOPS			64
#define IB_SMP_DIRECTION			cpu_to_be16(0x8000)
#define IB_SMP_ATTR_NOTICE			cpu_to_be16(0x0002)
#define IB_SMP_ATTR_NODE_DESC			cpu_to_be16(0x0010)
#define IB_SMP_ATTR_NODE_INFO			cpu_to_be16(0x0011)
#define IB_SMP_ATTR_SWITCH_INFO			cpu_to_be16(0x0012)
#define IB_SMP_ATTR_GUID_INFO			cpu_to_be16(0x0014)
#define IB_SMP_ATTR_PORT_INFO			cpu_to_be16(0x0015)
#define IB_SMP_ATTR_PKEY_TABLE			cpu_to_be16(0x0016)
#define IB_SMP_ATTR_SL_TO_VL_TABLE		cpu_to_be16(0x0017)
#define IB_SMP_ATTR_VL_ARB_TABLE		cpu_to_be16(0x0018)
#define IB_SMP_ATTR_LINEAR_FORWARD_TABLE	cpu_to_be16(0x0019)
#define IB_SMP_ATTR_MCAST_FORWARD_TABLE		cpu_to_be16(0x001b)
#define IB_SMP_ATTR_SM_INFO			cpu_to_be16(0x0020)

struct ib_smp {
	u8 base_version;
	u8 mgmt_class;
	u8 class_version;
	u8 method;
	__be16 status;
	u8 hop_ptr;
	u8 hop_cnt;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
	__be64 mkey;
	__be16 dr_slid;
	__be16 dr_dlid;
	u8 reserved[28];
	u8 data[IB_SMP_DATA_SIZE];
	u8 initial_path[IB_SMP_MAX_PATH_HOPS];
	u8 return_path[IB_SMP_MAX_PATH_HOPS];
} __packed;

struct ib_node_info {
	u8 base_version;
	u8 class_version;
	u8 node_type;
	u8 num_ports;
	__be64 sys_guid;
	__be64 node_guid;
	__be64 port_guid;
	__be16 partition_cap;
	__be16 device_id;
	__be32 revision;
	u8 local_port_num;
	u8 vendor_id[3];
} __packed;

struct ib_vl_weight_elem {
	u8 vl;
	u8 weight;
};

/* Performance management (IBA 16.1) */
#define IB_PMA_CLASS_CAP_EXT_WIDTH		cpu_to_be16(1 << 9)
#define IB_PMA_CLASS_PORT_INFO			cpu_to_be16(0x0001)
#define IB_PMA_PORT_COUNTERS			cpu_to_be16(0x0012)
#define IB_PMA_PORT_COUNTERS_EXT		cpu_to_be16(0x001d)
#define IB_PMA_SEL_LINK_DOWNED			cpu_to_be16(0x0004)
#define IB_PMA_SEL_PORT_RCV_ERRORS		cpu_to_be16(0x0008)
#define IB_PMA_SEL_PORT_XMIT_DISCARDS		cpu_to_be16(0x0040)
#define IB_PMA_SEL_PORT_XMIT_DATA		cpu_to_be16(0x1000)
#define IB_PMA_SEL_PORT_RCV_DATA		cpu_to_be16(0x2000)
#define IB_PMA_SEL_PORT_XMIT_PACKETS		cpu_to_be16(0x4000)
#define IB_PMA_SEL_PORT_RCV_PACKETS		cpu_to_be16(0x8000)
#define IB_PMA_SELX_PORT_XMIT_DATA		cpu_to_be16(0x0001)
#define IB_PMA_SELX_PORT_RCV_DATA		cpu_to_be16(0x0002)
#define IB_PMA_SELX_PORT_XMIT_PACKETS		cpu_to_be16(0x0004)
#define IB_PMA_SELX_PORT_RCV_PACKETS		cpu_to_be16(0x0008)
#define IB_PMA_SELX_PORT_UNI_XMIT_PACKETS	cpu_to_be16(0x0010)
#define IB_PMA_SELX_PORT_UNI_RCV_PACKETS	cpu_to_be16(0x0020)
#define IB_PMA_SELX_PORT_MULTI_XMIT_PACKETS	cpu_to_be16(0x0040)
#define IB_PMA_SELX_PORT_MULTI_RCV_PACKETS	cpu_to_be16(0x0080)

struct ib_pma_mad {
	struct ib_mad_hdr mad_hdr;
	u8 reserved[40];
	u8 data[192];
} __packed;

struct ib_pma_portcounters {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be16 symbol_error_counter;
	u8 link_error_recovery_counter;
	u8 link_downed_counter;
	__be16 port_rcv_errors;
	__be16 port_rcv_remphys_errors;
	__be16 port_rcv_switch_relay_errors;
	__be16 port_xmit_discards;
	u8 port_xmit_constraint_errors;
	u8 port_rcv_constraint_errors;
	u8 reserved1;
	u8 link_overrun_errors;
	__be16 reserved2;
	__be16 vl15_dropped;
	__be32 port_xmit_data;
	__be32 port_rcv_data;
	__be32 port_xmit_packets;
	__be32 port_rcv_packets;
	__be32 port_xmit_wait;
} __packed;

struct ib_pma_portcounters_ext {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be32 reserved1;
	__be64 port_xmit_data;
	__be64 port_rcv_data;
	__be64 port_xmit_packets;
	__be64 port_rcv_packets;
	__be64 port_unicast_xmit_packets;
	__be64 port_unicast_rcv_packets;
	__be64 port_multicast_xmit_packets;
	__be64 port_multicast_rcv_packets;
} __packed;

/* Verbs: enums with the kernel's values */
enum rdma_node_type { RDMA_NODE_IB_CA = 1, RDMA_NODE_IB_SWITCH };


enum ib_port_phys_state {
	IB_PORT_PHYS_STATE_SLEEP = 1,
	IB_PORT_PHYS_STATE_POLLING = 2,
	IB_PORT_PHYS_STATE_DISABLED = 3,
	IB_PORT_PHYS_STATE_LINK_UP = 5,
};


static inline int ib_mtu_enum_to_int(enum ib_mtu mtu)
{
	return mtu >= IB_MTU_256 && mtu <= IB_MTU_4096 ? 128 << mtu : -1;
}

static inline enum ib_mtu ib_mtu_int_to_enum(int mtu)
{
	enum ib_mtu e = IB_MTU_256;

	while (e < IB_MTU_4096 && ib_mtu_enum_to_int(e) < mtu)
		e++;
	return e;
}

enum ib_port_speed {
	IB_SPEED_SDR = 1, IB_SPEED_DDR = 2, IB_SPEED_QDR = 4,
	IB_SPEED_FDR10 = 8, IB_SPEED_FDR = 16, IB_SPEED_EDR = 32,
	IB_SPEED_HDR = 64, IB_SPEED_NDR = 128,
};

#define IB_PORT_SM				BIT(1)
#define IB_PORT_SYS_IMAGE_GUID_SUP		BIT(11)
#define IB_PORT_EXTENDED_SPEEDS_SUP		BIT(14)
#define IB_PORT_CLIENT_REG_SUP			BIT(25)

enum ib_event_type {
	IB_EVENT_CQ_ERR, IB_EVENT_QP_FATAL, IB_EVENT_QP_REQ_ERR,
	IB_EVENT_QP_ACCESS_ERR, IB_EVENT_COMM_EST, IB_EVENT_SQ_DRAINED,
	IB_EVENT_PATH_MIG, IB_EVENT_PATH_MIG_ERR, IB_EVENT_DEVICE_FATAL,
	IB_EVENT_PORT_ACTIVE, IB_EVENT_PORT_ERR, IB_EVENT_LID_CHANGE,
	IB_EVENT_PKEY_CHANGE, IB_EVENT_SM_CHANGE, IB_EVENT_SRQ_ERR,
	IB_EVENT_SRQ_LIMIT_REACHED, IB_EVENT_QP_LAST_WQE_REACHED,
	IB_EVENT_CLIENT_REREGISTER, IB_EVENT_GID_CHANGE,
};

enum ib_wc_status {
	IB_WC_SUCCESS, IB_WC_LOC_LEN_ERR, IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_EEC_OP_ERR, IB_WC_LOC_PROT_ERR, IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR, IB_WC_BAD_RESP_ERR, IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR, IB_WC_REM_ACCESS_ERR, IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR, IB_WC_RNR_RETRY_EXC_ERR, IB_WC_LOC_RDD_VIOL_ERR,
	IB_WC_REM_INV_RD_REQ_ERR, IB_WC_REM_ABORT_ERR, IB_WC_INV_EECN_ERR,
	IB_WC_INV_EEC_STATE_ERR, IB_WC_FATAL_ERR, IB_WC_RESP_TIMEOUT_ERR,
	IB_WC_GENERAL_ERR,
};

enum ib_wc_opcode {
	IB_WC_SEND = IB_UVERBS_WC_SEND,
	IB_WC_RDMA_WRITE = IB_UVERBS_WC_RDMA_WRITE,
	IB_WC_RDMA_READ = IB_UVERBS_WC_RDMA_READ,
	IB_WC_COMP_SWAP = IB_UVERBS_WC_COMP_SWAP,
	IB_WC_FETCH_ADD = IB_UVERBS_WC_FETCH_ADD,
	IB_WC_LOCAL_INV = IB_UVERBS_WC_LOCAL_INV,
	IB_WC_BIND_MW = IB_UVERBS_WC_BIND_MW,
	IB_WC_REG_MR = IB_UVERBS_WC_TSO + 1,
	IB_WC_RECV = 1 << 7,
	IB_WC_RECV_RDMA_WITH_IMM,
};

enum ib_wc_flags {
	IB_WC_GRH = 1, IB_WC_WITH_IMM = 2, IB_WC_WITH_INVALIDATE = 4,
};

enum ib_qp_type {
	IB_QPT_SMI, IB_QPT_GSI,
	IB_QPT_RC = IB_UVERBS_QPT_RC,
	IB_QPT_UC = IB_UVERBS_QPT_UC,
	IB_QPT_UD = IB_UVERBS_QPT_UD,
	IB_QPT_XRC_INI = 9,
	IB_QPT_XRC_TGT,
};

enum ib_qp_state {
	IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS, IB_QPS_SQD,
	IB_QPS_SQE, IB_QPS_ERR,
};

enum ib_sig_type { IB_SIGNAL_ALL_WR, IB_SIGNAL_REQ_WR };

enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = IB_UVERBS_ACCESS_LOCAL_WRITE,
	IB_ACCESS_REMOTE_WRITE = IB_UVERBS_ACCESS_REMOTE_WRITE,
	IB_ACCESS_REMOTE_READ = IB_UVERBS_ACCESS_REMOTE_READ,
	IB_ACCESS_REMOTE_ATOMIC = IB_UVERBS_ACCESS_REMOTE_ATOMIC,
	IB_ACCESS_MW_BIND = IB_UVERBS_ACCESS_MW_BIND,
	IB_ACCESS_ON_DEMAND = IB_UVERBS_ACCESS_ON_DEMAND,
	IB_ZERO_BASED = IB_UVERBS_ACCESS_ZERO_BASED,
	IB_ACCESS_OPTIONAL = IB_UVERBS_ACCESS_OPTIONAL_RANGE,
};

static inline bool ib_access_writable(int access)
{
	return access & (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND);
}

enum ib_mr_rereg_flags {
	IB_MR_REREG_TRANS = 1, IB_MR_REREG_PD = 2, IB_MR_REREG_ACCESS = 4,
};

enum ib_send_flags {
	IB_SEND_FENCE = 1, IB_SEND_SIGNALED = 2, IB_SEND_SOLICITED = 4,
	IB_SEND_INLINE = 8,
};

enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = IB_UVERBS_WR_RDMA_WRITE,
	IB_WR_RDMA_WRITE_WITH_IMM = IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
	IB_WR_SEND = IB_UVERBS_WR_SEND,
	IB_WR_SEND_WITH_IMM = IB_UVERBS_WR_SEND_WITH_IMM,
	IB_WR_RDMA_READ = IB_UVERBS_WR_RDMA_READ,
	IB_WR_ATOMIC_CMP_AND_SWP = IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
	IB_WR_ATOMIC_FETCH_AND_ADD = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
	IB_WR_SEND_WITH_INV = IB_UVERBS_WR_SEND_WITH_INV,
	IB_WR_LOCAL_INV = IB_UVERBS_WR_LOCAL_INV,
	IB_WR_REG_MR = 0x20,
};

enum ib_qp_attr_mask {
	IB_QP_STATE = 1, IB_QP_CUR_STATE = 1 << 1,
	IB_QP_ACCESS_FLAGS = 1 << 3, IB_QP_PKEY_INDEX = 1 << 4,
	IB_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	IB_QP_PORT = 1 << 5, IB_QP_QKEY = 1 << 6, IB_QP_AV = 1 << 7,
	IB_QP_PATH_MTU = 1 << 8, IB_QP_TIMEOUT = 1 << 9,
	IB_QP_RETRY_CNT = 1 << 10, IB_QP_RNR_RETRY = 1 << 11,
	IB_QP_RQ_PSN = 1 << 12, IB_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	IB_QP_ALT_PATH = 1 << 14, IB_QP_MIN_RNR_TIMER = 1 << 15,
	IB_QP_SQ_PSN = 1 << 16, IB_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	IB_QP_PATH_MIG_STATE = 1 << 18, IB_QP_DEST_QPN = 1 << 20,
};

enum ib_mig_state { IB_MIG_MIGRATED, IB_MIG_REARM, IB_MIG_ARMED };

enum ib_srq_type { IB_SRQT_BASIC, IB_SRQT_XRC };
enum ib_srq_attr_mask { IB_SRQ_MAX_WR = 1, IB_SRQ_LIMIT = 2 };
enum ib_mr_type { IB_MR_TYPE_MEM_REG };

enum ib_cq_notify_flags {
	IB_CQ_SOLICITED = 1, IB_CQ_NEXT_COMP = 2, IB_CQ_SOLICITED_MASK = 3,
	IB_CQ_REPORT_MISSED_EVENTS = 4,
};

enum rdma_ah_attr_type { RDMA_AH_ATTR_TYPE_UNDEFINED, RDMA_AH_ATTR_TYPE_IB };
enum ib_ah_flags { IB_AH_GRH = 1 };

/* Verbs objects: the fields pib uses */
union ib_gid {
	u8 raw[16];
	struct {
		__be64 subnet_prefix;
		__be64 interface_id;
	} global;
};

struct ib_grh {
	__be32 version_tclass_flow;
	__be16 paylen;
	u8 next_hdr;
	u8 hop_limit;
	union ib_gid sgid;
	union ib_gid dgid;
};

struct ib_device {
	char name[64];
	char node_desc[64];
	int num_comp_vectors;
};

#define IB_DEVICE_NODE_DESC_MAX		64

struct ib_device_ops;
struct ib_udata { size_t inlen, outlen; };
struct uverbs_attr_bundle { struct ib_udata driver_udata; };
#define rdma_udata_to_uverbs_attr_bundle(udata) \
	container_of(udata, struct uverbs_attr_bundle, driver_udata)
struct ib_ucontext { struct ib_device *device; };
#define rdma_udata_to_drv_context(udata, type, member) \
	((type *)kshim_udata_context(udata))
void *kshim_udata_context(struct ib_udata *udata);
int ib_copy_to_udata(struct ib_udata *udata, void *src, size_t len);
int ib_copy_from_udata(void *dst, struct ib_udata *udata, size_t len);
#define __user
#define u64_to_user_ptr(x)	((void __user *)(uintptr_t)(x))
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);

struct rdma_user_mmap_entry { size_t npages; };
int rdma_user_mmap_entry_insert(struct ib_ucontext *uc,
				struct rdma_user_mmap_entry *e, size_t len);
u64 rdma_user_mmap_get_offset(struct rdma_user_mmap_entry *e);
void rdma_user_mmap_entry_remove(struct rdma_user_mmap_entry *e);
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get(struct ib_ucontext *uc, struct vm_area_struct *vma);
void rdma_user_mmap_entry_put(struct rdma_user_mmap_entry *e);
int remap_vmalloc_range(struct vm_area_struct *vma, void *addr,
			unsigned long pgoff);

struct rdma_restrack_entry {
	u32 id;
	const char *kern_name;
};

struct ib_pd {
	struct ib_device *device;
	struct rdma_restrack_entry res;
};
struct ib_ah { struct ib_device *device; };

struct ib_mr {
	struct ib_device *device;
	struct ib_pd *pd;
	u32 lkey, rkey;
	u64 iova, length;
	unsigned int page_size;
};

enum ib_mw_type { IB_MW_TYPE_1 = 1, IB_MW_TYPE_2 = 2 };

struct ib_mw {
	struct ib_device *device;
	struct ib_pd *pd;
	u32 rkey;
	enum ib_mw_type type;
};

struct ib_event;
struct ib_cq;
typedef void (*ib_comp_handler)(struct ib_cq *cq, void *cq_context);

/* The RDMA core's resource tracker entry: the number it shows. */
struct ib_cq {
	struct ib_device *device;
	ib_comp_handler comp_handler;
	void (*event_handler)(struct ib_event *ev, void *ctx);
	void *cq_context;
	int cqe;
	struct rdma_restrack_entry res;
};

struct ib_xrcd {
	struct ib_device *device;
};

struct ib_srq {
	struct ib_device *device;
	struct ib_pd *pd;
	void (*event_handler)(struct ib_event *ev, void *ctx);
	void *srq_context;
	enum ib_srq_type srq_type;
	struct {
		struct ib_cq *cq;
		union {
			struct {
				struct ib_xrcd *xrcd;
				u32 srq_num;
			} xrc;
		};
	} ext;
	struct rdma_restrack_entry res;
};

struct ib_qp {
	struct ib_device *device;
	struct ib_pd *pd;
	struct ib_cq *send_cq, *recv_cq;
	struct ib_srq *srq;
	u32 qp_num;
	enum ib_qp_type qp_type;
	void (*event_handler)(struct ib_event *ev, void *ctx);
	void *qp_context;
	struct rdma_restrack_entry res;
};

struct ib_event {
	struct ib_device *device;
	union {
		struct ib_cq *cq;
		struct ib_qp *qp;
		struct ib_srq *srq;
		u32 port_num;
	} element;
	enum ib_event_type event;
};

void ib_dispatch_event(const struct ib_event *ev);

struct ib_global_route {
	union ib_gid dgid;
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
};

struct rdma_ah_attr {
	struct ib_global_route grh;
	u8 sl;
	u8 static_rate;
	u32 port_num;
	u8 ah_flags;
	enum rdma_ah_attr_type type;
	struct {
		u16 dlid;
		u8 src_path_bits;
	} ib;
};

#define rdma_ah_get_dlid(ah)		((ah)->ib.dlid)
#define rdma_ah_get_sl(ah)		((ah)->sl)
#define rdma_ah_get_path_bits(ah)	((ah)->ib.src_path_bits)
#define rdma_ah_get_static_rate(ah)	((ah)->static_rate)
#define rdma_ah_get_port_num(ah)	((ah)->port_num)
#define rdma_ah_get_ah_flags(ah)	((ah)->ah_flags)
#define rdma_ah_read_grh(ah)		(&(ah)->grh)
#define rdma_ah_set_dlid(ah, v)		((ah)->ib.dlid = (v))
#define rdma_ah_set_sl(ah, v)		((ah)->sl = (v))
#define rdma_ah_set_path_bits(ah, v)	((ah)->ib.src_path_bits = (v))
#define rdma_ah_set_static_rate(ah, v)	((ah)->static_rate = (v))
#define rdma_ah_set_port_num(ah, v)	((ah)->port_num = (v))

static inline void rdma_ah_set_grh(struct rdma_ah_attr *ah,
				   union ib_gid *dgid, u32 flow_label,
				   u8 sgid_index, u8 hop_limit, u8 tclass)
{
	ah->ah_flags |= IB_AH_GRH;
	ah->grh.dgid = *dgid;
	ah->grh.flow_label = flow_label;
	ah->grh.sgid_index = sgid_index;
	ah->grh.hop_limit = hop_limit;
	ah->grh.traffic_class = tclass;
}

struct ib_wc {
	u64 wr_id;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
	u32 vendor_err;
	u32 byte_len;
	struct ib_qp *qp;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	u32 src_qp;
	u32 slid;
	int wc_flags;
	u16 pkey_index;
	u8 sl;
	u8 dlid_path_bits;
	u32 port_num;
};

struct ib_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

struct ib_send_wr {
	struct ib_send_wr *next;
	u64 wr_id;
	struct ib_sge *sg_list;
	int num_sge;
	enum ib_wr_opcode opcode;
	int send_flags;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
};

struct ib_rdma_wr {
	struct ib_send_wr wr;
	u64 remote_addr;
	u32 rkey;
};

struct ib_atomic_wr {
	struct ib_send_wr wr;
	u64 remote_addr;
	u64 compare_add;
	u64 swap;
	u32 rkey;
};

struct ib_ud_wr {
	struct ib_send_wr wr;
	struct ib_ah *ah;
	u32 remote_qpn;
	u32 remote_qkey;
	u16 pkey_index;
};

struct ib_reg_wr {
	struct ib_send_wr wr;
	struct ib_mr *mr;
	u32 key;
	int access;
};

#define rdma_wr(w)	container_of(w, const struct ib_rdma_wr, wr)
#define atomic_wr(w)	container_of(w, const struct ib_atomic_wr, wr)
#define ud_wr(w)	container_of(w, const struct ib_ud_wr, wr)
#define reg_wr(w)	container_of(w, const struct ib_reg_wr, wr)

struct ib_recv_wr {
	struct ib_recv_wr *next;
	u64 wr_id;
	struct ib_sge *sg_list;
	int num_sge;
};

struct ib_qp_cap {
	u32 max_send_wr, max_recv_wr;
	u32 max_send_sge, max_recv_sge;
	u32 max_inline_data;
};

struct ib_qp_init_attr {
	void (*event_handler)(struct ib_event *ev, void *ctx);
	void *qp_context;
	struct ib_cq *send_cq, *recv_cq;
	struct ib_srq *srq;
	struct ib_xrcd *xrcd;
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
	enum ib_qp_type qp_type;
	u32 create_flags;
	u32 port_num;
};

struct ib_qp_attr {
	enum ib_qp_state qp_state, cur_qp_state;
	enum ib_mtu path_mtu;
	u32 qkey, rq_psn, sq_psn, dest_qp_num;
	int qp_access_flags;
	struct ib_qp_cap cap;
	struct rdma_ah_attr ah_attr, alt_ah_attr;
	u16 pkey_index, alt_pkey_index;
	u8 en_sqd_async_notify, sq_draining, max_rd_atomic, max_dest_rd_atomic;
	u8 min_rnr_timer;
	u32 port_num, alt_port_num;
	u8 timeout, retry_cnt, rnr_retry, alt_timeout;
	enum ib_mig_state path_mig_state;
};

bool ib_modify_qp_is_ok(enum ib_qp_state cur, enum ib_qp_state next,
			enum ib_qp_type type, int mask);

struct ib_cq_init_attr {
	unsigned int cqe;
	u32 comp_vector;
	u32 flags;
};

struct ib_srq_attr {
	u32 max_wr, max_sge, srq_limit;
};

struct ib_srq_init_attr {
	void (*event_handler)(struct ib_event *ev, void *ctx);
	void *srq_context;
	struct ib_srq_attr attr;
	enum ib_srq_type srq_type;
};

int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset,
		   int (*set_page)(struct ib_mr *, u64));

/*
 * Tracepoints (pib_trace.h): each trace_NAME() does nothing and
 * trace_NAME_enabled() is false; the events' fields and formats vanish.
 */
#define PARAMS(args...)		args
#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TRACE_DEFINE_ENUM(x)
#define KSHIM_TRACE(name, proto)					\
	static inline void trace_##name(proto) {}			\
	static inline bool trace_##name##_enabled(void) { return false; }
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(class, name, proto, args)				\
	KSHIM_TRACE(name, PARAMS(proto))
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	KSHIM_TRACE(name, PARAMS(proto))

/* The harness's control of the simulated kernel */
int kshim_run_work(void);
bool kshim_run_timers(void);
bool kshim_timer_due(void);
void kshim_reset(void);
void kshim_check_idle(void);

#endif /* PIB_KSHIM_H */
