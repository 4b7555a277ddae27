/*
 * workloads/rodinia/mummer.c - MUMmerGPU (Rodinia `mummergpu`, Che et al., IISWC 2009; Schatz et
 * al., "High-throughput sequence alignment using Graphics Processing Units", BMC Bioinformatics
 * 2007; Trapnell & Schatz, Parallel Computing 2009).
 *
 * Exact-match alignment of short reads against a reference genome through a suffix tree.
 * The host builds the suffix tree of "s" + reference + "$" (Rodinia: Ukkonen's algorithm in
 * suffix-tree.cpp), renumbers its nodes breadth first with the "curl-up" of four generations
 * below depth 16 (renumberTree) and flattens it into two 2-D textures of 16-byte texels at
 * (x, y) = id2addr(id) (REORDER_TREE): nodetex (parent, suffix link, edge start, edge end,
 * string depth: 3 bytes each) and childrentex (the A, C, G, T, $ children as 3-byte texture
 * addresses, and the left flanking base of a leaf, whose leaf id overlays the A child). Rodinia's
 * build (common.cu defaults) reads the tree through textures (TREETEX) and the reference string
 * and the queries from global memory (REFTEX = QRYTEX = 0).
 *
 * mummergpuKernel: one thread per query (CTAs of min(queries, 256) threads). For every start
 * position of its query (0 .. qlen - min_match_len) the thread walks down the tree from where
 * the previous position left it (suffix link of the last node passed, skipping the characters
 * known to match: mustmatch) and records the deepest match as a MatchCoord (node, characters
 * matched on the node's incoming edge) when it is at least min_match_len (20) long.
 * printKernel: one thread per match (the host gathers the non-empty MatchCoords into MatchInfo
 * records and sizes each match's output by the leaf count of its print parent). The thread
 * climbs from the match node to the highest ancestor deeper than min_match_len, then walks that
 * subtree depth first without a stack (parent links), writing for every leaf whose left
 * flanking base differs from the query's (left-maximal) the reference position and the length
 * of the match (the golden path: the match's own length below the match node, the depth of the
 * branching node elsewhere).
 *
 * SIMT divergence: every thread follows its own path through the tree. A warp runs its lanes'
 * programs side by side: each lane runs its scalar code until its next load or store ("site",
 * one per load or store of the CUDA source), and the warp issues one op per site at which any
 * lane waits (lanes at the same site coalesce, different sites serialise), in program order,
 * until every lane has returned. A 16-byte texel fetch (tex2D of a uint4) is two 8-byte texture
 * ops (the op API carries 8 bytes per lane); the 2-D textures are laid out as the 32-texel-high
 * column tiles REORDER_TREE's numbering is made for, i.e. texel (x, y) at 16 x the node's id.
 *
 * No coherence needed: the tree, reference and queries are read-only; every MatchCoord and
 * alignment has one writer; printKernel reads what the host prepared after the first kernel.
 *
 * Input (from the seed): a random reference of ACGT with 5% of it made of mutated copies of
 * earlier segments (repeats, so matches have several leaves); 100 bp reads, three in four
 * sampled from the reference with 2% substitutions, the others random. Check: every MatchCoord
 * of every query against matching statistics computed on the host by a from-the-root walk
 * (skip/count, no suffix links), and every alignment slot of printKernel against a recursive
 * depth-first walk of the host's tree.
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_MUM	       0x6d756d6d65720000ull
#define MUM_BLOCKSIZE  256  /* BLOCKSIZE */
#define MUM_MIN_MATCH  20   /* OPT_match_length's default */
#define MUM_READ_LEN   100  /* the 100 bp reads of Rodinia's input */
#define MUM_TEX_WIDTH  4096 /* MAX_TEXTURE_DIMENSION */
#define MUM_TEXBLOCK   32   /* TEXBLOCKSIZE */
#define MUM_BASES      5    /* children A C G T $ */
#define MUM_NONE       (-1)
#define MUM_COORD_SIZE 8  /* _MatchCoord: int node, int edge_match_length */
#define MUM_INFO_SIZE  20 /* MatchInfo */
#define MUM_ALIGN_SIZE 8  /* Alignment: int left_in_ref, unsigned short matchlen */

/* MatchInfo's fields */
#define MI_RESULTSOFFSET 0
#define MI_QUERYID	 4
#define MI_MATCHNODE	 8
#define MI_NUMLEAVES	 12
#define MI_EDGEMATCH	 16
#define MI_QRYSTARTPOS	 18

/*
 * Issue slots per warp for the code after each site (SASS-like counts):
 * mummergpuKernel: prologue (qryid IMAD, bound test, two loads' addresses, result base IMAD,
 *   last): 12; a query character then the loop test / root restart: 6; the children texel: the
 *   switch on c (4 compares, branches) and arrayToAddress (3 AND, 3 SHL, 3 OR), the cur == 0
 *   test: 16; the node texel: MKI of start and end (6), edgelen, edge_matchlen, past_node_end,
 *   dist_to_edge_end, the mustmatch branch with min/max (10), the character address: 18; a
 *   reference character: compare, branch, two increments, address: 6; the result store's
 *   test and make_int2: 4; the suffix texel: arrayToAddress, qrystart++, result += 8, loop: 14.
 * printKernel: field loads 4 (addresses); texels of the climb: MKI depth, compare, MKI/
 *   arrayToAddress of the parent: 14; the DFS step after a children texel: leafchar tests,
 *   MKI leafid, the page tests: 14; the parent's children compared with cur (4 arrayToAddress,
 *   4 compares): 30; the child selection (5 x (3 OR of bytes, branch)): 24; golden-path
 *   bookkeeping after a node texel: 10.
 */
#define CMK_PROLOGUE  12
#define CMK_QCHAR     6
#define CMK_CHILD     16
#define CMK_NODE      18
#define CMK_REF	      6
#define CMK_STORE     4
#define CMK_SUFFIX    14
#define CPK_FIELD     4
#define CPK_CLIMB     14
#define CPK_STEP      14
#define CPK_PARENT_CH 30
#define CPK_SELECT    24
#define CPK_GOLD      10

/* ---- the suffix tree (host) ----------------------------------------------------------------- */

struct mum_tree {
	const char *str; /* "s" + reference + "$" */
	int len;	 /* index of the '$' (suffixes start at 1 .. len) */
	int n, cap;	 /* nodes (index 0: the root) */
	int (*child)[MUM_BASES];
	int *parent, *start, *end, *depth, *leafid, *suffix, *any_leaf;
	int *id;	   /* renumbered id (REORDER_TREE's texel) */
	int *print_parent; /* setPrintParent */
	int *num_leaves;   /* setNumLeaves */
};

static int mum_base(char c)
{
	switch (c) {
	case 'A':
		return 0;
	case 'C':
		return 1;
	case 'G':
		return 2;
	case 'T':
		return 3;
	default:
		return 4; /* '$' */
	}
}

static int mum_new_node(struct mum_tree *t, int start, int end, int leafid, int parent)
{
	int v;

	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 1024;
		void *p[8];

		p[0] = realloc(t->child, (size_t)cap * sizeof(*t->child));
		if (p[0])
			t->child = p[0];
		p[1] = realloc(t->parent, (size_t)cap * sizeof(int));
		if (p[1])
			t->parent = p[1];
		p[2] = realloc(t->start, (size_t)cap * sizeof(int));
		if (p[2])
			t->start = p[2];
		p[3] = realloc(t->end, (size_t)cap * sizeof(int));
		if (p[3])
			t->end = p[3];
		p[4] = realloc(t->leafid, (size_t)cap * sizeof(int));
		if (p[4])
			t->leafid = p[4];
		p[5] = realloc(t->any_leaf, (size_t)cap * sizeof(int));
		if (p[5])
			t->any_leaf = p[5];
		for (int i = 0; i < 6; i++)
			if (!p[i])
				return -1;
		t->cap = cap;
	}
	v = t->n++;
	for (int b = 0; b < MUM_BASES; b++)
		t->child[v][b] = MUM_NONE;
	t->parent[v] = parent;
	t->start[v] = start;
	t->end[v] = end;
	t->leafid[v] = leafid;
	t->any_leaf[v] = leafid;
	return v;
}

/*
 * Builds the suffix tree of str[1 .. len] by inserting the suffixes one after another (the
 * compacted suffix tree is unique: the same tree as Ukkonen's; edge labels may point at other
 * occurrences of the same characters). Then depths, suffix links (the node spelling the label
 * without its first character, found by a skip/count walk from the root), renumbering, print
 * parents and leaf counts. Returns 0 or -CS_ENOMEM / -CS_EINVAL.
 */
/* renumberTree's step below node v: its descendants `levels` generations deep numbered depth
 * first (ids from ++*count), the generation after them queued at depth d. */
static void mum_number_block(struct mum_tree *t, int v, int levels, int d, int *queue, int *qdepth,
			     int *tail, int *count)
{
	for (int b = 0; b < MUM_BASES; b++) {
		int c = t->child[v][b];

		if (c == MUM_NONE)
			continue;
		if (levels == 0) {
			queue[*tail] = c;
			qdepth[(*tail)++] = d;
			continue;
		}
		t->id[c] = ++*count;
		mum_number_block(t, c, levels - 1, d, queue, qdepth, tail, count);
	}
}

static int mum_tree_build(struct mum_tree *t, int min_match)
{
	const char *s = t->str;
	int *queue = NULL, *qdepth = NULL, head = 0, tail = 0, count = 0;

	if (mum_new_node(t, 0, 0, 0, MUM_NONE) < 0) /* root: the edge "s", depth 1 */
		return -CS_ENOMEM;
	for (int j = 1; j <= t->len; j++) {
		int node = 0, pos = j;

		for (;;) {
			int b = mum_base(s[pos]), ch = t->child[node][b], k = 0, mid, leaf;

			if (ch == MUM_NONE) {
				leaf = mum_new_node(t, pos, t->len, j, node);
				if (leaf < 0)
					return -CS_ENOMEM;
				t->child[node][b] = leaf;
				break;
			}
			while (t->start[ch] + k <= t->end[ch] && s[t->start[ch] + k] == s[pos + k])
				k++;
			if (t->start[ch] + k > t->end[ch]) {
				node = ch;
				pos += k;
				continue;
			}
			mid = mum_new_node(t, t->start[ch], t->start[ch] + k - 1, 0, node);
			if (mid < 0)
				return -CS_ENOMEM;
			leaf = mum_new_node(t, pos + k, t->len, j, mid);
			if (leaf < 0)
				return -CS_ENOMEM;
			t->any_leaf[mid] = j;
			t->child[node][b] = mid;
			t->start[ch] += k;
			t->parent[ch] = mid;
			t->child[mid][mum_base(s[t->start[ch]])] = ch;
			t->child[mid][mum_base(s[pos + k])] = leaf;
			break;
		}
	}
	t->depth = malloc((size_t)t->n * sizeof(int));
	t->suffix = malloc((size_t)t->n * sizeof(int));
	t->id = malloc((size_t)t->n * sizeof(int));
	t->print_parent = malloc((size_t)t->n * sizeof(int));
	t->num_leaves = calloc((size_t)t->n, sizeof(int));
	queue = malloc((size_t)t->n * sizeof(int));
	qdepth = malloc((size_t)t->n * sizeof(int));
	if (!t->depth || !t->suffix || !t->id || !t->print_parent || !t->num_leaves || !queue ||
	    !qdepth) {
		free(queue);
		free(qdepth);
		return -CS_ENOMEM;
	}
	/* depths (SuffixNode::m_depth: edge length plus the parent's; the root's is 1) and print
	 * parents, top down in breadth-first order; leaf counts bottom up */
	queue[tail++] = 0;
	while (head < tail) {
		int v = queue[head++], p = t->parent[v];

		t->depth[v] = t->end[v] - t->start[v] + 1 + (p == MUM_NONE ? 0 : t->depth[p]);
		if (p == MUM_NONE || t->depth[p] <= min_match)
			t->print_parent[v] = v;
		else
			t->print_parent[v] = t->print_parent[p];
		for (int b = 0; b < MUM_BASES; b++)
			if (t->child[v][b] != MUM_NONE)
				queue[tail++] = t->child[v][b];
	}
	for (int i = tail - 1; i >= 0; i--) {
		int v = queue[i];

		if (t->leafid[v])
			t->num_leaves[v] = 1;
		if (t->parent[v] != MUM_NONE)
			t->num_leaves[t->parent[v]] += t->num_leaves[v];
	}
	/* suffix links of the internal nodes: label s[j .. j + sd - 1] -> s[j + 1 .. j + sd - 1] */
	for (int v = 0; v < t->n; v++) {
		int sd = t->depth[v] - 1, j = t->any_leaf[v], node = 0, done = 0;

		t->suffix[v] = MUM_NONE;
		if (v == 0) {
			t->suffix[v] = 0;
			continue;
		}
		if (t->leafid[v])
			continue; /* leaves have none */
		while (done < sd - 1) {
			int ch = t->child[node][mum_base(s[j + 1 + done])];

			done += t->end[ch] - t->start[ch] + 1;
			node = ch;
		}
		if (done != sd - 1) {
			free(queue);
			free(qdepth);
			return -CS_EINVAL; /* not a suffix tree */
		}
		t->suffix[v] = node;
	}
	/* renumberTree: breadth first, below depth 16 four generations at a time */
	head = tail = 0;
	queue[tail] = 0;
	qdepth[tail++] = 0;
	while (head < tail) {
		int v = queue[head], d = qdepth[head++];

		t->id[v] = ++count;
		if (d < 16)
			mum_number_block(t, v, 0, d + 1, queue, qdepth, &tail, &count);
		else
			mum_number_block(t, v, 4, d + 5, queue, qdepth, &tail, &count);
	}
	free(queue);
	free(qdepth);
	return 0;
}

static void mum_tree_free(struct mum_tree *t)
{
	free(t->child);
	free(t->parent);
	free(t->start);
	free(t->end);
	free(t->leafid);
	free(t->any_leaf);
	free(t->depth);
	free(t->suffix);
	free(t->id);
	free(t->print_parent);
	free(t->num_leaves);
}

/* id2addr with REORDER_TREE: 32 consecutive ids down a texel column; x | y << 16. */
static uint32_t mum_id2addr(int id)
{
	uint32_t bigx = (uint32_t)id & 0x1FFFF, bigy = (uint32_t)id >> 17;
	uint32_t y = (bigy << 5) + (bigx & 0x1F), x = bigx >> 5;

	return x | y << 16;
}

/* The texel index of a texture address in the tiled layout (32-texel column tiles). */
static uint64_t mum_texel(uint32_t addr)
{
	uint32_t x = addr & 0xFFFF, y = addr >> 16;

	return ((uint64_t)(y >> 5) * MUM_TEX_WIDTH + x) * MUM_TEXBLOCK + (y & 31);
}

/* writeAddress: x and y in 12 bits each over three bytes. */
static void mum_put_addr(uint8_t *p, uint32_t addr)
{
	uint32_t x = addr & 0xFFFF, y = addr >> 16;

	p[0] = (uint8_t)(x & 0xFF);
	p[1] = (uint8_t)(y & 0xFF);
	p[2] = (uint8_t)(((x >> 8) & 0xF) | ((y >> 4) & 0xF0));
}

/* arrayToAddress (the kernel's) */
static uint32_t mum_get_addr(const uint8_t *p)
{
	return (p[0] | ((uint32_t)(p[2] & 0xF) << 8)) |
	       ((p[1] | ((uint32_t)(p[2] & 0xF0) << 4)) << 16);
}

static void mum_put3(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v & 0xFF);
	p[1] = (uint8_t)(v >> 8 & 0xFF);
	p[2] = (uint8_t)(v >> 16 & 0xFF);
}

static uint32_t mum_get3(const uint8_t *p) /* MKI */
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

/* PixelOfNode / PixelOfChildren byte offsets */
#define PN_PARENT 0
#define PN_SUFFIX 3
#define PN_START  6
#define PN_END	  9
#define PN_DEPTH  12
#define PC_LEAFID 0
#define PC_LEAFCH 15

static uint32_t mum_addr_of(const struct mum_tree *t, int v)
{
	return v == MUM_NONE ? 0 : mum_id2addr(t->id[v]);
}

/* buildNodeTexture: the two textures' texels for every node (16 bytes each, at the texel of
 * id2addr(id)). */
static void mum_textures(const struct mum_tree *t, uint8_t *nodes, uint8_t *children)
{
	for (int v = 0; v < t->n; v++) {
		uint64_t x = mum_texel(mum_addr_of(t, v)) * 16;
		uint8_t *nd = nodes + x, *cd = children + x;

		mum_put_addr(nd + PN_PARENT, mum_addr_of(t, t->parent[v]));
		mum_put_addr(nd + PN_SUFFIX, mum_addr_of(t, t->suffix[v]));
		mum_put3(nd + PN_START, (uint32_t)t->start[v]);
		mum_put3(nd + PN_END, (uint32_t)t->end[v]);
		mum_put3(nd + PN_DEPTH, (uint32_t)t->depth[v]);
		if (t->leafid[v]) {
			cd[PC_LEAFCH] = (uint8_t)t->str[t->leafid[v] - 1];
			mum_put3(cd + PC_LEAFID, (uint32_t)t->leafid[v]);
			continue;
		}
		for (int b = 0; b < MUM_BASES; b++)
			if (t->child[v][b] != MUM_NONE)
				mum_put_addr(cd + 3 * b, mum_addr_of(t, t->child[v][b]));
	}
}

/* ---- the divergent warp: lanes' programs side by side ---------------------------------------- */

enum mum_op { OP_TEX16, OP_LD1, OP_LD2, OP_LD4, OP_ST2, OP_ST4, OP_ST8 };

/* A lane's next memory access: its site (one per load/store of the CUDA source), address and
 * the value a store writes; site < 0 once the lane has returned. */
struct mum_req {
	int site;
	uint64_t addr, val;
};

/* The lane's value from its last access: 16 bytes for a texel, else the low bytes of lo. */
struct mum_val {
	uint64_t lo, hi;
};

struct mum_site {
	enum mum_op op;
	unsigned cost; /* issue slots of the code after it */
};

typedef void (*mum_step_fn)(void *lane, const void *args, const struct mum_val *v,
			    struct mum_req *req);

/* A thread per item (query, match) in CTAs of `block` threads: the lanes' item ids, and the
 * lanes that are threads of the CTA with an item below n. */
static uint32_t mum_items(struct gpu_warp *w, unsigned block, uint64_t n, uint64_t id[WARP_LANES])
{
	uint32_t active = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned t = gw_warp(w) * WARP_LANES + l;

		id[l] = (uint64_t)gw_cta(w) * block + t;
		if (t < block && id[l] < n)
			active |= 1u << l;
	}
	return active;
}

/* Runs the warp's lanes (lane_bytes each in lanes[]) until every one has returned: each round
 * issues, in site order, one op per site some lane waits at (two for a texel). */
static void mum_run_warp(struct gpu_warp *w, const void *args, const struct mum_site *sites,
			 int nsites, mum_step_fn step, void *lanes, size_t lane_bytes,
			 uint32_t active)
{
	struct mum_req req[WARP_LANES];
	struct mum_val val[WARP_LANES];
	uint64_t addr[WARP_LANES], v[WARP_LANES];

	memset(val, 0, sizeof(val));
	for (unsigned l = 0; l < WARP_LANES; l++) {
		req[l].site = -1;
		if (active >> l & 1)
			step((char *)lanes + l * lane_bytes, args, NULL, &req[l]);
	}
	for (;;) {
		bool any = false;

		for (int s = 0; s < nsites; s++) {
			uint32_t mask = 0;

			for (unsigned l = 0; l < WARP_LANES; l++)
				if (req[l].site == s) {
					mask |= 1u << l;
					addr[l] = req[l].addr;
					v[l] = req[l].val;
				}
			if (!mask)
				continue;
			any = true;
			switch (sites[s].op) {
			case OP_TEX16:
				gw_ld_texv(w, addr, mask, 8, v);
				for (unsigned l = 0; l < WARP_LANES; l++) {
					val[l].lo = v[l];
					addr[l] += 8;
				}
				gw_ld_texv(w, addr, mask, 8, v);
				for (unsigned l = 0; l < WARP_LANES; l++)
					val[l].hi = v[l];
				break;
			case OP_LD1:
			case OP_LD2:
			case OP_LD4:
				gw_ldv(w, addr, mask,
				       sites[s].op == OP_LD1   ? 1
				       : sites[s].op == OP_LD2 ? 2
							       : 4,
				       v);
				for (unsigned l = 0; l < WARP_LANES; l++)
					val[l].lo = v[l];
				break;
			default:
				gw_stv(w, addr, mask,
				       sites[s].op == OP_ST2   ? 2
				       : sites[s].op == OP_ST4 ? 4
							       : 8,
				       v);
				break;
			}
			gw_compute(w, sites[s].cost);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					step((char *)lanes + l * lane_bytes, args, &val[l],
					     &req[l]);
		}
		if (!any)
			break;
	}
}

static void mum_texel_bytes(const struct mum_val *v, uint8_t *b)
{
	for (int i = 0; i < 8; i++) {
		b[i] = (uint8_t)(v->lo >> (8 * i));
		b[8 + i] = (uint8_t)(v->hi >> (8 * i));
	}
}

/* ---- mummergpuKernel ------------------------------------------------------------------------ */

struct mk_args {
	uint64_t match_coords; /* _MatchCoord [numCoords] */
	uint64_t queries;      /* 'q' + bases + '\0' per query */
	uint64_t nodetex, childrentex;
	uint64_t ref; /* "s" + reference + "$" */
	uint64_t query_addrs, query_lengths;
	int num_queries, min_match_len;
	unsigned block; /* blockDim.x: min(queries, 256) */
};

enum mk_site {
	MK_S_QTOP,	/* c = GETQCHAR at the loop top */
	MK_S_CHILD,	/* GETCHILDRENHIST(cur) */
	MK_S_ST_NOEDGE, /* SET_RESULT(prev, ..., 0, ...) */
	MK_S_NODE,	/* GETNODEHIST(cur) */
	MK_S_QEDGE,	/* c = GETQCHAR after the edge set-up */
	MK_S_REF,	/* GETRCHAR(refpos) */
	MK_S_QWALK,	/* c = GETQCHAR in the edge walk */
	MK_S_ST_REC,	/* SET_RESULT at RECORD_RESULT */
	MK_S_SUFFIX,	/* GETNODEHIST(prev): the suffix link */
	MK_SITES
};

static const struct mum_site mk_sites[MK_SITES] = {
    [MK_S_QTOP] = {OP_LD1, CMK_QCHAR},	    [MK_S_CHILD] = {OP_TEX16, CMK_CHILD},
    [MK_S_ST_NOEDGE] = {OP_ST8, CMK_STORE}, [MK_S_NODE] = {OP_TEX16, CMK_NODE},
    [MK_S_QEDGE] = {OP_LD1, CMK_QCHAR},	    [MK_S_REF] = {OP_LD1, CMK_REF},
    [MK_S_QWALK] = {OP_LD1, CMK_QCHAR},	    [MK_S_ST_REC] = {OP_ST8, CMK_STORE},
    [MK_S_SUFFIX] = {OP_TEX16, CMK_SUFFIX},
};

enum mk_pc {
	MK_LOOP,
	MK_GOT_CTOP,
	MK_WHILE_C,
	MK_GOT_CHILD,
	MK_AFTER_NOEDGE,
	MK_GOT_NODE,
	MK_GOT_CEDGE,
	MK_EDGE_LOOP,
	MK_GOT_REF,
	MK_RECORD,
	MK_AFTER_REC,
	MK_NEXT_SUBSTRING,
	MK_GOT_SUFFIX,
};

struct mk_lane {
	enum mk_pc pc;
	uint32_t cur, prev, node_start, node_end;
	int qry_addr, mustmatch, qry_match_len, qrystart, last, refpos, c;
	uint64_t result;
};

static void mk_req(struct mum_req *r, int site, uint64_t addr, uint64_t val)
{
	r->site = site;
	r->addr = addr;
	r->val = val;
}

/* One thread of mummergpuKernel from its pc to its next load or store (or its return). */
static void mk_step(void *lane, const void *args, const struct mum_val *v, struct mum_req *req)
{
	struct mk_lane *L = lane;
	const struct mk_args *a = args;
	uint8_t b[16];

	for (;;) {
		switch (L->pc) {
		case MK_LOOP:
			if (L->qrystart > L->last) {
				req->site = -1;
				return;
			}
			if (L->cur == 0 || L->qry_match_len < 1) {
				L->cur = 0x00010000; /* GOROOT */
				L->qry_match_len = 1;
				L->mustmatch = 0;
			}
			L->pc = MK_GOT_CTOP;
			mk_req(req, MK_S_QTOP,
			       a->queries +
				   (uint64_t)(L->qry_addr + L->qrystart + L->qry_match_len),
			       0);
			return;
		case MK_GOT_CTOP:
			L->c = (char)v->lo;
			L->refpos = 0;
			L->pc = MK_WHILE_C;
			break;
		case MK_WHILE_C:
			if (L->c == '\0') {
				L->pc = MK_RECORD; /* end of string */
				break;
			}
			L->pc = MK_GOT_CHILD;
			mk_req(req, MK_S_CHILD, a->childrentex + mum_texel(L->cur) * 16, 0);
			return;
		case MK_GOT_CHILD: {
			int off;

			mum_texel_bytes(v, b);
			L->prev = L->cur;
			switch (L->c) {
			case 'A':
				off = 0;
				break;
			case 'C':
				off = 3;
				break;
			case 'G':
				off = 6;
				break;
			case 'T':
				off = 9;
				break;
			default:
				off = -1;
				break;
			}
			L->cur = off < 0 ? 0 : mum_get_addr(b + off);
			if (L->cur == 0) { /* no edge to follow out of the node */
				L->pc = MK_AFTER_NOEDGE;
				if (L->qry_match_len > a->min_match_len) {
					mk_req(req, MK_S_ST_NOEDGE, L->result, L->prev);
					return;
				}
				break;
			}
			L->pc = MK_GOT_NODE;
			mk_req(req, MK_S_NODE, a->nodetex + mum_texel(L->cur) * 16, 0);
			return;
		}
		case MK_AFTER_NOEDGE:
			L->qry_match_len -= 1;
			L->mustmatch = 0;
			L->pc = MK_NEXT_SUBSTRING;
			break;
		case MK_GOT_NODE: {
			int edgelen, edge_matchlen, past_node_end, dist_to_edge_end;

			mum_texel_bytes(v, b);
			L->node_start = mum_get3(b + PN_START);
			L->node_end = mum_get3(b + PN_END);
			edgelen = (int)L->node_end - (int)L->node_start + 1;
			edge_matchlen = (int)L->node_start + L->mustmatch;
			past_node_end = (int)L->node_end + 1;
			dist_to_edge_end = L->mustmatch - edgelen;
			if (L->mustmatch) {
				L->refpos =
				    edge_matchlen < past_node_end ? edge_matchlen : past_node_end;
				L->qry_match_len += edgelen < L->mustmatch ? edgelen : L->mustmatch;
				L->mustmatch = dist_to_edge_end > 0 ? dist_to_edge_end : 0;
			} else {
				/* the first character definitely matches */
				L->qry_match_len++;
				L->refpos = (int)L->node_start + 1;
			}
			L->pc = MK_GOT_CEDGE;
			mk_req(req, MK_S_QEDGE,
			       a->queries +
				   (uint64_t)(L->qry_addr + L->qrystart + L->qry_match_len),
			       0);
			return;
		}
		case MK_GOT_CEDGE:
			L->c = (char)v->lo;
			L->pc = MK_EDGE_LOOP;
			break;
		case MK_EDGE_LOOP:
			if (L->refpos <= (int)L->node_end && L->c != '\0') {
				L->pc = MK_GOT_REF;
				mk_req(req, MK_S_REF, a->ref + (uint64_t)L->refpos, 0);
				return;
			}
			L->pc = MK_WHILE_C;
			break;
		case MK_GOT_REF:
			if ((char)v->lo != L->c) { /* mismatch on the edge */
				L->pc = MK_RECORD;
				break;
			}
			L->qry_match_len++;
			L->refpos++;
			L->pc = MK_GOT_CEDGE;
			mk_req(req, MK_S_QWALK,
			       a->queries +
				   (uint64_t)(L->qry_addr + L->qrystart + L->qry_match_len),
			       0);
			return;
		case MK_RECORD:
			L->pc = MK_AFTER_REC;
			if (L->qry_match_len > a->min_match_len) {
				mk_req(req, MK_S_ST_REC, L->result,
				       L->cur | (uint64_t)(uint32_t)(L->refpos - (int)L->node_start)
						    << 32);
				return;
			}
			break;
		case MK_AFTER_REC:
			L->mustmatch = L->refpos - (int)L->node_start;
			L->qry_match_len -= L->mustmatch + 1;
			L->pc = MK_NEXT_SUBSTRING;
			break;
		case MK_NEXT_SUBSTRING:
			L->pc = MK_GOT_SUFFIX;
			mk_req(req, MK_S_SUFFIX, a->nodetex + mum_texel(L->prev) * 16, 0);
			return;
		case MK_GOT_SUFFIX:
			mum_texel_bytes(v, b);
			L->cur = mum_get_addr(b + PN_SUFFIX);
			L->qrystart++;
			L->result += MUM_COORD_SIZE;
			L->pc = MK_LOOP;
			break;
		}
	}
}

static void mk_kernel(struct gpu_warp *w)
{
	const struct mk_args *a = gw_args(w);
	struct mk_lane lanes[WARP_LANES];
	uint64_t addr[WARP_LANES], len[WARP_LANES] = {0}, qaddr[WARP_LANES] = {0};
	uint64_t id[WARP_LANES];
	uint32_t active = mum_items(w, a->block, (uint64_t)a->num_queries, id);

	memset(lanes, 0, sizeof(lanes));
	for (unsigned l = 0; l < WARP_LANES; l++)
		lanes[l].qrystart = (int)id[l]; /* the query id until the loads below */
	gw_compute(w, CMK_PROLOGUE);
	if (!active)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->query_lengths + (uint64_t)lanes[l].qrystart * 4;
	gw_ldv(w, addr, active, 4, len);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->query_addrs + (uint64_t)lanes[l].qrystart * 4;
	gw_ldv(w, addr, active, 4, qaddr);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		struct mk_lane *L = &lanes[l];
		int qryid = L->qrystart;

		L->qry_addr = (int)(uint32_t)qaddr[l];
		/* MATCH_BASE: match_coords + qryAddr - qryid * (min_match_len + 1) */
		L->result =
		    a->match_coords +
		    (uint64_t)(L->qry_addr - qryid * (a->min_match_len + 1)) * MUM_COORD_SIZE;
		L->last = (int)(uint32_t)len[l] - a->min_match_len;
		L->qrystart = 0;
		L->pc = MK_LOOP;
	}
	mum_run_warp(w, a, mk_sites, MK_SITES, mk_step, lanes, sizeof(lanes[0]), active);
}

/* ---- printKernel ---------------------------------------------------------------------------- */

struct pk_args {
	uint64_t matches;    /* MatchInfo [totalMatches] */
	uint64_t alignments; /* Alignment [] */
	uint64_t queries, nodetex, childrentex, query_addrs;
	int total_matches, page_begin, page_end, page_shadow_left, page_shadow_right;
	int min_match_length;
	unsigned block; /* blockDim.x: min(matches, 256) */
};

enum pk_site {
	PK_S_QID,
	PK_S_QADDR,
	PK_S_QSP,
	PK_S_FLANK,
	PK_S_MNODE,
	PK_S_NODE0,
	PK_S_NODE_UP,
	PK_S_NODE_PP,
	PK_S_RESOFF,
	PK_S_EM0,
	PK_S_NODE_BP,
	PK_S_CHILD,
	PK_S_ST_LEFT,
	PK_S_ST_LEN,
	PK_S_NODE_TP,
	PK_S_CHILD_P,
	PK_S_NODE_GP,
	PK_S_CHILD_DOWN,
	PK_S_GQSP,
	PK_S_GOLD,
	PK_S_NODE_GOLD,
	PK_S_EM1,
	PK_S_NODE_EM,
	PK_SITES
};

static const struct mum_site pk_sites[PK_SITES] = {
    [PK_S_QID] = {OP_LD4, CPK_FIELD},	     [PK_S_QADDR] = {OP_LD4, CPK_FIELD},
    [PK_S_QSP] = {OP_LD2, CPK_FIELD},	     [PK_S_FLANK] = {OP_LD1, CPK_FIELD},
    [PK_S_MNODE] = {OP_LD4, CPK_FIELD},	     [PK_S_NODE0] = {OP_TEX16, CPK_CLIMB},
    [PK_S_NODE_UP] = {OP_TEX16, CPK_CLIMB},  [PK_S_NODE_PP] = {OP_TEX16, CPK_GOLD},
    [PK_S_RESOFF] = {OP_LD4, CPK_FIELD},     [PK_S_EM0] = {OP_LD2, CPK_FIELD},
    [PK_S_NODE_BP] = {OP_TEX16, CPK_GOLD},   [PK_S_CHILD] = {OP_TEX16, CPK_STEP},
    [PK_S_ST_LEFT] = {OP_ST4, CPK_FIELD},    [PK_S_ST_LEN] = {OP_ST2, CPK_FIELD},
    [PK_S_NODE_TP] = {OP_TEX16, CPK_CLIMB},  [PK_S_CHILD_P] = {OP_TEX16, CPK_PARENT_CH},
    [PK_S_NODE_GP] = {OP_TEX16, CPK_GOLD},   [PK_S_CHILD_DOWN] = {OP_TEX16, CPK_SELECT},
    [PK_S_GQSP] = {OP_LD2, CPK_FIELD},	     [PK_S_GOLD] = {OP_LD1, CPK_FIELD},
    [PK_S_NODE_GOLD] = {OP_TEX16, CPK_GOLD}, [PK_S_EM1] = {OP_LD2, CPK_FIELD},
    [PK_S_NODE_EM] = {OP_TEX16, CPK_GOLD},
};

enum pk_pc {
	PK_START,
	PK_GOT_QID,
	PK_GOT_QADDR,
	PK_GOT_QSP,
	PK_GOT_FLANK,
	PK_GOT_MNODE,
	PK_UP_TEST,
	PK_GOT_PP,
	PK_GOT_RESOFF,
	PK_GOT_EM0,
	PK_GOT_BP,
	PK_LOOP,
	PK_GOT_CHILD,
	PK_ST_LEN,
	PK_ST_DONE,
	PK_TO_PARENT,
	PK_GOT_NODE_TP,
	PK_GOT_PCH,
	PK_GOT_NODE_GP,
	PK_GOT_CHILD_DOWN,
	PK_GOT_GQSP,
	PK_GOT_GOLD,
	PK_SELECT,
	PK_GOT_NODE_GOLD,
	PK_GOT_EM1,
	PK_GOT_NODE_EM,
};

struct pk_lane {
	enum pk_pc pc;
	uint64_t match; /* address of matches[matchid] */
	int qry_addr, qrystartpos, matchlen, depth_to_golden, matchnum, edgematch;
	uint32_t matchaddr, cur, print_parent, bad_parent, my_parent;
	char flank, curchild, golden;
	bool force_to_parent;
	uint8_t children[16];
};

/* One thread of printKernel from its pc to its next load or store (or its return). */
static void pk_step(void *lane, const void *args, const struct mum_val *v, struct mum_req *req)
{
	struct pk_lane *L = lane;
	const struct pk_args *a = args;
	uint8_t b[16];

	for (;;) {
		switch (L->pc) {
		case PK_START:
			L->pc = PK_GOT_QID;
			mk_req(req, PK_S_QID, L->match + MI_QUERYID, 0);
			return;
		case PK_GOT_QID:
			L->pc = PK_GOT_QADDR;
			mk_req(req, PK_S_QADDR, a->query_addrs + (uint64_t)(uint32_t)v->lo * 4, 0);
			return;
		case PK_GOT_QADDR:
			L->qry_addr = (int)(uint32_t)v->lo;
			L->pc = PK_GOT_QSP;
			mk_req(req, PK_S_QSP, L->match + MI_QRYSTARTPOS, 0);
			return;
		case PK_GOT_QSP:
			L->qrystartpos = (int)(uint16_t)v->lo;
			L->pc = PK_GOT_FLANK;
			mk_req(req, PK_S_FLANK,
			       a->queries + (uint64_t)(L->qry_addr + L->qrystartpos), 0);
			return;
		case PK_GOT_FLANK:
			L->flank = (char)v->lo;
			L->pc = PK_GOT_MNODE;
			mk_req(req, PK_S_MNODE, L->match + MI_MATCHNODE, 0);
			return;
		case PK_GOT_MNODE:
			/* find the top node to start printing from */
			L->matchaddr = L->cur = L->print_parent = (uint32_t)v->lo;
			L->pc = PK_UP_TEST;
			mk_req(req, PK_S_NODE0, a->nodetex + mum_texel(L->cur) * 16, 0);
			return;
		case PK_UP_TEST:
			mum_texel_bytes(v, b);
			if ((int)mum_get3(b + PN_DEPTH) > a->min_match_length) {
				L->print_parent = L->cur;
				L->cur = mum_get_addr(b + PN_PARENT);
				mk_req(req, PK_S_NODE_UP, a->nodetex + mum_texel(L->cur) * 16, 0);
				return;
			}
			/* traverse the tree starting at printParent */
			L->bad_parent = L->cur;
			L->cur = L->print_parent;
			L->curchild = 'A';
			L->force_to_parent = false;
			L->pc = PK_GOT_PP;
			mk_req(req, PK_S_NODE_PP, a->nodetex + mum_texel(L->print_parent) * 16, 0);
			return;
		case PK_GOT_PP:
			mum_texel_bytes(v, b);
			L->matchlen = (int)mum_get3(b + PN_DEPTH) - 1;
			L->depth_to_golden = 0;
			L->pc = PK_GOT_RESOFF;
			mk_req(req, PK_S_RESOFF, L->match + MI_RESULTSOFFSET, 0);
			return;
		case PK_GOT_RESOFF:
			L->matchnum = (int)(uint32_t)v->lo;
			if (L->print_parent == L->matchaddr) {
				/* already off the golden path */
				L->pc = PK_GOT_EM0;
				mk_req(req, PK_S_EM0, L->match + MI_EDGEMATCH, 0);
				return;
			}
			L->pc = PK_LOOP;
			break;
		case PK_GOT_EM0:
			L->edgematch = (int)(uint16_t)v->lo;
			if (L->edgematch > 0) {
				L->pc = PK_GOT_BP;
				mk_req(req, PK_S_NODE_BP,
				       a->nodetex + mum_texel(L->bad_parent) * 16, 0);
				return;
			}
			L->depth_to_golden = 1;
			L->pc = PK_LOOP;
			break;
		case PK_GOT_BP:
			mum_texel_bytes(v, b);
			L->matchlen = (int)mum_get3(b + PN_DEPTH) - 1 + L->edgematch;
			L->depth_to_golden = 1;
			L->pc = PK_LOOP;
			break;
		case PK_LOOP: /* until the printParent's parent */
			if (L->cur == L->bad_parent) {
				req->site = -1;
				return;
			}
			L->pc = PK_GOT_CHILD;
			mk_req(req, PK_S_CHILD, a->childrentex + mum_texel(L->cur) * 16, 0);
			return;
		case PK_GOT_CHILD: {
			char is_leaf;

			mum_texel_bytes(v, b);
			is_leaf = (char)b[PC_LEAFCH];
			if (!is_leaf && !L->force_to_parent) {
				/* try to walk down the tree */
				L->pc = PK_GOT_CHILD_DOWN;
				mk_req(req, PK_S_CHILD_DOWN,
				       a->childrentex + mum_texel(L->cur) * 16, 0);
				return;
			}
			L->pc = PK_TO_PARENT;
			if (is_leaf && is_leaf != L->flank) { /* left maximal */
				int left_in_ref =
				    ((int)mum_get3(b + PC_LEAFID) - 1) + a->page_begin;
				int right_in_ref = left_in_ref + L->matchlen;

				if ((left_in_ref != a->page_begin || a->page_shadow_left == -1) &&
				    (right_in_ref != a->page_end || a->page_shadow_right == -1) &&
				    !(left_in_ref > a->page_begin &&
				      right_in_ref < a->page_shadow_left)) {
					L->pc = PK_ST_LEN;
					mk_req(req, PK_S_ST_LEFT,
					       a->alignments +
						   (uint64_t)L->matchnum * MUM_ALIGN_SIZE,
					       (uint32_t)left_in_ref);
					return;
				}
			}
			break;
		}
		case PK_ST_LEN:
			L->pc = PK_ST_DONE;
			mk_req(req, PK_S_ST_LEN,
			       a->alignments + (uint64_t)L->matchnum * MUM_ALIGN_SIZE + 4,
			       (uint16_t)L->matchlen);
			return;
		case PK_ST_DONE:
			L->matchnum++;
			L->pc = PK_TO_PARENT;
			break;
		case PK_TO_PARENT: /* return to my parent and advance curchild */
			L->force_to_parent = false;
			L->pc = PK_GOT_NODE_TP;
			mk_req(req, PK_S_NODE_TP, a->nodetex + mum_texel(L->cur) * 16, 0);
			return;
		case PK_GOT_NODE_TP:
			mum_texel_bytes(v, b);
			L->my_parent = mum_get_addr(b + PN_PARENT);
			L->pc = PK_GOT_PCH;
			mk_req(req, PK_S_CHILD_P, a->childrentex + mum_texel(L->my_parent) * 16, 0);
			return;
		case PK_GOT_PCH:
			mum_texel_bytes(v, b);
			if (mum_get_addr(b + 0) == L->cur)
				L->curchild = 'C';
			else if (mum_get_addr(b + 3) == L->cur)
				L->curchild = 'G';
			else if (mum_get_addr(b + 6) == L->cur)
				L->curchild = 'T';
			else if (mum_get_addr(b + 9) == L->cur)
				L->curchild = '$';
			else /* the $ child: go up a level */
				L->force_to_parent = true;
			L->cur = L->my_parent;
			if (L->depth_to_golden)
				L->depth_to_golden--;
			if (L->depth_to_golden == 0) {
				L->pc = PK_GOT_NODE_GP;
				mk_req(req, PK_S_NODE_GP, a->nodetex + mum_texel(L->cur) * 16, 0);
				return;
			}
			L->pc = PK_LOOP;
			break;
		case PK_GOT_NODE_GP:
			mum_texel_bytes(v, b);
			L->matchlen = (int)mum_get3(b + PN_DEPTH) - 1;
			L->pc = PK_LOOP;
			break;
		case PK_GOT_CHILD_DOWN:
			mum_texel_bytes(v, L->children);
			L->golden = 0;
			if (L->depth_to_golden == 0) {
				/* on the golden path: one of the children is too */
				L->pc = PK_GOT_GQSP;
				mk_req(req, PK_S_GQSP, L->match + MI_QRYSTARTPOS, 0);
				return;
			}
			L->pc = PK_SELECT;
			break;
		case PK_GOT_GQSP:
			L->pc = PK_GOT_GOLD;
			mk_req(req, PK_S_GOLD,
			       a->queries +
				   (uint64_t)(L->qry_addr + (int)(uint16_t)v->lo + L->matchlen + 1),
			       0);
			return;
		case PK_GOT_GOLD:
			L->golden = (char)v->lo;
			L->pc = PK_SELECT;
			break;
		case PK_SELECT: {
			static const char letters[MUM_BASES] = {'A', 'C', 'G', 'T', '$'};
			int k = 0;

			while (letters[k] != L->curchild)
				k++;
			for (; k < MUM_BASES; k++) {
				const uint8_t *p = L->children + 3 * k;

				L->curchild = letters[k];
				if (p[0] || p[1] || p[2]) {
					L->cur = mum_get_addr(p);
					break;
				}
			}
			if (k == MUM_BASES) { /* checked all of the children: back to the parent */
				L->force_to_parent = true;
				L->pc = PK_LOOP;
				break;
			}
			if (L->depth_to_golden == 0) {
				if (L->curchild == L->golden) {
					L->pc = PK_GOT_NODE_GOLD;
					mk_req(req, PK_S_NODE_GOLD,
					       a->nodetex + mum_texel(L->cur) * 16, 0);
					return;
				}
				L->depth_to_golden = 1;
			} else {
				L->depth_to_golden++;
			}
			L->curchild = 'A';
			L->pc = PK_LOOP;
			break;
		}
		case PK_GOT_NODE_GOLD:
			mum_texel_bytes(v, L->children); /* the node texel (kept for its parent) */
			L->matchlen = (int)mum_get3(L->children + PN_DEPTH) - 1;
			if (L->cur == L->matchaddr) {
				/* overextended the golden path */
				L->depth_to_golden = 1;
				L->pc = PK_GOT_EM1;
				mk_req(req, PK_S_EM1, L->match + MI_EDGEMATCH, 0);
				return;
			}
			L->curchild = 'A';
			L->pc = PK_LOOP;
			break;
		case PK_GOT_EM1:
			L->edgematch = (int)(uint16_t)v->lo;
			if (L->edgematch > 0) {
				L->pc = PK_GOT_NODE_EM;
				mk_req(req, PK_S_NODE_EM,
				       a->nodetex +
					   mum_texel(mum_get_addr(L->children + PN_PARENT)) * 16,
				       0);
				return;
			}
			L->curchild = 'A';
			L->pc = PK_LOOP;
			break;
		case PK_GOT_NODE_EM:
			mum_texel_bytes(v, b);
			L->matchlen = (int)mum_get3(b + PN_DEPTH) - 1 + L->edgematch;
			L->curchild = 'A';
			L->pc = PK_LOOP;
			break;
		}
	}
}

static void pk_kernel(struct gpu_warp *w)
{
	const struct pk_args *a = gw_args(w);
	struct pk_lane lanes[WARP_LANES];
	uint64_t matchid[WARP_LANES];
	uint32_t active = mum_items(w, a->block, (uint64_t)a->total_matches, matchid);

	memset(lanes, 0, sizeof(lanes));
	for (unsigned l = 0; l < WARP_LANES; l++) {
		lanes[l].match = a->matches + matchid[l] * MUM_INFO_SIZE;
		lanes[l].pc = PK_START;
	}
	gw_compute(w, CMK_PROLOGUE);
	if (active)
		mum_run_warp(w, a, pk_sites, PK_SITES, pk_step, lanes, sizeof(lanes[0]), active);
}

/* ---- host ----------------------------------------------------------------------------------- */

/* Where the longest match of q[p ..] in the reference ends, as the kernel encodes it: the node
 * below the end and the characters matched on its incoming edge (0 for "at node, no child for
 * the next character"), and the match length. */
struct mum_locus {
	int node, k, m;
};

/*
 * Matching statistics by a walk from the root: the first `known` characters are known to occur
 * (the previous position's match less one), so whole edges are skipped by length (skip/count),
 * then the walk compares character by character. No suffix links: independent of the kernel's.
 */
static struct mum_locus mum_ref_match(const struct mum_tree *t, const char *q, int qlen, int p,
				      int known)
{
	int node = 0, edge = -1, off = 0, pos = 0;

	while (pos < known) {
		int ch = t->child[node][mum_base(q[p + pos])];
		int len = t->end[ch] - t->start[ch] + 1;

		if (pos + len <= known) {
			pos += len;
			node = ch;
			continue;
		}
		edge = ch;
		off = known - pos;
		pos = known;
		break;
	}
	for (;;) {
		if (edge < 0) {
			int ch;

			if (p + pos == qlen) /* the query ends at the node */
				return (struct mum_locus){node, t->end[node] - t->start[node] + 1,
							  pos};
			ch = t->child[node][mum_base(q[p + pos])];
			if (ch == MUM_NONE)
				return (struct mum_locus){node, 0, pos};
			edge = ch;
			off = 1; /* the first character matches */
			pos++;
		}
		while (t->start[edge] + off <= t->end[edge] && p + pos < qlen &&
		       t->str[t->start[edge] + off] == q[p + pos]) {
			off++;
			pos++;
		}
		if (t->start[edge] + off > t->end[edge]) {
			node = edge;
			edge = -1;
			continue;
		}
		return (struct mum_locus){edge, off, pos};
	}
}

/* The alignments printKernel writes for one match: the left-maximal leaves below v in A, C, G,
 * T, $ order with the length of their match (golden: v is on the path to the match node). */
struct mum_emit {
	uint8_t *out; /* Alignment [] of the match */
	int n;
};

static void mum_ref_leaves(const struct mum_tree *t, int v, int len, char flank, struct mum_emit *e)
{
	if (t->leafid[v]) {
		if (t->str[t->leafid[v] - 1] != flank) {
			int32_t left = t->leafid[v] - 1;
			uint16_t ml = (uint16_t)len;

			memcpy(e->out + (size_t)e->n * MUM_ALIGN_SIZE, &left, 4);
			memcpy(e->out + (size_t)e->n * MUM_ALIGN_SIZE + 4, &ml, 2);
			e->n++;
		}
		return;
	}
	for (int b = 0; b < MUM_BASES; b++)
		if (t->child[v][b] != MUM_NONE)
			mum_ref_leaves(t, t->child[v][b], len, flank, e);
}

static void mum_ref_print(const struct mum_tree *t, int v, const struct mum_locus *lc,
			  const char *q, int qsp, char flank, struct mum_emit *e)
{
	int gb;

	if (v == lc->node) { /* the match's own length below the match node */
		mum_ref_leaves(t, v, lc->m, flank, e);
		return;
	}
	/* a golden node: its golden child is the one the query's next character picks */
	gb = mum_base(q[qsp + t->depth[v] - 1]);
	for (int b = 0; b < MUM_BASES; b++) {
		int c = t->child[v][b];

		if (c == MUM_NONE)
			continue;
		if (b == gb)
			mum_ref_print(t, c, lc, q, qsp, flank, e);
		else
			mum_ref_leaves(t, c, t->depth[v] - 1, flank, e);
	}
}

/* The reference: random bases with 5% made of copies (1% substituted) of earlier segments of
 * 200..2000 bases. */
static void mum_reference(uint64_t seed, char *ref, int n)
{
	static const char acgt[4] = {'A', 'C', 'G', 'T'};
	uint64_t st = seed ^ 0x7265660000000000ull;
	int64_t copied = 0;

	for (int i = 0; i < n; i++)
		ref[i] = acgt[wl_below(&st, 4)];
	while (copied < n / 20 && n > 4000) {
		int len = 200 + (int)wl_below(&st, 1801);
		int src = (int)wl_below(&st, (uint64_t)(n - len));
		int dst = (int)wl_below(&st, (uint64_t)(n - len));

		for (int i = 0; i < len; i++)
			ref[dst + i] =
			    wl_below(&st, 100) == 0 ? acgt[wl_below(&st, 4)] : ref[src + i];
		copied += len;
	}
}

/* The reads: three in four from the reference with 2% substitutions, the others random. */
static void mum_queries(uint64_t seed, const char *ref, int n, char *q, int nq, int len)
{
	static const char acgt[4] = {'A', 'C', 'G', 'T'};
	uint64_t st = seed ^ 0x7172790000000000ull;

	for (int i = 0; i < nq; i++) {
		char *r = q + (size_t)i * len;

		if (wl_below(&st, 4) == 0) {
			for (int j = 0; j < len; j++)
				r[j] = acgt[wl_below(&st, 4)];
			continue;
		}
		{
			int at = (int)wl_below(&st, (uint64_t)(n - len + 1));

			for (int j = 0; j < len; j++)
				r[j] =
				    wl_below(&st, 50) == 0 ? acgt[wl_below(&st, 4)] : ref[at + j];
		}
	}
}

int rodinia_mummer_main(struct gpu_host *h)
{
	int n = (int)wl_by_size(h, 2048, 16384, 131072);
	int nq = (int)wl_by_size(h, 32, 256, 2048);
	int qlen = MUM_READ_LEN, min = MUM_MIN_MATCH;
	int per_query = qlen - min + 1; /* MatchCoords per query */
	uint64_t seed = gh_seed(h) ^ TAG_MUM;
	struct mum_tree t = {0};
	char *str = malloc((size_t)n + 3), *reads = malloc((size_t)nq * qlen);
	char *qtex = malloc((size_t)nq * (qlen + 2));
	int *addrs = malloc((size_t)nq * sizeof(int)), *lens = malloc((size_t)nq * sizeof(int));
	size_t ncoords = (size_t)nq * per_query;
	uint8_t *coords = malloc(ncoords * MUM_COORD_SIZE);
	uint8_t *want_coords = calloc(ncoords, MUM_COORD_SIZE);
	struct mum_locus *loci = malloc(ncoords * sizeof(*loci));
	uint8_t *nodetex = NULL, *childtex = NULL, *info = NULL, *got_al = NULL, *want_al = NULL;
	int *node_of_id = NULL;
	size_t tex_bytes = 0, nmatch = 0, nalign = 0, nleft = 0;
	struct mk_args mk = {0};
	struct pk_args pk = {0};
	struct gpu_kernel mk_k = {
	    .name = "mummergpuKernel", .regs_per_thread = 32, .fn = mk_kernel, .args = &mk};
	struct gpu_kernel pk_k = {
	    .name = "printKernel", .regs_per_thread = 32, .fn = pk_kernel, .args = &pk};
	int err = -CS_ENOMEM;

	if (!str || !reads || !qtex || !addrs || !lens || !coords || !want_coords || !loci)
		goto out;
	/* the reference string as buildReferenceTexture makes it: "s" + reference + "$" */
	str[0] = 's';
	mum_reference(seed, str + 1, n);
	str[n + 1] = '$';
	str[n + 2] = '\0';
	t.str = str;
	t.len = n + 1;
	err = mum_tree_build(&t, min);
	if (err) {
		if (err == -CS_EINVAL)
			err = gh_error(h, err, "mummer: the host's suffix tree is inconsistent");
		goto out;
	}
	{
		int count = t.n; /* ids 1 .. count; id 0 is the NULL node */
		int rows = (count + 1 + MUM_TEX_WIDTH * MUM_TEXBLOCK - 1) /
			   (MUM_TEX_WIDTH * MUM_TEXBLOCK) * MUM_TEXBLOCK;

		tex_bytes = (size_t)MUM_TEX_WIDTH * rows * 16;
		nodetex = calloc(tex_bytes, 1);
		childtex = calloc(tex_bytes, 1);
		node_of_id = malloc(((size_t)count + 1) * sizeof(int));
		if (!nodetex || !childtex || !node_of_id) {
			err = -CS_ENOMEM;
			goto out;
		}
		for (int v = 0; v < t.n; v++)
			node_of_id[t.id[v]] = v;
		mum_textures(&t, nodetex, childtex);
	}
	/* queries as getQueriesTexture lays them out: 'q' + bases + '\0' */
	mum_queries(seed, str + 1, n, reads, nq, qlen);
	for (int i = 0; i < nq; i++) {
		char *p = qtex + (size_t)i * (qlen + 2);

		addrs[i] = i * (qlen + 2);
		lens[i] = qlen;
		p[0] = 'q';
		memcpy(p + 1, reads + (size_t)i * qlen, (size_t)qlen);
		p[qlen + 1] = '\0';
	}
	mk.ref = wl_upload(h, str, (size_t)n + 3);
	mk.nodetex = wl_upload(h, nodetex, tex_bytes);
	mk.childrentex = wl_upload(h, childtex, tex_bytes);
	mk.queries = wl_upload(h, qtex, (size_t)nq * (qlen + 2));
	mk.query_addrs = wl_upload(h, addrs, (size_t)nq * sizeof(int));
	mk.query_lengths = wl_upload(h, lens, (size_t)nq * sizeof(int));
	mk.match_coords = wl_alloc_zero(h, ncoords * MUM_COORD_SIZE);
	mk.num_queries = nq;
	mk.min_match_len = min;
	mk.block = nq > MUM_BLOCKSIZE ? MUM_BLOCKSIZE : (unsigned)nq;
	mk_k.ctas = (unsigned)((nq + MUM_BLOCKSIZE - 1) / MUM_BLOCKSIZE);
	mk_k.warps_per_cta = (mk.block + WARP_LANES - 1) / WARP_LANES;
	err = gh_launch(h, &mk_k);
	if (err)
		goto out;

	/* check every MatchCoord against the host's matching statistics */
	gh_read(h, mk.match_coords, coords, ncoords * MUM_COORD_SIZE);
	for (int i = 0; i < nq; i++) {
		const char *q = reads + (size_t)i * qlen;
		int known = 0;

		for (int p = 0; p < per_query; p++) {
			size_t c = (size_t)i * per_query + (size_t)p;
			struct mum_locus lc = mum_ref_match(&t, q, qlen, p, known);
			int32_t want[2] = {0, 0}, got[2];

			loci[c] = lc;
			known = lc.m > 0 ? lc.m - 1 : 0;
			if (lc.m >= min) {
				want[0] = (int32_t)mum_addr_of(&t, lc.node);
				want[1] = lc.k;
				nmatch++;
			}
			memcpy(want_coords + c * MUM_COORD_SIZE, want, 8);
			memcpy(got, coords + c * MUM_COORD_SIZE, 8);
			if (got[0] != want[0] || got[1] != want[1]) {
				err =
				    gh_fail(h,
					    "mummer: query %d position %d: MatchCoord (node %#x, "
					    "edge %d), want (node %#x, edge %d) (match length %d)",
					    i, p, (unsigned)got[0], got[1], (unsigned)want[0],
					    want[1], lc.m);
				goto out;
			}
		}
	}
	if (!nmatch) {
		err = gh_error(h, -CS_EINVAL, "mummer: no match of %d bases to print", min);
		goto out;
	}

	/* MatchInfo records (getExactAlignments) from the device's MatchCoords */
	info = calloc(nmatch, MUM_INFO_SIZE);
	if (!info) {
		err = -CS_ENOMEM;
		goto out;
	}
	{
		size_t m = 0;

		for (int i = 0; i < nq; i++)
			for (int p = 0; p < per_query; p++) {
				int32_t cd[2];
				uint8_t *r = info + m * MUM_INFO_SIZE;
				uint32_t off = (uint32_t)nalign, qid = (uint32_t)i, node, leaves;
				uint16_t em, qsp = (uint16_t)p;
				int v;

				memcpy(cd, coords + ((size_t)i * per_query + p) * MUM_COORD_SIZE,
				       8);
				if (cd[0] <= 0)
					continue;
				node = (uint32_t)cd[0];
				em = (uint16_t)cd[1];
				v = node_of_id[mum_texel(node)];
				leaves = (uint32_t)t.num_leaves[t.print_parent[v]];
				memcpy(r + MI_RESULTSOFFSET, &off, 4);
				memcpy(r + MI_QUERYID, &qid, 4);
				memcpy(r + MI_MATCHNODE, &node, 4);
				memcpy(r + MI_NUMLEAVES, &leaves, 4);
				memcpy(r + MI_EDGEMATCH, &em, 2);
				memcpy(r + MI_QRYSTARTPOS, &qsp, 2);
				nalign += leaves;
				m++;
			}
	}
	got_al = malloc(nalign * MUM_ALIGN_SIZE);
	want_al = calloc(nalign, MUM_ALIGN_SIZE);
	if (!got_al || !want_al) {
		err = -CS_ENOMEM;
		goto out;
	}
	pk.matches = wl_upload(h, info, nmatch * MUM_INFO_SIZE);
	pk.alignments = wl_alloc_zero(h, nalign * MUM_ALIGN_SIZE); /* cudaMemset 0 */
	pk.queries = mk.queries;
	pk.nodetex = mk.nodetex;
	pk.childrentex = mk.childrentex;
	pk.query_addrs = mk.query_addrs;
	pk.total_matches = (int)nmatch;
	pk.page_begin = 0; /* one page: the whole reference */
	pk.page_end = n;
	pk.page_shadow_left = pk.page_shadow_right = -1;
	pk.min_match_length = min;
	pk.block = nmatch > MUM_BLOCKSIZE ? MUM_BLOCKSIZE : (unsigned)nmatch;
	pk_k.ctas = (unsigned)((nmatch + MUM_BLOCKSIZE - 1) / MUM_BLOCKSIZE);
	pk_k.warps_per_cta = (pk.block + WARP_LANES - 1) / WARP_LANES;
	err = gh_launch(h, &pk_k);
	if (err)
		goto out;
	gh_corrupt(h, pk.alignments, 4);

	/* every alignment slot against a depth-first walk of the host's tree */
	{
		size_t slot = 0;

		for (int i = 0; i < nq; i++) {
			const char *q = reads + (size_t)i * qlen;

			for (int p = 0; p < per_query; p++) {
				const struct mum_locus *lc = &loci[(size_t)i * per_query + p];
				struct mum_emit e = {want_al + slot * MUM_ALIGN_SIZE, 0};
				int pp;

				if (lc->m < min)
					continue;
				pp = t.print_parent[lc->node];
				mum_ref_print(&t, pp, lc, q, p, p == 0 ? 'q' : q[p - 1], &e);
				nleft += (size_t)e.n;
				slot += (size_t)t.num_leaves[pp];
			}
		}
	}
	gh_read(h, pk.alignments, got_al, nalign * MUM_ALIGN_SIZE);
	for (size_t i = 0; i < nalign; i++) {
		int32_t gl, wlf;
		uint16_t gm, wm;

		memcpy(&gl, got_al + i * MUM_ALIGN_SIZE, 4);
		memcpy(&gm, got_al + i * MUM_ALIGN_SIZE + 4, 2);
		memcpy(&wlf, want_al + i * MUM_ALIGN_SIZE, 4);
		memcpy(&wm, want_al + i * MUM_ALIGN_SIZE + 4, 2);
		if (gl != wlf || gm != wm) {
			err = gh_fail(h,
				      "mummer: alignment slot %zu = (left_in_ref %d, matchlen %u), "
				      "want (%d, %u)",
				      i, gl, gm, wlf, wm);
			goto out;
		}
	}
	gh_note(h,
		"mummer: %d bp reference (%d tree nodes), %d reads of %d bp, every MatchCoord "
		"(%zu matches of >= %d bp) and every alignment slot (%zu of %zu left-maximal) "
		"verified",
		n, t.n, nq, qlen, nmatch, min, nleft, nalign);
	err = 0;
out:
	mum_tree_free(&t);
	free(str);
	free(reads);
	free(qtex);
	free(addrs);
	free(lens);
	free(coords);
	free(want_coords);
	free(loci);
	free(nodetex);
	free(childtex);
	free(node_of_id);
	free(info);
	free(got_al);
	free(want_al);
	return err;
}
