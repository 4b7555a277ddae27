/*
 * workloads/rodinia/btree.c - B+ tree queries (Rodinia `b+tree`, Che et al., IISWC 2009;
 * the GPU version of Fix, Wilkes & Skadron, "Accelerating braided B+ tree searches on a GPU
 * with CUDA", A4MMC 2011).
 *
 * The host builds a B+ tree of order DEFAULT_ORDER = 256 by inserting the keys of its input
 * file one by one (main.c's insert(): leaves split at cut(order - 1), internal nodes at
 * cut(order), duplicates ignored), then transform_to_cuda() lays it out breadth first as an
 * array of `knode` {location, indices[257], keys[257], is_leaf, num_keys} (2068 bytes each;
 * keys framed by INT_MIN and INT_MAX sentinels and padded with INT_MAX up to the order) and an
 * array of records. The command file then runs the two kernels, one CTA of `order` = 256
 * threads (8 warps) per query:
 * - findK (command `k count`): walks height levels from the root; per level thread thid tests
 *   keys[thid] <= key < keys[thid + 1] of the current knode (two per-lane loads, the second
 *   only where the first holds, as && compiles) and the one thread that matches stores its
 *   child index in offset[bid]; __syncthreads; thread 0 copies offset to currKnode[bid];
 *   __syncthreads. At the leaf the thread whose key equals the query loads the record and
 *   stores ans[bid].
 * - findRangeK (command `j count rSize`): the same walk for the start and the end of a range
 *   at once (currKnode/offset and lastKnode/offset_2), then the start's record index into
 *   Recstart[bid] and, after a barrier, the range length into Reclen[bid].
 * Every access is a global load or store of device memory (the knodes, the per-query long
 * arrays currKnode, offset ..., the query keys): uniform loads for the per-CTA words, per-lane
 * loads of 128 consecutive bytes of a knode's keys or indices for the node arrays.
 *
 * No coherence needed: a CTA touches its own query's words only (through barriers, on one SM)
 * and the tree is read-only.
 *
 * Input: Rodinia's mil.txt holds 1 000 000 keys (its size, 6 888 898 bytes, is exactly that
 * of the numbers 0 .. 999 999 one per line after the count line); here a seeded random
 * permutation of 0 .. size - 1 inserted in that order. Queries as main.c draws them:
 * (rand() / (float)RAND_MAX) * size from the seed. Check: every ans, Recstart and Reclen
 * against a reference computed from the sorted key set (record index = rank of the key, as
 * the breadth-first layout numbers the leaves' records left to right), not from the tree.
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_BT	     0x6274726565000000ull
#define BT_ORDER     256 /* DEFAULT_ORDER: keys per node at most order - 1; threads per CTA */
#define BT_WARPS     (BT_ORDER / WARP_LANES)
#define BT_NODE_KEYS (BT_ORDER + 1) /* knode's indices[] and keys[] */

/* struct knode's layout (int location; int indices[257]; int keys[257]; bool is_leaf;
 * int num_keys): byte offsets and size. */
#define KN_INDICES 4
#define KN_KEYS	   (KN_INDICES + 4 * BT_NODE_KEYS)
#define KN_IS_LEAF (KN_KEYS + 4 * BT_NODE_KEYS)
#define KN_NUMKEYS (KN_IS_LEAF + 4)
#define KN_BYTES   (KN_NUMKEYS + 4)

/*
 * Issue slots per warp (SASS-like counts of findK / findRangeK):
 * prologue: 2 S2R, the per-query addresses bid * 8 and bid * 4 (4 ISCADD), loop setup and
 *   test (2): 8;
 * per walk and level: the knode address currKnode * 2068 + base (IMAD.WIDE + IADD), keys[thid]
 *   address (ISCADD), the two compares and branches (4), the thid == 0 test and branch (2),
 *   loop increment and test (2): 12;
 * the matching lane: indices address (IADD), bound test and branch against knodes_elem (2),
 *   sign extension to long (1): 4;
 * at the leaf: knode address (2), keys address (1), compare and branch (2): 5; the matching
 *   lane's record or length arithmetic: 3.
 */
#define BT_PROLOGUE 8
#define BT_LEVEL    12
#define BT_MATCH    4
#define BT_LEAF	    5
#define BT_ANSWER   3

struct bt_args {
	uint64_t knodes, records;
	uint64_t knodes_elem;
	unsigned height;
	/* findK: long currKnode[], offset[]; int keys[]; record ans[] */
	uint64_t curr, offset, keys, ans;
	/* findRangeK: long lastKnode[], offset_2[]; int start[], end[], Recstart[], Reclen[] */
	uint64_t last, offset2, start, end, recstart, reclen;
};

/* ---- kernels -------------------------------------------------------------------------------- */

/* One level of a walk: the knode `cur` (*cur_at) and the key (*key_at) reread, then the lane
 * whose keys[thid] <= key < keys[thid + 1] in knode `cur` stores indices[thid] into *offset_at
 * (if below knodes_elem). `idx_node` is the knode whose indices are read (findK reads them from
 * knodesD[offsetD[bid]], findRangeK from currKnode's). */
static void bt_level(struct gpu_warp *w, const struct bt_args *a, uint64_t cur_at, uint64_t key_at,
		     uint64_t offset_at, bool idx_from_offset)
{
	uint64_t cur = gw_ld64(w, cur_at);
	int32_t key = (int32_t)gw_ld32(w, key_at);
	uint64_t addr[WARP_LANES], v[WARP_LANES];
	uint32_t k0[WARP_LANES], k1[WARP_LANES], idx[WARP_LANES];
	uint32_t first = 0, match = 0, store = 0;
	unsigned wi = gw_warp(w);
	uint64_t node = cur;

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->knodes + cur * KN_BYTES + KN_KEYS + (wi * WARP_LANES + l) * 4;
	gw_ld32v(w, addr, LANES_ALL, k0);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((int32_t)k0[l] <= key)
			first |= 1u << l;
	gw_compute(w, BT_LEVEL);
	if (!first)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] += 4;
	gw_ld32v(w, addr, first, k1);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((first >> l & 1) && (int32_t)k1[l] > key)
			match |= 1u << l;
	if (!match)
		return;
	if (idx_from_offset)
		node = gw_ld64(w, offset_at);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->knodes + node * KN_BYTES + KN_INDICES + (wi * WARP_LANES + l) * 4;
	gw_ld32v(w, addr, match, idx);
	gw_compute(w, BT_MATCH);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		if ((match >> l & 1) && (int64_t)(int32_t)idx[l] < (int64_t)a->knodes_elem)
			store |= 1u << l;
		addr[l] = offset_at;
		v[l] = (uint64_t)(int64_t)(int32_t)idx[l];
	}
	if (store)
		gw_stv(w, addr, store, 8, v);
}

/* Thread 0 after the level's barrier: *curr_at = *offset_at. */
static void bt_advance(struct gpu_warp *w, uint64_t curr_at, uint64_t offset_at)
{
	if (gw_warp(w) == 0)
		gw_st64(w, curr_at, gw_ld64(w, offset_at));
}

/* The leaf: lanes whose keys[thid] == key; their indices[thid] in idx[]. */
static uint32_t bt_leaf(struct gpu_warp *w, const struct bt_args *a, uint64_t curr_at,
			uint64_t key_at, uint32_t *idx)
{
	uint64_t addr[WARP_LANES], cur = gw_ld64(w, curr_at);
	uint32_t k[WARP_LANES], match = 0;
	unsigned wi = gw_warp(w);
	int32_t key;

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->knodes + cur * KN_BYTES + KN_KEYS + (wi * WARP_LANES + l) * 4;
	gw_ld32v(w, addr, LANES_ALL, k);
	key = (int32_t)gw_ld32(w, key_at);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((int32_t)k[l] == key)
			match |= 1u << l;
	gw_compute(w, BT_LEAF);
	if (!match)
		return 0;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->knodes + cur * KN_BYTES + KN_INDICES + (wi * WARP_LANES + l) * 4;
	gw_ld32v(w, addr, match, idx);
	gw_compute(w, BT_ANSWER);
	return match;
}

static void bt_find_k(struct gpu_warp *w)
{
	const struct bt_args *a = gw_args(w);
	uint64_t bid = gw_cta_x(w), addr[WARP_LANES], v[WARP_LANES];
	uint64_t curr_at = a->curr + bid * 8, offset_at = a->offset + bid * 8;
	uint64_t key_at = a->keys + bid * 4;
	uint32_t idx[WARP_LANES], match;

	gw_compute(w, BT_PROLOGUE);
	for (unsigned i = 0; i < a->height; i++) {
		bt_level(w, a, curr_at, key_at, offset_at, true);
		gw_barrier(w);
		bt_advance(w, curr_at, offset_at);
		gw_barrier(w);
	}
	/* ansD[bid].value = recordsD[knodesD[currKnodeD[bid]].indices[thid]].value */
	match = bt_leaf(w, a, curr_at, key_at, idx);
	if (!match)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->records + (uint64_t)idx[l] * 4;
	gw_ldv(w, addr, match, 4, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->ans + bid * 4;
	gw_stv(w, addr, match, 4, v);
}

static void bt_find_range_k(struct gpu_warp *w)
{
	const struct bt_args *a = gw_args(w);
	uint64_t bid = gw_cta_x(w), addr[WARP_LANES], v[WARP_LANES];
	uint64_t curr_at = a->curr + bid * 8, offset_at = a->offset + bid * 8;
	uint64_t last_at = a->last + bid * 8, offset2_at = a->offset2 + bid * 8;
	uint64_t start_at = a->start + bid * 4, end_at = a->end + bid * 4;
	uint64_t recstart_at = a->recstart + bid * 4;
	uint32_t idx[WARP_LANES], match;

	gw_compute(w, BT_PROLOGUE);
	for (unsigned i = 0; i < a->height; i++) {
		bt_level(w, a, curr_at, start_at, offset_at, false);
		bt_level(w, a, last_at, end_at, offset2_at, false);
		gw_barrier(w);
		bt_advance(w, curr_at, offset_at);
		bt_advance(w, last_at, offset2_at);
		gw_barrier(w);
	}
	/* RecstartD[bid] = knodesD[currKnodeD[bid]].indices[thid] */
	match = bt_leaf(w, a, curr_at, start_at, idx);
	if (match) {
		for (unsigned l = 0; l < WARP_LANES; l++) {
			addr[l] = recstart_at;
			v[l] = idx[l];
		}
		gw_stv(w, addr, match, 4, v);
	}
	gw_barrier(w);
	/* ReclenD[bid] = knodesD[lastKnodeD[bid]].indices[thid] - RecstartD[bid] + 1 */
	match = bt_leaf(w, a, last_at, end_at, idx);
	if (!match)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = recstart_at;
	gw_ldv(w, addr, match, 4, v);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		v[l] = (uint32_t)((int32_t)idx[l] - (int32_t)v[l] + 1);
		addr[l] = a->reclen + bid * 4;
	}
	gw_stv(w, addr, match, 4, v);
}

/* ---- host: the B+ tree of main.c ------------------------------------------------------------ */

struct bt_node {
	int32_t parent; /* node index, -1 at the root */
	int32_t nkeys;
	bool leaf;
	int32_t keys[BT_ORDER];	   /* order - 1 used */
	int32_t ptr[BT_ORDER + 1]; /* children (node indices); leaves: the record values */
};

struct bt_tree {
	struct bt_node *node;
	size_t n, cap;
	int32_t root; /* -1: empty */
};

static int bt_cut(int length)
{
	return length % 2 == 0 ? length / 2 : length / 2 + 1;
}

static int bt_new_node(struct bt_tree *t, bool leaf)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct bt_node *nn = realloc(t->node, cap * sizeof(*nn));

		if (!nn)
			return -CS_ENOMEM;
		t->node = nn;
		t->cap = cap;
	}
	memset(&t->node[t->n], 0, sizeof(t->node[0]));
	t->node[t->n].parent = -1;
	t->node[t->n].leaf = leaf;
	return (int)t->n++;
}

/* insert_into_parent (with insert_into_new_root, insert_into_node and
 * insert_into_node_after_splitting). */
static int bt_insert_parent(struct bt_tree *t, int left, int32_t key, int right)
{
	int parent = t->node[left].parent, li = 0;
	int32_t tk[BT_ORDER], tp[BT_ORDER + 1];
	struct bt_node *p, *o, *sib;
	int split, sib_id, i, j;
	int32_t k_prime;

	if (parent < 0) {
		int root = bt_new_node(t, false);

		if (root < 0)
			return root;
		p = &t->node[root];
		p->keys[0] = key;
		p->ptr[0] = left;
		p->ptr[1] = right;
		p->nkeys = 1;
		t->node[left].parent = root;
		t->node[right].parent = root;
		t->root = root;
		return 0;
	}
	p = &t->node[parent];
	while (li <= p->nkeys && p->ptr[li] != left)
		li++;
	if (p->nkeys < BT_ORDER - 1) {
		for (i = p->nkeys; i > li; i--) {
			p->ptr[i + 1] = p->ptr[i];
			p->keys[i] = p->keys[i - 1];
		}
		p->ptr[li + 1] = right;
		p->keys[li] = key;
		p->nkeys++;
		t->node[right].parent = parent;
		return 0;
	}
	sib_id = bt_new_node(t, false);
	if (sib_id < 0)
		return sib_id;
	o = &t->node[parent];
	sib = &t->node[sib_id];
	for (i = 0, j = 0; i < o->nkeys + 1; i++, j++) {
		if (j == li + 1)
			j++;
		tp[j] = o->ptr[i];
	}
	for (i = 0, j = 0; i < o->nkeys; i++, j++) {
		if (j == li)
			j++;
		tk[j] = o->keys[i];
	}
	tp[li + 1] = right;
	tk[li] = key;
	split = bt_cut(BT_ORDER);
	o->nkeys = 0;
	for (i = 0; i < split - 1; i++) {
		o->ptr[i] = tp[i];
		o->keys[i] = tk[i];
		o->nkeys++;
	}
	o->ptr[i] = tp[i];
	k_prime = tk[split - 1];
	for (++i, j = 0; i < BT_ORDER; i++, j++) {
		sib->ptr[j] = tp[i];
		sib->keys[j] = tk[i];
		sib->nkeys++;
	}
	sib->ptr[j] = tp[i];
	sib->parent = o->parent;
	t->node[right].parent = parent; /* moved below if it went to the new node */
	for (i = 0; i <= sib->nkeys; i++)
		t->node[sib->ptr[i]].parent = sib_id;
	return bt_insert_parent(t, parent, k_prime, sib_id);
}

/* Index of the first of the n sorted keys above key (past: true) or not below it (false). */
static int bt_search(const int32_t *keys, int n, int32_t key, bool past)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (past ? key >= keys[mid] : keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* insert(root, key, key): a record of value key under key; duplicates ignored. */
static int bt_insert(struct bt_tree *t, int32_t key)
{
	int32_t tk[BT_ORDER], tp[BT_ORDER];
	struct bt_node *c, *nl;
	int leaf, nl_id, split, ii, i, j;

	if (t->root < 0) {
		int r = bt_new_node(t, true);

		if (r < 0)
			return r;
		t->node[r].keys[0] = key;
		t->node[r].ptr[0] = key;
		t->node[r].nkeys = 1;
		t->root = r;
		return 0;
	}
	/* find_leaf: past every key <= the new one */
	leaf = t->root;
	while (!t->node[leaf].leaf) {
		c = &t->node[leaf];
		leaf = c->ptr[bt_search(c->keys, c->nkeys, key, true)];
	}
	c = &t->node[leaf];
	ii = bt_search(c->keys, c->nkeys, key, false);
	if (ii < c->nkeys && c->keys[ii] == key)
		return 0; /* find() found it */
	if (c->nkeys < BT_ORDER - 1) {
		memmove(&c->keys[ii + 1], &c->keys[ii], (size_t)(c->nkeys - ii) * 4);
		memmove(&c->ptr[ii + 1], &c->ptr[ii], (size_t)(c->nkeys - ii) * 4);
		c->keys[ii] = key;
		c->ptr[ii] = key;
		c->nkeys++;
		return 0;
	}
	/* insert_into_leaf_after_splitting */
	nl_id = bt_new_node(t, true);
	if (nl_id < 0)
		return nl_id;
	c = &t->node[leaf];
	nl = &t->node[nl_id];
	for (i = 0, j = 0; i < c->nkeys; i++, j++) {
		if (j == ii)
			j++;
		tk[j] = c->keys[i];
		tp[j] = c->ptr[i];
	}
	tk[ii] = key;
	tp[ii] = key;
	split = bt_cut(BT_ORDER - 1);
	c->nkeys = 0;
	for (i = 0; i < split; i++) {
		c->keys[i] = tk[i];
		c->ptr[i] = tp[i];
		c->nkeys++;
	}
	for (i = split, j = 0; i < BT_ORDER; i++, j++) {
		nl->keys[j] = tk[i];
		nl->ptr[j] = tp[i];
		nl->nkeys++;
	}
	nl->parent = c->parent;
	return bt_insert_parent(t, leaf, nl->keys[0], nl_id);
}

/* height(): edges from the root to the leaves. */
static unsigned bt_height(const struct bt_tree *t)
{
	unsigned hgt = 0;

	for (int c = t->root; !t->node[c].leaf; c = t->node[c].ptr[0])
		hgt++;
	return hgt;
}

static void kn_put(uint8_t *kn, unsigned off, int32_t v)
{
	memcpy(kn + off, &v, 4);
}

/* transform_to_cuda(): the knodes breadth first and the records of the leaves left to right.
 * kn: t->n knodes of KN_BYTES; rec: the records. */
static int bt_transform(const struct bt_tree *t, uint8_t *kn, int32_t *rec)
{
	int32_t *queue = malloc(t->n * sizeof(int32_t));
	size_t head = 0, tail = 0;
	int32_t nodeindex = 0, recordindex = 0, queueindex = 0;

	if (!queue)
		return -CS_ENOMEM;
	queue[tail++] = t->root;
	nodeindex++;
	while (head < tail) {
		const struct bt_node *n = &t->node[queue[head++]];
		uint8_t *k = kn + (size_t)queueindex * KN_BYTES;
		int num_keys = n->nkeys + 2, i;

		kn_put(k, 0, queueindex++);
		k[KN_IS_LEAF] = n->leaf;
		kn_put(k, KN_NUMKEYS, num_keys);
		kn_put(k, KN_KEYS, INT_MIN);
		kn_put(k, KN_KEYS + 4 * (num_keys - 1), INT_MAX);
		/* up to keys[order]: main.c leaves that last one uninitialised */
		for (i = num_keys; i < BT_NODE_KEYS; i++)
			kn_put(k, KN_KEYS + 4 * i, INT_MAX);
		if (!n->leaf) {
			kn_put(k, KN_INDICES, nodeindex++);
			for (i = 1; i < num_keys - 1; i++) {
				kn_put(k, KN_KEYS + 4 * i, n->keys[i - 1]);
				queue[tail++] = n->ptr[i - 1];
				kn_put(k, KN_INDICES + 4 * i, nodeindex++);
			}
			queue[tail++] = n->ptr[i - 1];
		} else {
			kn_put(k, KN_INDICES, 0);
			for (i = 1; i < num_keys - 1; i++) {
				kn_put(k, KN_KEYS + 4 * i, n->keys[i - 1]);
				rec[recordindex] = n->ptr[i - 1];
				kn_put(k, KN_INDICES + 4 * i, recordindex++);
			}
		}
		kn_put(k, KN_INDICES + 4 * (num_keys - 1), queueindex);
	}
	free(queue);
	return 0;
}

static int bt_cmp_int(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return (a > b) - (a < b);
}

/* Rank of key in the sorted set, or -1 if absent. */
static int64_t bt_rank(const int32_t *sorted, size_t n, int32_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sorted[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sorted[lo] == key ? (int64_t)lo : -1;
}

/* (rand() / (float)RAND_MAX) * size, as main.c draws a query key. */
static int32_t bt_draw(uint64_t seed, uint64_t id, uint64_t i, int32_t size)
{
	return (int32_t)((float)wl_unit(seed, id, i) * (float)size);
}

int rodinia_btree_main(struct gpu_host *h)
{
	/* mil.txt and command.txt ("k 10000", "j 6000 3000") */
	int32_t size = (int32_t)wl_by_size(h, 8192, 131072, 1000000);
	unsigned k_count = (unsigned)wl_by_size(h, 48, 600, 10000);
	unsigned j_count = (unsigned)wl_by_size(h, 24, 360, 6000);
	int32_t r_size = (int32_t)wl_by_size(h, 24, 400, 3000);
	uint64_t seed = gh_seed(h) ^ TAG_BT;
	struct bt_tree t = {.root = -1};
	struct bt_args a = {0};
	struct gpu_kernel kk = {.name = "findK",
				.ctas = k_count,
				.warps_per_cta = BT_WARPS,
				.regs_per_thread = 20,
				.fn = bt_find_k,
				.args = &a};
	struct gpu_kernel kj = {.name = "findRangeK",
				.ctas = j_count,
				.warps_per_cta = BT_WARPS,
				.regs_per_thread = 24,
				.fn = bt_find_range_k,
				.args = &a};
	int32_t *keys = malloc((size_t)size * sizeof(int32_t)), *rec = NULL;
	int32_t *q = malloc((size_t)k_count * sizeof(int32_t));
	int32_t *ans = malloc((size_t)k_count * sizeof(int32_t));
	int32_t *start = malloc((size_t)j_count * sizeof(int32_t));
	int32_t *end = malloc((size_t)j_count * sizeof(int32_t));
	int32_t *rs = calloc(j_count, sizeof(int32_t)), *rl = calloc(j_count, sizeof(int32_t));
	uint8_t *kn = NULL;
	uint64_t rng = seed, found = 0;
	size_t nrec;
	int err = -CS_ENOMEM;

	if (!keys || !q || !ans || !start || !end || !rs || !rl)
		goto out;
	/* the input file: a permutation of 0 .. size - 1, inserted in file order */
	for (int32_t i = 0; i < size; i++)
		keys[i] = i;
	for (int32_t i = size - 1; i > 0; i--) {
		int32_t j = (int32_t)wl_below(&rng, (uint64_t)i + 1), x = keys[i];

		keys[i] = keys[j];
		keys[j] = x;
	}
	for (int32_t i = 0; i < size; i++) {
		err = bt_insert(&t, keys[i]);
		if (err)
			goto out;
	}
	err = -CS_ENOMEM;
	kn = calloc(t.n, KN_BYTES);
	rec = malloc((size_t)size * sizeof(int32_t));
	if (!kn || !rec)
		goto out;
	err = bt_transform(&t, kn, rec);
	if (err)
		goto out;
	a.height = bt_height(&t);
	a.knodes_elem = t.n;
	a.knodes = wl_upload(h, kn, t.n * KN_BYTES);
	a.records = wl_upload(h, rec, (size_t)size * sizeof(int32_t));
	/* the reference's sorted key set (records are numbered in key order) */
	qsort(keys, (size_t)size, sizeof(int32_t), bt_cmp_int);
	nrec = 0;
	for (int32_t i = 0; i < size; i++)
		if (i == 0 || keys[i] != keys[nrec - 1])
			keys[nrec++] = keys[i];

	/* command k: findK */
	for (unsigned i = 0; i < k_count; i++) {
		q[i] = bt_draw(seed, 1, i, size);
		ans[i] = -1;
	}
	a.curr = wl_alloc_zero(h, (size_t)k_count * 8);
	a.offset = wl_alloc_zero(h, (size_t)k_count * 8);
	a.keys = wl_upload(h, q, (size_t)k_count * sizeof(int32_t));
	a.ans = wl_upload(h, ans, (size_t)k_count * sizeof(int32_t));
	err = gh_launch(h, &kk);
	if (err)
		goto out;

	/* command j: findRangeK */
	for (unsigned i = 0; i < j_count; i++) {
		start[i] = bt_draw(seed, 2, i, size);
		end[i] = start[i] + r_size;
		if (end[i] >= size) {
			start[i] = start[i] - (end[i] - size);
			end[i] = size - 1;
		}
	}
	a.curr = wl_alloc_zero(h, (size_t)j_count * 8);
	a.offset = wl_alloc_zero(h, (size_t)j_count * 8);
	a.last = wl_alloc_zero(h, (size_t)j_count * 8);
	a.offset2 = wl_alloc_zero(h, (size_t)j_count * 8);
	a.start = wl_upload(h, start, (size_t)j_count * sizeof(int32_t));
	a.end = wl_upload(h, end, (size_t)j_count * sizeof(int32_t));
	a.recstart = wl_upload(h, rs, (size_t)j_count * sizeof(int32_t));
	a.reclen = wl_upload(h, rl, (size_t)j_count * sizeof(int32_t));
	err = gh_launch(h, &kj);
	if (err)
		goto out;

	gh_corrupt(h, a.reclen + (uint64_t)(j_count / 2) * 4, 4);
	gh_read(h, a.ans, ans, (size_t)k_count * sizeof(int32_t));
	gh_read(h, a.recstart, rs, (size_t)j_count * sizeof(int32_t));
	gh_read(h, a.reclen, rl, (size_t)j_count * sizeof(int32_t));
	for (unsigned i = 0; i < k_count; i++) {
		int32_t want = bt_rank(keys, nrec, q[i]) >= 0 ? q[i] : -1;

		found += want >= 0;
		if (ans[i] != want) {
			err = gh_fail(h, "btree: findK query %u (key %d) answered %d, want %d", i,
				      q[i], ans[i], want);
			goto out;
		}
	}
	for (unsigned i = 0; i < j_count; i++) {
		int64_t s = bt_rank(keys, nrec, start[i]), e = bt_rank(keys, nrec, end[i]);
		int32_t want_start = s >= 0 ? (int32_t)s : 0;
		int32_t want_len = e >= 0 ? (int32_t)(e - want_start + 1) : 0;

		if (rs[i] != want_start || rl[i] != want_len) {
			err = gh_fail(h,
				      "btree: findRangeK query %u (keys %d..%d) answered start %d "
				      "length %d, want start %d length %d",
				      i, start[i], end[i], rs[i], rl[i], want_start, want_len);
			goto out;
		}
	}
	gh_note(
	    h,
	    "btree: order %d tree of %zu keys (%zu knodes, height %u); findK %u queries (%" PRIu64
	    " found), findRangeK %u ranges of %d, every answer exact",
	    BT_ORDER, nrec, t.n, a.height, k_count, found, j_count, r_size);
	err = 0;
out:
	free(t.node);
	free(keys);
	free(rec);
	free(kn);
	free(q);
	free(ans);
	free(start);
	free(end);
	free(rs);
	free(rl);
	return err;
}
