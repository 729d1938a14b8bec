# C types for the compiled twin of rummy_env/core/melds.py (Cython reads this file beside the twin's module name
# when it compiles the .py source: the .py stays the pure-Python reference, unchanged). Only the contract searches
# are typed: the hand is copied into a C array and the search loops run on C integers.
import cython

@cython.locals(c="long[53]", total=cython.long, presence="long[4]", k=cython.long)
cpdef bint can_make_contract(object counts, long groups, long runs, object rules, object declared_runs=*) except? -1

# the search on counts already in a C array: cimported by the contract_opening twin (its .pxd), which calls it
@cython.locals(size_g=cython.long, size_r=cython.long, jokers=cython.long, nwin=cython.long, distinct=cython.bint,
               all_jokers=cython.bint)
cdef bint contract_search(long* c, long total, long* presence, long groups, long runs, object rules,
                          object declared_runs=*) except? -1

@cython.locals(c="long[53]")
cpdef bint _groups_possible(object counts, long jokers, long g, object rules) except? -1

@cython.locals(free=cython.long, r=cython.long, n0=cython.long, n1=cython.long, n2=cython.long, n3=cython.long,
               n=cython.long, need=cython.long, cost=cython.long, inf=cython.long, c0=cython.long, c1=cython.long,
               c2=cython.long, c3=cython.long, ncost=cython.long, k=cython.long, bk=cython.long, m=cython.long,
               v=cython.long, result=cython.long, partial=list, best=list, new=list)
cdef bint _groups_ok(long* c, long jokers, long g, long size, bint distinct, bint allow_jokers_only) except? -1

@cython.locals(span=cython.long, s0=cython.long, suit=cython.long,
               pres=cython.long, first=cython.long, low0=cython.long, need=cython.long, idx=cython.long,
               i=cython.long, k=cython.long, ok=cython.bint, used=list, kinds=tuple, bits=tuple, win=tuple)
cdef bint _runs_search(long* c, long* presence, list chosen, list wins, dict cands, object rules, long groups,
                       long size_g, long size_r, bint distinct, bint all_jokers, long nwin, long r_left, long start,
                       long jokers) except? -1

# run_presence of a C array: cimported by the contract_opening twin (its _tally)
@cython.locals(s=cython.long, base=cython.long, bits=cython.long, i=cython.long)
cdef void presence_from(long* c, long* presence) noexcept

@cython.locals(inf=cython.long, bestc="long[16]", newc="long[16]", costc="long[16]", k=cython.long, r=cython.long,
               c0=cython.long, c1=cython.long, c2=cython.long, c3=cython.long, ncost=cython.long, m=cython.long,
               avail=cython.long, bk=cython.long, v=cython.long, result=cython.long)
cdef bint _groups_dp_c(long* c, long jokers, long g, long size, bint allow_jokers_only) except? -1

@cython.locals(c="long[53]")
cdef bint _partition_refused(object counts, long n_runs, long run_min) except? -1

# also cimported by the contract_opening twin (its final_layout)
@cython.locals(total=cython.long, k=cython.long, least=cython.long, s=cython.long, base=cython.long,
               most=cython.long, q=cython.long, aces=cython.long, half=cython.long)
cdef bint partition_refused(long* c, long n_runs, long run_min) noexcept
